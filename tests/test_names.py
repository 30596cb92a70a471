"""Names a reader meets mean one thing (issue 55.6): a function name is defined in one module,
the compiled tiles are called that in code as they are to the user, and no module is named after
how it runs instead of what it holds."""

from __future__ import annotations

import ast

from tests.test_architecture import module_definitions, product_modules

# Each once had two meanings in two modules (issue 55.6).
ONE_MEANING = ("plain", "mean_std", "out_folder", "task_problems", "load_average", "tile_sums")
# Module names that do not say what the module holds.
VAGUE_MODULES = ("child", "shared_options")


def test_each_name_with_two_former_meanings_is_defined_once() -> None:
    modules = product_modules()
    where = {
        name: sorted(m for m, path in modules.items() if name in module_definitions(path))
        for name in ONE_MEANING
    }
    assert all(len(found) <= 1 for found in where.values()), where


def test_the_tiles_are_compiled_in_code_as_to_the_user() -> None:
    """No module, function or class is named after "fused" tiles."""
    found = []
    for module, path in product_modules().items():
        names = {module.rsplit(".", 1)[-1]} | {
            node.name
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef | ast.ClassDef)
        }
        found += [f"{module}: {name}" for name in names if "fused_tile" in name.lower()]
    assert not found, found


def test_no_module_is_named_for_how_it_runs() -> None:
    stems = {module: module.rsplit(".", 1)[-1] for module in product_modules()}
    assert not [m for m, stem in stems.items() if stem in VAGUE_MODULES]
