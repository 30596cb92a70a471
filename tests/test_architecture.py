"""The house rules, read from the source (AST) so they cannot drift:

- packages import one way only: ``harness`` -> ``reports``, ``encoders``, ``datamodules``;
  each of ``encoders``, ``datamodules`` and ``reports`` imports nothing of the others, and
  ``reports.contracts`` (the result-file contracts) imports nothing of ours but itself;
- each result file's name is spelled in one product module, its contract;
- the import graph drawn in docs/architecture.md is the one the code has
  (``python -m tests.test_architecture`` prints it);
- names say what a module holds: no ``run.py``, and no basename but ``__init__``, ``options``,
  ``command`` and ``cli`` shared by three modules; each command package has ``options.py`` and a
  module named after its command, and exports both;
- a command is a run function in ``harness/<package>/command.py`` (the table in ``harness.cli``
  names it), and the options it adds are defined in that package;
- each fact has one definition: Eq. 19's cube root, the Glorot rule, the profile row statuses,
  the argument checks of the commands.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("encoders", "datamodules", "harness", "reports")
CONTRACTS = "reports.contracts"
# which of our packages each package may import (besides itself)
ALLOWED = {
    "encoders": set(),
    "datamodules": set(),
    "reports": set(),
    "harness": {"encoders", "datamodules", "reports"},
}
FILE_NAME = re.compile(r"^[\w-]+\.(csv|json|yaml|md)$")
ARCHITECTURE = ROOT / "docs" / "architecture.md"
GRAPH_START, GRAPH_END = "```mermaid\n", "```\n"


@functools.cache
def _parsed(path: str, modified_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once per version of the file (the finders only read it)."""
    stat = path.stat()
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


# id -> (tree, its nodes): the tree is kept, so its id is not another's while listed here
_WALKED: dict[int, tuple[ast.AST, tuple[ast.AST, ...]]] = {}


def walk(tree: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.walk(tree)``'s nodes, in its order, listed once per tree: each finder walks every
    module, whose trees are cached (:func:`parsed`) and only read (a walk cost 60% of this
    file's 16 s of CPU)."""
    kept = _WALKED.get(id(tree))
    if kept is None or kept[0] is not tree:
        kept = _WALKED[id(tree)] = (tree, tuple(ast.walk(tree)))
    return kept[1]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def product_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")[: -node.level] if node.level else []
    return ".".join([*base, node.module] if node.module else base)


def imported(module: str, path: Path) -> Iterator[str]:
    """Every module ``path`` imports, at any depth (also ``importlib.import_module("x")``)."""
    tree = parsed(path)
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    for node in walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            name = _resolve(package + ".x", node) if node.level else node.module or ""
            yield from (f"{name}.{alias.name}" for alias in node.names)  # a module or a name
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value


def ours(name: str, modules: dict[str, Path]) -> str | None:
    """The product module ``name`` refers to (a module, or the package of an imported name)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_edges() -> set[tuple[str, str]]:
    modules = product_modules()
    edges = set()
    for module, path in modules.items():
        for name in imported(module, path):
            target = ours(name, modules)
            if target and target != module:
                edges.add((module, target))
    return edges


def _top(module: str) -> str:
    return module.split(".")[0]


def test_packages_import_one_way_only() -> None:
    wrong = sorted(
        f"{a} imports {b}"
        for a, b in import_edges()
        if _top(a) != _top(b) and _top(b) not in ALLOWED[_top(a)]
    )
    assert not wrong, "upward or sideways imports:\n" + "\n".join(wrong)


def import_circles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The modules that import one another back, directly or through others (each strongly
    connected component of more than one module, Tarjan's algorithm)."""
    graph: dict[str, list[str]] = {}
    for source, target in sorted(edges):
        graph.setdefault(source, []).append(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph.get(module, []):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            circle = []
            while (member := stack.pop()) != module:
                circle.append(member)
            if circle:
                circles.append(sorted([module, *circle]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_no_module_imports_itself_back() -> None:
    """A function-level import hides a circle from Python, not from this test."""
    assert import_circles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert import_circles(import_edges()) == []


def test_contracts_import_nothing_of_ours_but_themselves() -> None:
    wrong = sorted(
        f"{a} imports {b}"
        for a, b in import_edges()
        if a.startswith(CONTRACTS) and not b.startswith(CONTRACTS)
    )
    assert not wrong, "\n".join(wrong)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def spelled_strings(path: Path) -> set[str]:
    """Every string a module's code spells (docstrings left out), f-string parts included."""
    tree = parsed(path)
    skip = _docstrings(tree)
    return {
        node.value
        for node in walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    }


def contract_file_names() -> dict[str, str]:
    """Each file name a contract module defines as a constant -> that module."""
    names = {}
    for module, path in product_modules().items():
        if module.startswith(CONTRACTS):
            for name in spelled_strings(path):
                if FILE_NAME.match(name):
                    names[name] = module
    return names


def test_the_known_contracts_are_defined() -> None:
    known = {"profile.csv", "manifest.json", "metrics.json", "curve.csv", "fit_config.yaml"}
    known |= {"best_config.yaml", "trials.csv", "summary.json", "test_predictions.csv"}
    assert known <= set(contract_file_names())


def test_each_contract_file_name_is_spelled_in_one_module() -> None:
    names = contract_file_names()
    spelled: dict[str, set[str]] = {name: set() for name in names}
    for module, path in product_modules().items():
        for text in spelled_strings(path):
            for name in names:
                if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text):
                    spelled[name].add(module)
    wrong = {name: sorted(where) for name, where in spelled.items() if where != {names[name]}}
    assert not wrong, f"spelled outside (or besides) its contract: {wrong}"


def package_graph() -> str:
    """The import graph between packages (``reports`` split into its subpackages) as Mermaid."""

    def node(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:2]) if parts[0] == "reports" and len(parts) > 1 else parts[0]

    edges = sorted({(node(a), node(b)) for a, b in import_edges() if node(a) != node(b)})
    lines = ["graph TD"] + [f"    {a} --> {b}" for a, b in edges]
    return "\n".join(lines) + "\n"


def test_the_documented_import_graph_is_the_real_one() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index(GRAPH_START) + len(GRAPH_START)
    drawn = text[start : text.index(GRAPH_END, start)]
    assert drawn == package_graph(), (
        "docs/architecture.md's graph is stale; replace it with the output of "
        "`python -m tests.test_architecture`"
    )


SHARED_BASENAMES = {"__init__", "options", "command", "cli"}
# command -> (package, options class, its run function, the package's module named after it)
COMMAND_PACKAGES = {
    "profile": ("harness.profiling", "ProfileOptions", "run_profile", "profile"),
    "tune": ("harness.studies", "StudyOptions", "run_tune", "tune"),
    "suite": ("harness.suite", "SuiteOptions", "run_suite", "suite"),
    "reproduce": ("harness.reproduce", "ReproduceOptions", "run_reproduce", "reproduce"),
}
# a fact -> the one module that defines it (a module-level function, class or constant)
FACTS = {
    "memory_optimal_r": "encoders.layers.block_length",  # Eq. 19
    "block_length": "encoders.layers.block_length",
    "expected_max_length": "encoders.layers.block_length",  # Eq. 23
    "appendix_a_r": "encoders.layers.block_length",
    "glorot_": "encoders.layers.init",
    "glorot_layers_": "encoders.layers.init",
    "STATUSES": "reports.contracts.profile_run",
    "MEASURED_STATUSES": "reports.contracts.profile_run",
    "resume_command": "harness.redaction",
    "recorded_command": "harness.redaction",
    "names": "harness.command_parser",
}


def module_definitions(path: Path) -> set[str]:
    """The names ``path`` defines at module level (functions, classes, assigned names)."""
    return definitions_in(parsed(path).body)


# harness/'s own modules: the command plumbing every command shares (issue 55.1). Measuring is
# harness.measurement's, predicting memory harness.memory_prediction's, a command's work its
# package's.
PLUMBING = {
    "harness",
    "harness.cli",
    "harness.program",
    "harness.interrupts",
    "harness.command_parser",
    "harness.console",
    "harness.quiet",
    "harness.redaction",
    "harness.outdir",
    "harness.kernel_caches",  # where every command keeps compiled kernels
    "harness.command_actions",  # the action words after a command's name, known before it loads
    "harness.errors",
}
# harness/'s packages, each a concern of its own: a new one is added here, with its job, and to
# docs/architecture.md's table
HARNESS_PACKAGES = {
    "harness.data": "sanbench data: the benchmark files' stats, coverage and errors",
    "harness.encoder_list": "sanbench encoders: the registry's encoders",
    "harness.inference": "sanbench predict and encode: a checkpoint applied to sentences",
    "harness.launch": "jobs on this machine or a cluster (submitit)",
    "harness.measurement": "measuring: time, memory, CPU use, the machine",
    "harness.memory_prediction": "the memory a step will take, predicted",
    "harness.profiling": "sanbench profile: sweeps of measured and predicted steps",
    "harness.report": "sanbench report: the site of a run's result files",
    "harness.reproduce": "sanbench reproduce: the papers' tables",
    "harness.studies": "sanbench tune: optuna studies",
    "harness.suite": "sanbench suite: grids of fits and their tables",
    "harness.training": "sanbench fit: one fit, its module, settings and callbacks",
}
HOMES = {
    "harness.measurement": (
        "latency",
        "elapsed",
        "tensor_memory",
        "training_memory",
        "process_memory",
        "machine_memory",
        "cpu_usage",
        "environment",
        "gpu_process",
    ),
    "harness.memory_prediction": ("step", "cpu_kernels", "kernel_model"),
}


def unlisted_in_harness(modules: dict[str, Path]) -> list[str]:
    """What harness/ holds (a module, or a package: a folder of modules, ``__init__.py`` or
    not) that is neither its plumbing nor one of its packages."""
    children = {".".join(m.split(".")[:2]) for m in modules if m.startswith("harness.")}
    packages = {c for c in children if any(m.startswith(c + ".") for m in modules)}
    return sorted((children - packages - PLUMBING) | (packages - set(HARNESS_PACKAGES)))


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["harness.newmodule"], ["harness.newmodule"]),
        (["harness.newpackage", "harness.newpackage.m"], ["harness.newpackage"]),
        (["harness.newpackage.m"], ["harness.newpackage"]),  # no __init__.py
        (["harness.cli", "harness.suite", "harness.suite.runner"], []),
    ],
)
def test_a_module_or_package_new_in_harness_is_found(
    tmp_path: Path, names: list[str], expected: list[str]
) -> None:
    """H18.5: a new package under harness/ passed silently (only loose modules were read)."""
    assert unlisted_in_harness(dict.fromkeys(names, tmp_path / "m.py")) == expected


def test_harness_holds_only_command_plumbing_and_each_concern_its_package() -> None:
    modules = product_modules()
    unlisted = unlisted_in_harness(modules)
    assert not unlisted, f"in harness/ but in neither PLUMBING nor HARNESS_PACKAGES: {unlisted}"
    for package, names in HOMES.items():
        assert {f"{package}.{name}" for name in names} <= set(modules)
    step_peak = {m for m, path in modules.items() if "StepPeak" in module_definitions(path)}
    assert step_peak == {"harness.measurement.tensor_memory"}


def test_the_architecture_doc_names_every_plumbing_module() -> None:
    plumbing_row = next(
        line for line in ARCHITECTURE.read_text().splitlines() if "nothing else sits loose" in line
    )
    unnamed = [
        name
        for name in sorted(PLUMBING - {"harness"})
        if f"{name.rpartition('.')[2]}.py`" not in plumbing_row
    ]
    assert not unnamed, f"docs/architecture.md's plumbing row does not name {unnamed}"


MEASUREMENT = "harness.measurement"
# What measuring is made of, which only harness.measurement touches (issue 55.1, breakers): the
# timers and trackers its modules wrap, the allocator's counters, the profiler's memory records,
# what Linux counts of this process and this machine (/proc, rusage, load, psutil), and the clocks
# (a module or a name: everything under it measures, imported or reached by attribute)
MEASURING_IMPORTS = (
    "torch.utils.benchmark",
    "torch.profiler.profile",
    "torch.autograd.profiler.profile",
    "psutil",
    "pynvml",
    "timeit",
    "tracemalloc",
    "cProfile",
    "lightning.pytorch.callbacks.DeviceStatsMonitor",
    "lightning.pytorch.callbacks.device_stats_monitor",
    "lightning.pytorch.callbacks.Timer",
    "lightning.pytorch.callbacks.timer",
    "lightning.pytorch.profilers",
    "harness.measurement.cpu_usage.CpuSnapshot",
    "harness.measurement.tensor_memory.StepPeak",
)
# functions whose every call (or reference, ``getattr(time, "perf_counter")`` included) measures
MEASURING_CALLS = {
    *(
        f"time.{clock}"
        for clock in (
            "perf_counter",
            "perf_counter_ns",
            "monotonic",
            "monotonic_ns",
            "process_time",
            "process_time_ns",
            "thread_time",
            "thread_time_ns",
            "time",
            "time_ns",
        )
    ),
    "resource.getrusage",
    "os.getloadavg",
    "os.times",
    "os.wait3",  # a child's rusage
    "os.wait4",
    "os.sysconf",  # the machine's pages (its memory), processors
    # the machine described (H20.2); os.cpu_count is not here: the prediction pool's and a
    # job's thread counts size work by it and record nothing (the machine's count is
    # harness.measurement.environment's)
    *(f"platform.{name}" for name in ("system", "release", "version", "uname", "platform")),
    *(f"platform.{name}" for name in ("processor", "machine")),
}
# keyword arguments that make a call measure (the profiler's allocations, a CUDA event's time)
MEASURING_KEYWORDS = {"profile_memory": "records allocations", "enable_timing": "times on a device"}
# a device event, which times when its first argument (enable_timing) is true
TIMING_EVENT = re.compile(r"^torch\.(\w+\.)?Event$")
# what Linux counts of this process and machine, read as files however the path is built
MEASURED_FILES = re.compile(r"(?<![\w.])(/proc|/sys/fs/cgroup)(?![\w-])")
# torch's allocator counters, under whatever module they are reached (torch.cuda, torch.mps,
# torch.cuda.memory, torch.xpu)
MEASURING_ATTRIBUTES = {
    "max_memory_allocated",
    "memory_allocated",
    "reset_peak_memory_stats",
    "reset_max_memory_allocated",
    "max_memory_reserved",
    "memory_reserved",
    "reset_max_memory_cached",
    "max_memory_cached",
    "memory_cached",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_snapshot",
    "memory_summary",
    "mem_get_info",
    "driver_allocated_memory",
    "current_allocated_memory",
    "list_gpu_processes",  # NVML's, through torch
    "device_memory_used",
    "utilization",
    "memory_usage",
    "power_draw",
    "temperature",
    "clock_rate",
}
# properties read off whatever object holds them (H20.2: the GPU's memory, the twin of
# machine_memory's, from ``torch.cuda.get_device_properties(device)``)
MEASURING_PROPERTIES = {"total_memory": "reads a GPU's memory"}
# NVML's calls (``nvmlDeviceGetComputeRunningProcesses``), on whatever object holds the module
NVML_CALL = re.compile(r"^nvml[A-Z]\w*$")
# (module, what it reads) outside harness.measurement on purpose, and why
NOT_MEASURING = {
    ("harness.launch.processes", "time.monotonic"): (
        "a deadline for the jobs to end after a Ctrl-C: a timeout, no figure is recorded"
    ),
    ("encoders.layers.cpu_tiles", "/proc/cpuinfo"): (
        "the CPU's flags name the tiles' library build (a cache key); encoders import no harness"
    ),
    ("encoders.layers.cpu_tiles", "platform.processor"): (
        "the CPU's name names the tiles' library build (a cache key); encoders import no harness"
    ),
    ("encoders.layers.cpu_tiles", "platform.machine"): (
        "the CPU's name names the tiles' library build (a cache key); encoders import no harness"
    ),
}


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name or an Attribute chain, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Each name a module's imports bind -> the dotted name it stands for (``import time as t``:
    ``t`` -> ``time``; ``from time import perf_counter as clock``: ``clock`` ->
    ``time.perf_counter``)."""
    names = {}
    for node in walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name == "*":  # ``from time import *``: every measuring name it binds
                    names |= _star_names(_canonical(node.module))
                else:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _canonical(name: str) -> str:
    """``name`` under Lightning's one name (``pytorch_lightning.x`` is ``lightning.pytorch.x``)."""
    legacy = "pytorch_lightning"
    return "lightning.pytorch" + name[len(legacy) :] if name.partition(".")[0] == legacy else name


def _star_names(module: str) -> dict[str, str]:
    """The measuring names ``from module import *`` binds -> their dotted names."""
    bound = {
        name[len(module) + 1 :].split(".")[0]
        for name in (*MEASURING_CALLS, *MEASURING_IMPORTS)
        if name.startswith(module + ".")
    }
    return {name: f"{module}.{name}" for name in bound}


def is_measuring(name: str) -> bool:
    """Whether the dotted ``name`` (a module, a function, an attribute chain) measures."""
    name = _canonical(name)
    return (
        name in MEASURING_CALLS
        or any(name == m or name.startswith(m + ".") for m in MEASURING_IMPORTS)
        or (name.startswith("torch.") and name.rpartition(".")[2] in MEASURING_ATTRIBUTES)
        or bool(NVML_CALL.match(name.rpartition(".")[2]))
    )


def measured_names(path: Path) -> Iterator[tuple[str, int]]:
    """(what, line) of each measuring function ``path`` reaches: called, passed on, or fetched
    by name (``getattr(time, "perf_counter")``), however its module was imported."""
    tree = parsed(path)
    aliases = _aliases(tree)
    parents = {id(child): node for node in walk(tree) for child in ast.iter_child_nodes(node)}
    for node in walk(tree):
        dotted = _dotted(node) if isinstance(node, ast.Attribute | ast.Name) else None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            base = _dotted(node.args[0])
            dotted = f"{base}.{node.args[1].value}" if base else None
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        full = _canonical(".".join(filter(None, [aliases.get(head, head), rest])))
        if is_measuring(full):
            yield full, node.lineno
        parent = parents.get(id(node))
        if (
            TIMING_EVENT.match(full)
            and isinstance(parent, ast.Call)
            and parent.func is node
            and parent.args
            and not (isinstance(parent.args[0], ast.Constant) and not parent.args[0].value)
        ):
            yield f"{full}(enable_timing)", node.lineno


def measured(module: str, path: Path) -> Iterator[tuple[str, str]]:
    """(what, where) of each place ``path`` measures by itself rather than through
    harness.measurement's trackers."""
    for name in imported(module, path):
        if is_measuring(name):
            yield name, f"{module}: imports {name}"
    for what, line in measured_names(path):
        yield what, f"{module}:{line}: reads {what}"
    for node in walk(parsed(path)):
        if (
            isinstance(node, ast.keyword)
            and node.arg in MEASURING_KEYWORDS
            and not (isinstance(node.value, ast.Constant) and not node.value.value)
        ):
            yield node.arg, f"{module}:{node.value.lineno}: {MEASURING_KEYWORDS[node.arg]}"
        if isinstance(node, ast.Attribute) and node.attr in MEASURING_PROPERTIES:
            yield node.attr, f"{module}:{node.lineno}: {MEASURING_PROPERTIES[node.attr]}"
    for text in spelled_strings(path):
        if MEASURED_FILES.search(text):
            yield text, f"{module}: reads {text}"


def measuring(module: str, path: Path) -> list[str]:
    """Where ``path`` measures outside harness.measurement, NOT_MEASURING's entries left out."""
    return [where for what, where in measured(module, path) if (module, what) not in NOT_MEASURING]


def test_measuring_is_done_in_harness_measurement_only() -> None:
    """One home for measuring: ``profile``, ``fit`` and the studies call its trackers (latency,
    tensor memory, training memory, process memory, CPU usage, GPU process, environment); every
    product module outside it, in any package, new ones included, is read."""
    modules = product_modules()
    wrong = [
        line
        for module, path in modules.items()
        if not module.startswith(MEASUREMENT + ".")
        for line in measuring(module, path)
    ]
    assert not wrong, "measuring outside harness.measurement:\n" + "\n".join(wrong)
    for module, what in NOT_MEASURING:  # each exception still stands
        assert what in {w for w, _ in measured(module, modules[module])}, (
            f"{module} no longer reads {what}: drop it from NOT_MEASURING"
        )


@pytest.mark.parametrize(
    "source",
    [
        "from torch.utils import benchmark\n",
        "import torch\ntorch.cuda.max_memory_allocated()\n",
        "import torch\ntorch.cuda.max_memory_reserved(0)\n",
        "import torch\nb = torch.cuda.memory_reserved(device)\n",
        "import torch.cuda as c\nc.memory.memory_stats()\n",
        "from torch.profiler import profile\n",
        "def f(p):\n    return p(profile_memory=True)\n",
        "STATUS = '/proc/self/status'\n",
        "from harness.measurement.cpu_usage import CpuSnapshot\n",
        "import time\nstart = time.perf_counter()\n",
        "import time as t\nt.monotonic()\n",
        "from time import perf_counter as clock\nclock()\n",
        "from time import process_time\n",
        "import time\nclock = getattr(time, 'perf_counter')\n",
        "import resource\nresource.getrusage(resource.RUSAGE_SELF)\n",
        "import os\nos.getloadavg()\n",
        "def f():\n    import psutil\n    return psutil.virtual_memory()\n",
        # H18 (an outside check's list): a star import, timeit, tracemalloc, torch's profiler
        # and benchmark timer reached by attribute, CUDA events that time, /proc and cgroup
        # files however the path is built, a child's rusage, Lightning's measuring callbacks
        "from time import *\nstart = perf_counter()\n",
        "import time as t\nstart = t.perf_counter_ns()\n",
        "from time import perf_counter as pc\nstart = pc()\n",
        "import timeit\nclock = timeit.default_timer\n",
        "from timeit import Timer\n",
        "def f():\n    import tracemalloc\n    tracemalloc.start()\n",
        "import torch\nwith torch.profiler.profile() as p:\n    pass\n",
        "import torch\nt = torch.utils.benchmark.Timer('f()')\n",
        "import torch\nstart = torch.cuda.Event(enable_timing=True)\n",
        "from torch.cuda import Event\nstart = Event(True)\n",  # enable_timing by position
        "from pathlib import Path\nmeminfo = Path('/proc') / 'meminfo'\n",
        "from pathlib import Path\nlimit = Path('/sys/fs/cgroup/memory.max').read_text()\n",
        "import os\npid, status, usage = os.wait4(child, 0)\n",
        "from lightning.pytorch.callbacks import DeviceStatsMonitor\n",
        "import lightning.pytorch as pl\ntimer = pl.callbacks.Timer()\n",
        "from pytorch_lightning.callbacks import Timer\n",
        # H18.2: the machine's memory, and NVML's listing however its module was handed over
        "import os\ntotal = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')\n",
        "def f():\n    import pynvml\n",
        "def f(nvml, handle):\n    return nvml.nvmlDeviceGetComputeRunningProcesses(handle)\n",
        "import torch\ntorch.cuda.list_gpu_processes(0)\n",
        # H20.2: a GPU's memory, however its properties are reached; the machine described
        "import torch\ntotal = torch.cuda.get_device_properties(device).total_memory\n",
        "import torch\np = torch.cuda.get_device_properties(0)\ntotal = p.total_memory\n",
        "import torch\nfree, total = torch.cuda.mem_get_info(device)\n",
        "import platform\nsystem = f'{platform.system()} {platform.release()}'\n",
        "from platform import uname\nuname()\n",
    ],
)
def test_measuring_is_found_however_it_is_written(tmp_path: Path, source: str) -> None:
    """Any spelling, in a module of a package that did not exist yet (harness.newpackage)."""
    path = tmp_path / "m.py"
    path.write_text(source)
    assert measuring("harness.newpackage.m", path)


@pytest.mark.parametrize(
    "source",
    [
        "import time\ntime.sleep(1)\n",
        "import resource\nresource.setrlimit(resource.RLIMIT_DATA, (1, 2))\n",
        "import torch\ntorch.cuda.set_per_process_memory_fraction(0.5)\n",
        "from time import *\nsleep(1)\n",
        "import torch\nstream_done = torch.cuda.Event()\n",
        "import torch\nstream_done = torch.cuda.Event(False)\n",
        "from pathlib import Path\nPath('/processes')\n",
        "from torch.profiler import record_function\n",  # a label, read by whoever measures
        "from lightning.pytorch.callbacks import ModelCheckpoint\n",
        "import os\nprocesses = min(2, os.cpu_count() or 1)\n",  # sizing work, no figure
        "import platform\nversion = platform.python_version()\n",  # software, not machine
    ],
)
def test_what_is_no_measuring_is_not_found(tmp_path: Path, source: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    assert measuring("harness.newpackage.m", path) == []


# names that meant two things in two modules (issue 55 breaker, H14.6): the kinds of task and of
# run folder, the profile's compared settings and the suite's comparison table, measuring a point
# and counting an encoder's parameters
ONE_MEANING = ("KINDS", "COMPARISON_COLUMNS", "measure")


def definitions_anywhere(path: Path) -> set[str]:
    """The names ``path`` defines at module level and in its classes (methods, attributes)."""
    body = parsed(path).body
    names = definitions_in(body)
    for node in body:
        if isinstance(node, ast.ClassDef):
            names |= definitions_in(node.body)
    return names


def definitions_in(body: list[ast.stmt]) -> set[str]:
    """The names the statements ``body`` define (functions, classes, assigned names)."""
    names = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_each_name_means_one_thing() -> None:
    """KINDS, COMPARISON_COLUMNS and ``measure`` each named two things (H14.6): each is defined
    in one module at most, as a function, a method or a constant."""
    where: dict[str, list[str]] = {name: [] for name in ONE_MEANING}
    for module, path in product_modules().items():
        for name in definitions_anywhere(path) & set(ONE_MEANING):
            where[name].append(module)
    twice = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert not twice, f"one name, two meanings: {twice}"


def test_no_run_module_and_no_basename_shared_by_three() -> None:
    counts: dict[str, list[str]] = {}
    for module, path in product_modules().items():
        counts.setdefault(path.stem, []).append(module)
    assert "run" not in counts, f"modules named run.py: {counts['run']}"
    shared = {n: m for n, m in counts.items() if len(m) >= 3 and n not in SHARED_BASENAMES}
    assert not shared, f"basenames shared by three or more modules: {shared}"


@pytest.mark.parametrize("command", sorted(COMMAND_PACKAGES))
def test_each_command_package_has_its_options_and_a_module_named_after_it(command: str) -> None:
    package, options, run, module = COMMAND_PACKAGES[command]
    modules = product_modules()
    assert f"{package}.options" in modules and f"{package}.{module}" in modules
    assert options in module_definitions(modules[f"{package}.options"])
    assert run in module_definitions(modules[f"{package}.{module}"])
    exported = importlib.import_module(package)
    assert {options, run} <= set(exported.__all__)
    adapter = modules[f"{package}.command"]
    assert {f"{package}.{options}", f"{package}.{run}"} <= set(
        imported(f"{package}.command", adapter)
    ), f"{package}.command should import {options} and {run} from {package}"


COMMAND_MODULE = re.compile(r"^(harness\.[a-z_]+)\.command$")


def command_misplacements(table: dict[str, tuple[str, str]]) -> list[str]:
    """What the commands' table and the command modules put outside a command's package: a run
    function not in ``harness/<package>/command.py``, an options class passed to
    ``add_options`` defined outside that package, an option added by hand (``add_argument``)."""
    modules = product_modules()
    wrong = []
    for name, (target, _) in sorted(table.items()):
        module, _, function = target.partition(":")
        home = COMMAND_MODULE.match(module)
        if not home or module not in modules:
            wrong.append(f"{name}: {module} is not a module harness/<package>/command.py")
            continue
        if function not in module_definitions(modules[module]):
            wrong.append(f"{name}: {module} defines no {function}")
        loaded = importlib.import_module(module)
        for node in ast.walk(ast.parse(modules[module].read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr == "add_argument":
                wrong.append(f"{name}: {module}:{node.lineno} adds an option outside a dataclass")
            elif node.func.attr == "add_options" and isinstance(node.args[0], ast.Name):
                options = getattr(loaded, node.args[0].id)
                if not options.__module__.startswith(home.group(1) + "."):
                    wrong.append(
                        f"{name}: its options {options.__name__} are defined in "
                        f"{options.__module__}, outside {home.group(1)}"
                    )
    return wrong


def test_a_command_is_a_run_function_and_options_in_its_own_package() -> None:
    """Issue 55.3: every command is found the same way, its options beside its work."""
    from harness.cli import SUBCOMMANDS

    assert command_misplacements(SUBCOMMANDS) == []
    misplaced = {
        "old": ("harness.commands.encoders:run", ""),  # the adapters' folder before issue 55.3
        "loose": ("harness.cli:main", ""),
        "unnamed": ("harness.suite.command:run", ""),
        "shared": ("harness.studies.command:tune", ""),  # StudyOptions: its own, fine
    }
    assert [line.split(":")[0] for line in command_misplacements(misplaced)] == [
        "loose",
        "old",
        "unnamed",
    ]


# Option dataclasses a command takes from another package, and why (litgpt's shared option
# dataclasses): fit's data, budget and sections, for the commands that run fits (suite, tune,
# reproduce), and the launcher's, for every command that launches jobs
SHARED_OPTIONS = {
    "harness.training.settings.fit_overrides.DataOptions",
    "harness.training.settings.fit_overrides.Budget",
    "harness.training.settings.fit_overrides.FitSections",
    "harness.launch.options.LaunchOptions",
}
# how a parser is given an option, by hand, from a class or a function (jsonargparse's and
# LightningCLI's methods included)
DECLARING = {
    "add_argument",
    "add_alias",
    "add_options",
    "add_class_arguments",
    "add_dataclass_arguments",
    "add_subclass_arguments",
    "add_function_arguments",
    "add_method_arguments",
    "add_optimizer_args",
    "add_lr_scheduler_args",
    "add_argument_group",
    "add_subcommands",
    "add_subparsers",
}
# parser libraries' own ways to make a command line (a parser, a CLI from a function): only the
# parser library and fit's settings use them (a module or a name: everything under it)
PARSER_LIBRARIES = (
    "argparse.ArgumentParser",
    "jsonargparse.ArgumentParser",
    "jsonargparse.CLI",
    "jsonargparse.auto_cli",
    "jsonargparse.auto_parser",
    "click",
    "typer",
    "fire",
)
PARSER_LIBRARY = "harness.command_parser"
# where a command package declares its options: its options module and its command module (which
# passes the options class to its parser); fit, which builds its own parser (LightningCLI), in its
# settings package (FitCLI, the optimizers' groups)
OPTIONS_MODULES = ("options", "command")
OWN_PARSER_OPTIONS = "harness.training.settings"


def option_classes(options: type) -> Iterator[type]:
    """``options``, its dataclass bases (which declare their fields in their own modules) and
    every dataclass nested in its fields (their fields are options too)."""
    import dataclasses
    import typing

    def nested(hint: object) -> Iterator[type]:  # ``X``, ``X | None``, ``list[X]``, ...
        if dataclasses.is_dataclass(hint):
            yield hint  # type: ignore[misc]
        for argument in typing.get_args(hint):
            yield from nested(argument)

    yield from (cls for cls in options.__mro__ if dataclasses.is_dataclass(cls))
    hints = typing.get_type_hints(options)
    for field in dataclasses.fields(options):
        for inner in nested(hints[field.name]):
            yield from option_classes(inner)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def parser_options(add_arguments: object) -> tuple[list[type], set[str]]:
    """The option classes (nested ones included) and the keys and aliases of the parser that
    ``add_arguments`` makes."""
    from harness.command_parser import CommandParser, known_keys

    parser = CommandParser("sanbench test")
    add_arguments(parser)  # type: ignore[operator]
    classes = [cls for options in parser.checked for cls in option_classes(options)]
    return classes, (known_keys(parser) - {"config"}) | parser.aliases


def option_problems(home: str, add_arguments: object) -> list[str]:
    """What a command's ``add_arguments`` declares outside its package ``home``: an options
    class (or a class nested in one) defined elsewhere and not shared on purpose, or an option
    that no dataclass field declares (added by hand, by a helper, or as an alias). The parser is
    built and read, so it makes no difference how the code spells it (an attribute, a helper)."""
    import dataclasses

    classes, keys = parser_options(add_arguments)
    problems = [
        f"{_qualified(cls)} is defined outside {home}"
        for cls in classes
        if not cls.__module__.startswith(home + ".") and _qualified(cls) not in SHARED_OPTIONS
    ]
    fields = {field.name for cls in classes for field in dataclasses.fields(cls)}
    fields |= {f"--{name}" for name in fields}  # aliases are spelled as options
    return problems + [f"{key} is no dataclass field" for key in sorted(keys - fields)]


def declaring_names(path: Path) -> Iterator[tuple[str, int]]:
    """(name, line) of each ``DECLARING`` method ``path`` reaches: called or referenced as an
    attribute or a name, or spelled as a string (``getattr(parser, "add_argument")``)."""
    tree = parsed(path)
    skip = _docstrings(tree)
    for node in walk(tree):
        name = (
            node.attr
            if isinstance(node, ast.Attribute)
            else node.id
            if isinstance(node, ast.Name)
            else node.value
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            else None
        )
        if name in DECLARING:
            yield name, node.lineno
    aliases = _aliases(tree)
    for node in walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [
                f"{node.module}.{a.name}" if isinstance(node, ast.ImportFrom) else a.name
                for a in node.names
            ]
        elif isinstance(node, ast.Attribute | ast.Name) and (dotted := _dotted(node)):
            head, _, rest = dotted.partition(".")
            names = [_canonical(".".join(filter(None, [aliases.get(head, head), rest])))]
        else:
            continue
        for name in names:
            if any(name == m or name.startswith(m + ".") for m in PARSER_LIBRARIES):
                yield name, node.lineno


def declared_outside_a_command(modules: dict[str, Path], homes: set[str]) -> list[str]:
    """Modules that give a parser options (``DECLARING``) but are neither the parser library
    nor a command package's options or command module (fit's: its settings package): the
    options of a command belong to its options module."""
    allowed = {f"{home}.{name}" for home in homes for name in OPTIONS_MODULES}
    wrong = []
    for module, path in sorted(modules.items()):
        if (
            module in allowed | {PARSER_LIBRARY}
            or module == OWN_PARSER_OPTIONS
            or module.startswith(OWN_PARSER_OPTIONS + ".")
        ):
            continue
        wrong += [f"{module}:{line}: {name}" for name, line in declaring_names(path)]
    return wrong


def test_each_commands_options_are_declared_in_its_package() -> None:
    """Issue 55.3, checked from the parsers themselves: every option of every command comes from
    a dataclass of the command's package (or one of SHARED_OPTIONS), and only the commands'
    packages (fit's builds its own parser) and the parser library declare options."""
    from harness.cli import SUBCOMMANDS, command_module

    homes, problems, shared = set(), [], set()
    for name in SUBCOMMANDS:
        module, _ = command_module(name)
        match = COMMAND_MODULE.match(module.__name__)
        assert match, module.__name__
        homes.add(match.group(1))
        if not getattr(module, "OWN_PARSER", False):
            problems += [
                f"{name}: {p}" for p in option_problems(match.group(1), module.add_arguments)
            ]
            shared |= {_qualified(cls) for cls in parser_options(module.add_arguments)[0]}
    assert not problems, "\n".join(problems)
    assert declared_outside_a_command(product_modules(), homes) == []
    assert shared >= SHARED_OPTIONS, f"shared by no command: {SHARED_OPTIONS - shared}"


# fit builds its own parser (LightningCLI): its option classes from our harness and reports are
# fit's own (harness.training: RunOptions, the task model), its datamodule is datamodules'
FIT_HOME = "harness.training"


class _Built(Exception):  # noqa: N818 (carries the parser out, no error)
    """Raised by :func:`fit_parser`'s CLI once its parser is built, before any word is read."""


def fit_parser(cli_class: type | None = None) -> object:
    """``sanbench fit``'s parser as ``FitCLI`` (or ``cli_class``, a subclass) builds it."""
    from harness.training.settings.fit_cli import FitCLI

    class Built(cli_class or FitCLI):  # type: ignore[misc, valid-type]
        def parse_arguments(self, parser: object, args: object) -> None:
            raise _Built(parser)

    try:
        Built([])
    except _Built as built:
        return built.args[0]
    raise AssertionError("FitCLI parsed no words")


def fit_class_problems(parser: object) -> list[str]:
    """Each option group of fit's ``parser`` made from a class of harness or reports defined
    outside fit's package (FIT_HOME) and not shared on purpose (SHARED_OPTIONS)."""
    problems = []
    for key, group in parser.groups.items():  # type: ignore[attr-defined]
        cls = getattr(group, "group_class", None)
        if cls is None or cls.__module__.split(".")[0] not in ("harness", "reports"):
            continue
        if not cls.__module__.startswith(FIT_HOME + ".") and _qualified(cls) not in SHARED_OPTIONS:
            problems.append(f"--{key}: {_qualified(cls)} is defined outside {FIT_HOME}")
    return problems


def test_fits_option_classes_are_its_own() -> None:
    """H20.4: fit, which builds its own parser, was left out of the class-home check: another
    command's options class planted in its parser passed."""
    from harness.report.options import ReportOptions
    from harness.training.settings.fit_cli import FitCLI

    class Planted(FitCLI):
        def add_arguments_to_parser(self, parser: object) -> None:
            super().add_arguments_to_parser(parser)  # type: ignore[arg-type]
            parser.add_class_arguments(ReportOptions, "site")  # type: ignore[attr-defined]

    assert fit_class_problems(fit_parser(Planted)) == [
        "--site: harness.report.options.ReportOptions is defined outside harness.training"
    ]
    parser = fit_parser()
    assert "run" in parser.groups  # type: ignore[attr-defined]
    assert fit_class_problems(parser) == []


def test_options_declared_another_way_are_still_found(tmp_path: Path) -> None:
    """The finder reads the parser, not the spelling: a helper's ``add_argument``, an options
    class reached through an attribute or nested in another, an alias."""
    import dataclasses

    import harness.encoder_list.options as list_options
    from harness.command_parser import add_alias
    from harness.profiling.options import ProfileOptions
    from harness.suite.options import SuiteOptions

    def helper(parser: object) -> None:
        parser.add_argument("--extra")  # type: ignore[attr-defined]

    assert (
        option_problems("harness.encoder_list", lambda p: p.add_options(list_options.ListOptions))
        == []
    )
    assert option_problems("harness.suite", lambda p: p.add_options(SuiteOptions)) == []
    assert option_problems(
        "harness.encoder_list", lambda p: (p.add_options(list_options.ListOptions), helper(p))
    ) == ["extra is no dataclass field"]
    assert option_problems("harness.suite", lambda p: p.add_options(ProfileOptions)) == [
        "harness.profiling.options.ProfileOptions is defined outside harness.suite"
    ]
    assert option_problems(
        "harness.encoder_list", lambda p: add_alias(p, "--task", "data.task", "")
    ) == ["--task is no dataclass field"]
    # H18.3: an options class nested in a field typed ``X | None`` (or a list of X) is read too
    for hint in (ProfileOptions | None, list[ProfileOptions]):
        wrapper = dataclasses.make_dataclass("Wrapper", [("inner", hint, None)], frozen=True)
        wrapper.__module__ = list_options.__name__
        assert option_problems("harness.encoder_list", lambda p, w=wrapper: p.add_options(w)) == [
            "harness.profiling.options.ProfileOptions is defined outside harness.encoder_list"
        ]
    # issue 55 (fifth outside check): an option declared by a dataclass base in another package
    planted = dataclasses.make_dataclass("Planted", [("theme", str, "dark")], frozen=True)
    planted.__module__ = "harness.launch.outcomes"
    report = dataclasses.make_dataclass("ReportOptions", [], bases=(planted,), frozen=True)
    report.__module__ = list_options.__name__
    assert option_problems("harness.encoder_list", lambda p: p.add_options(report)) == [
        "harness.launch.outcomes.Planted is defined outside harness.encoder_list"
    ]
    helper_module = tmp_path / "helper.py"
    helper_module.write_text("def more(parser):\n    parser.add_argument('--x')\n")
    assert declared_outside_a_command(
        {"harness.launch.helper": helper_module}, {"harness.suite"}
    ) == ["harness.launch.helper:2: add_argument"]


@pytest.mark.parametrize(
    "source",
    [
        "def more(parser):\n    getattr(parser, 'add_argument')('--x')\n",
        "def more(parser):\n    add = parser.add_argument\n    add('--x')\n",
        "def more(parser):\n    parser.add_optimizer_args((Optimizer,))\n",
        "def more(parser):\n    parser.add_lr_scheduler_args(Schedulers)\n",
        "def more(parser):\n    parser.add_function_arguments(train, 'train')\n",
        "def more(parser):\n    parser.add_class_arguments(Options, 'x')\n",
        "def more(parser):\n    parser.add_dataclass_arguments(Options, 'x')\n",
        # H18.3: a parser library's own entry points, another library, argparse's subcommands
        "from jsonargparse import auto_cli\ndef main():\n    auto_cli(train)\n",
        "import jsonargparse\ndef main():\n    jsonargparse.CLI(train)\n",
        "import click\n@click.command()\n@click.option('--x')\ndef f(x):\n    pass\n",
        "import typer\napp = typer.Typer()\n",
        "def main():\n    import fire\n    fire.Fire(train)\n",
        "def more(parser):\n    commands = parser.add_subparsers()\n",
        "import argparse\nparser = argparse.ArgumentParser()\n",
    ],
)
@pytest.mark.parametrize(
    "module", ["harness.launch.helper", "harness.suite.runner", "harness.newpackage.m"]
)
def test_options_declared_outside_the_options_modules_are_found(
    tmp_path: Path, source: str, module: str
) -> None:
    """Any spelling, in a module of no command, of a command outside its options and command
    modules, or of a new package (H14.2)."""
    path = tmp_path / "m.py"
    path.write_text(source)
    assert declared_outside_a_command({module: path}, {"harness.suite"})
    assert declared_outside_a_command({"harness.suite.options": path}, {"harness.suite"}) == []


# the modules that are the program itself (``sanbench``, ``python -m harness.cli``)
PROGRAM = {"harness.program", "harness.cli"}


def _says_main(tree: ast.AST) -> bool:
    """Whether a module spells ``"__main__"`` as a string anywhere but a docstring: however it
    checks that it runs as the program (``__name__ == "__main__"``, a constant, ``match``,
    ``endswith``, ``sys.modules["__main__"]``)."""
    skip = _docstrings(tree)
    return any(
        isinstance(node, ast.Constant) and node.value == "__main__" and id(node) not in skip
        for node in walk(tree)
    )


def runnable_modules(modules: dict[str, Path]) -> set[str]:
    """The modules a ``python -m`` runs: a package's ``__main__.py`` (as its package), and those
    that spell ``"__main__"`` (:func:`_says_main`)."""
    found = set()
    for module, path in modules.items():
        package, _, name = module.rpartition(".")
        if name == "__main__":
            found.add(package)
        elif _says_main(parsed(path)):
            found.add(module)
    return found


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("harness.newpackage.m", "if __name__ == '__main__':\n    main()\n"),
        ("harness.newpackage.m", "if '__main__' == __name__:\n    main()\n"),  # reversed
        (
            "harness.newpackage.m",
            "try:\n    pass\nfinally:\n    if __name__ == '__main__':\n        main()\n",
        ),
        ("harness.newpackage.m", "def f():\n    if __name__ == '__main__':\n        main()\n"),
        ("harness.newpackage.m", "if DEBUG and __name__ in ('__main__',):\n    main()\n"),
        ("harness.newpackage.__main__", "from harness.newpackage.tool import main\n\nmain()\n"),
        # issue 55 (fifth outside check): "__main__" spelled anywhere but a docstring
        ("harness.newpackage.m", "MAIN = '__main__'\nif __name__ == MAIN:\n    main()\n"),
        ("harness.newpackage.m", "match __name__:\n    case '__main__':\n        main()\n"),
        ("harness.newpackage.m", "if __name__.endswith('__main__'):\n    main()\n"),
        (
            "harness.newpackage.m",
            "import sys\nif sys.modules['__main__'] is sys.modules[__name__]:\n    main()\n",
        ),
    ],
)
def test_a_runnable_module_is_found_however_it_is_written(
    tmp_path: Path, module: str, source: str
) -> None:
    """H18.4: a package's ``__main__.py`` (run as ``python -m harness.newpackage``), a check
    nested in another block or written the other way round."""
    path = tmp_path / f"{module.rpartition('.')[2]}.py"
    path.write_text(source)
    assert runnable_modules({module: path}) == {
        "harness.newpackage" if module.endswith("__main__") else module
    }


def test_a_module_that_only_says_main_in_a_docstring_or_comment_is_not_runnable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"
    path.write_text('"""Run as ``python -m``, its __name__ is "__main__"."""\n# "__main__"\n')
    assert runnable_modules({"harness.newpackage.m": path}) == set()


def test_every_runnable_module_is_a_command_or_listed_with_its_reason() -> None:
    """H14.3: ``python -m harness.profiling.gpu_checks`` was a command outside the commands'
    table. Every module a ``python -m`` runs is the program, or listed beside the commands'
    table in ``harness.cli`` (a developer tool, shown by ``sanbench --help``, or a child
    process sanbench starts) with the reason it is no command."""
    import harness.cli as cli

    listed = set(cli.DEVELOPER_TOOLS) | set(cli.CHILD_PROCESSES)
    assert runnable_modules(product_modules()) - PROGRAM == listed
    assert all(reason for _, reason in cli.DEVELOPER_TOOLS.values())
    assert all(reason for reason in cli.CHILD_PROCESSES.values())
    for module, (help_text, _) in cli.DEVELOPER_TOOLS.items():
        assert f"python -m {module}" in cli.USAGE and help_text in cli.USAGE


# tools/: developer tools run from a checkout (python -m tools.NAME), no commands and not
# shipped: each module, with its job and why it is no command (H20.3: the test read no tools/)
TOOLS = {
    "tools.benchmarks_doc": "rewrites docs/benchmarks.md's generated sections (a doc's build)",
    "tools.generated_section": "the BEGIN/END section the *_doc tools rewrite (their helper)",
    "tools.results_doc": "rewrites docs/results.md's generated section (a doc's build)",
    "tools.studies_doc": "rewrites docs/studies.md's tables (a doc's build)",
    "tools.reproduce_probe": (
        "sizes reproduce's preset budget for docs/results.md, with its own argparse options: a "
        "developer's estimate, not a user's work"
    ),
}
# tools that measure by themselves, and why they may (a figure for a developer, none a user sees)
MEASURING_TOOLS = {
    "tools.reproduce_probe": (
        "times a few training steps of each run (wall and CPU clocks, the load) to scale them "
        "to a full run: an estimate of the preset's hours in docs/results.md"
    ),
}


def tool_problems(tools: dict[str, Path]) -> list[str]:
    """Each tool not in TOOLS, and each that measures but is not in MEASURING_TOOLS (or is
    listed there and no longer measures)."""
    problems = [f"{module}: not in TOOLS" for module in sorted(set(tools) - set(TOOLS))]
    for module, path in tools.items():
        measures = any(True for _ in measured(module, path))
        if measures != (module in MEASURING_TOOLS):
            state = "measures" if measures else "measures nothing"
            problems.append(f"{module} {state}: MEASURING_TOOLS says otherwise")
    return problems


def test_a_new_tool_or_a_tool_that_measures_is_found(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text("import time\nstart = time.perf_counter()\n")
    assert tool_problems({"tools.probe": path}) == [
        "tools.probe: not in TOOLS",
        "tools.probe measures: MEASURING_TOOLS says otherwise",
    ]


def test_every_tool_is_listed_and_each_that_measures_says_why() -> None:
    tools = {module_name(path): path for path in sorted((ROOT / "tools").glob("*.py"))}
    assert tools
    assert not tool_problems(tools), tool_problems(tools)
    assert set(TOOLS) == set(tools), f"listed but gone: {sorted(set(TOOLS) - set(tools))}"


# the exit statuses written as numbers, and the one module that writes each: bad input's 2, and
# 128 + the signal (Ctrl-C's 130 is derived from it)
EXIT_STATUS_LITERALS = {2: "harness.errors", 128: "harness.interrupts"}


def status_literals(path: Path) -> Iterator[tuple[int, int]]:
    """(number, line) of each integer written in a value assigned to a name or an attribute
    that says ``status`` (``INPUT_ERROR_STATUS = 2``, ``self.exit_status = 128 + signum``)."""
    for node in walk(parsed(path)):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        named = [n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name | ast.Attribute)]
        if not any(
            "status" in (n.id if isinstance(n, ast.Name) else n.attr).lower() for n in named
        ):
            continue
        for constant in ast.walk(node.value):
            if isinstance(constant, ast.Constant) and type(constant.value) is int:
                yield constant.value, node.lineno


def test_each_exit_status_is_written_once() -> None:
    """Issue 55.3: 130 and 2 were written in two modules each (cli, launch, errors)."""
    found = sorted(
        f"{module}:{line}: {number}"
        for module, path in product_modules().items()
        for number, line in status_literals(path)
        if number in (*EXIT_STATUS_LITERALS, 130) and EXIT_STATUS_LITERALS.get(number) != module
    )
    assert not found, f"exit statuses written outside {EXIT_STATUS_LITERALS}: {found}"
    from harness.errors import InputError, RunInterruptedError
    from harness.interrupts import INTERRUPTED_STATUS

    assert (InputError.exit_status, INTERRUPTED_STATUS) == (2, 130)
    assert RunInterruptedError("x", signal.SIGTERM).exit_status == 143


def test_each_fact_is_defined_in_one_module() -> None:
    defined: dict[str, set[str]] = {fact: set() for fact in FACTS}
    for module, path in product_modules().items():
        for name in module_definitions(path) & set(FACTS):
            defined[name].add(module)
    wrong = {fact: sorted(where) for fact, where in defined.items() if where != {FACTS[fact]}}
    assert not wrong, f"defined elsewhere than (or besides) its one module: {wrong}"


CONSTANT = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
# Literal constants written in two modules on purpose, and why; the test imports both and
# compares them, so the two cannot drift
TWICE = {
    # the study's argument check must not import torch (encoders do)
    "('chunked', 'naive')": (
        "harness.studies.options.ATTENTION_IMPLS",
        "encoders.layers.tanh_attention.IMPLS",
    ),
    # harness.quiet silences the builder's logger before any encoder (or torch) is imported
    "'torch.utils.cpp_extension'": (
        "harness.quiet.TORCH_EXTENSIONS",
        "encoders.layers.cpu_tiles.TORCH_BUILDER",
    ),
}


def _assigned(node: ast.Assign | ast.AnnAssign) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of each name an assignment binds, tuple targets included (``A, B = 1, 2``)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if isinstance(target, ast.Name) and node.value is not None:
            yield target.id, node.value
        elif (
            isinstance(target, ast.Tuple)
            and isinstance(node.value, ast.Tuple)
            and len(target.elts) == len(node.value.elts)
        ):
            for element, value in zip(target.elts, node.value.elts, strict=True):
                if isinstance(element, ast.Name):
                    yield element.id, value


def _constant_assignments(path: Path) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of each constant ``path`` assigns: at module level any name but a dunder
    (``default_encoding`` too), in a top-level class an UPPER_CASE name or a ``ClassVar``
    (``Class.NAME``); a dataclass field's default is no constant."""
    body = parsed(path).body
    scopes = [("", body)] + [(f"{n.name}.", n.body) for n in body if isinstance(n, ast.ClassDef)]
    for prefix, statements in scopes:
        for node in statements:
            if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
                continue
            class_var = isinstance(node, ast.AnnAssign) and "ClassVar" in ast.unparse(
                node.annotation
            )
            for name, expression in _assigned(node):
                if name.startswith("__") or (prefix and not (class_var or CONSTANT.match(name))):
                    continue
                yield prefix + name, expression


def literal_constants(path: Path) -> Iterator[tuple[str, str]]:
    """(value, name) of each constant of ``path`` (:func:`_constant_assignments`) whose value
    is a literal string, a literal table (tuple, list, set, dict of two or more constants) or a
    number, tuple targets included; sets and dicts in a canonical order, so one fact in two
    spellings compares equal. A number is one fact under one name (``RANDOM_VECTORS_DIM = 300``
    twice), not every constant that happens to be 300."""
    for name, expression in _constant_assignments(path):
        try:
            value = ast.literal_eval(expression)
        except ValueError:  # not a literal
            continue
        if isinstance(value, dict | set | frozenset | tuple | list):
            items = value.items() if isinstance(value, dict) else value
            value = tuple(sorted(items, key=repr))
            if len(value) < 2:
                continue
        elif type(value) in (int, float):
            value = (name.rpartition(".")[2].lstrip("_"), value)
        elif not isinstance(value, str):
            continue
        yield repr(value), name


def test_no_constant_is_written_in_two_modules() -> None:
    """A literal fact (a string, a table of names) defined at the top of two product modules, or
    as a constant of a class in one of them, is one fact written twice, found without naming it
    (the issue-55 list: ACTIVATIONS, the task kinds, R_RANGE, CONTENDED_MARK, MISSING, a
    logger's name)."""
    where: dict[str, list[str]] = {}
    modules: dict[str, set[str]] = {}
    for module, path in product_modules().items():
        for value, name in literal_constants(path):
            where.setdefault(value, []).append(f"{module}.{name}")
            modules.setdefault(value, set()).add(module)
    twice = {value: found for value, found in where.items() if len(modules[value]) > 1}
    unexpected = {value: found for value, found in twice.items() if value not in TWICE}
    assert not unexpected, f"one fact defined in two modules: {unexpected}"
    for value, names in TWICE.items():
        assert value in twice, f"{value} is written once now: drop it from TWICE"
        assert sorted(twice[value]) == sorted(names)
        first, second = (
            getattr(importlib.import_module(name.rsplit(".", 1)[0]), name.rsplit(".", 1)[1])
            for name in names
        )
        assert first == second


def whole_strings(path: Path) -> Iterator[tuple[str, int]]:
    """(value, line) of each string literal written whole (no docstring, no f-string part)."""
    tree = parsed(path)
    skip = _docstrings(tree) | {
        id(part) for node in walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values
    }
    for node in walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.value, node.lineno


def test_a_mark_is_spelled_in_its_module_only() -> None:
    """A mark (a constant string of no letter or digit: MISSING's "–") written as a literal
    elsewhere is the fact twice (H14.4: reports/profile/claims.py wrote "–" three times)."""
    modules = product_modules()
    marks: dict[str, str] = {}
    for module, path in modules.items():
        for value, _ in literal_constants(path):
            text = ast.literal_eval(value)
            if isinstance(text, str) and text.strip() and not any(c.isalnum() for c in text):
                marks[text] = module
    assert "–" in marks
    found = [
        f"{module}:{line}: {text!r} ({marks[text]}'s)"
        for module, path in modules.items()
        for text, line in whole_strings(path)
        if text in marks and marks[text] != module
    ]
    assert not found, found


def _strings(nodes: list[ast.expr | None]) -> list[str] | None:
    """The values of ``nodes`` when every one is a string literal, else None."""
    if all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in nodes):
        return [n.value for n in nodes]  # type: ignore[union-attr]
    return None


def string_tables(path: Path) -> Iterator[tuple[tuple[str, ...], int]]:
    """(its strings in a canonical order, line) of each table of three or more string literals
    written anywhere in ``path``: a tuple, list or set (the choices of a ``Literal[...]``), a
    column of a table of rows (``(("CR", "cr"), ("MPQA", "mpqa"), ...)``), a dict's keys
    (``{"single": 1, "pair": 4, "relatedness": 2}``), ``"a b c".split()``."""
    for node in walk(parsed(path)):
        strings = None
        if isinstance(node, ast.Tuple | ast.List | ast.Set):  # a Literal's choices are a tuple
            strings = _strings(node.elts)
            rows = [e.elts for e in node.elts if isinstance(e, ast.Tuple | ast.List)]
            if len(rows) == len(node.elts) >= 3 and len({len(row) for row in rows}) == 1:
                for column in zip(*rows, strict=True):  # a table of rows: each column's strings
                    found = _strings(list(column))
                    if found is not None and len(set(found)) >= 3:
                        yield tuple(sorted(set(found))), node.lineno
        elif isinstance(node, ast.Dict):
            strings = _strings(node.keys)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
            and not node.args
        ):
            strings = node.func.value.value.split()
        if strings is not None and len(set(strings)) >= 3:
            yield tuple(sorted(set(strings))), node.lineno


def test_no_table_of_names_is_written_in_two_modules() -> None:
    """A table of names (task kinds, Table 6's tasks, a results file's key columns) written as
    literals in two modules, at the top or inside code, ``Literal[...]`` choices included, is
    one fact written twice (issue 55 breaker): import it from the module that defines it."""
    where: dict[tuple[str, ...], set[str]] = {}
    lines: dict[tuple[str, ...], list[str]] = {}
    for module, path in product_modules().items():
        for table, line in string_tables(path):
            where.setdefault(table, set()).add(module)
            lines.setdefault(table, []).append(f"{module}:{line}")
    twice = {table: lines[table] for table, modules in where.items() if len(modules) > 1}
    assert not twice, f"one table written in two modules: {twice}"


@pytest.mark.parametrize(
    "source",
    [
        'KINDS = ("single", "pair", "relatedness")\n',
        'Kind = Literal["pair", "single", "relatedness"]\n',
        'def f(t):\n    return t.sort_values(["relatedness", "pair", "single"])\n',
        'FEATURE_FACTOR = {"single": 1, "pair": 4, "relatedness": 2}\n',  # a dict's keys
        'KINDS = "single pair relatedness".split()\n',
        'LIKE = (("single", "sst2"), ("pair", "snli"), ("relatedness", "sick"))\n',  # a column
    ],
)
def test_a_table_of_names_is_found_however_it_is_written(tmp_path: Path, source: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    assert ("pair", "relatedness", "single") in [table for table, _ in string_tables(path)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("A, B = 'x', 'y'\n", ["'x'", "'y'"]),  # tuple targets
        ("RANDOM_VECTORS_DIM = 300\n", ["('RANDOM_VECTORS_DIM', 300)"]),  # a number, by name
        ("_SHOWN: int = 3\n", ["('SHOWN', 3)"]),
        # H18.5: a lower-case module constant, a class's constant (upper case or a ClassVar)
        ("default_encoding = 'utf-8'\n", ["'utf-8'"]),
        ("class Reader:\n    ENCODING = 'utf-8'\n", ["'utf-8'"]),
        ("class Reader:\n    kinds: ClassVar = ('a', 'b')\n", ["('a', 'b')"]),
        ("class Options:\n    encoding: str = 'utf-8'\n", []),  # a field's default
        ("_REGISTRY = {}\nEMPTY = ()\n__all__ = ['a', 'b']\n", []),  # no table, no fact
    ],
)
def test_a_constant_is_found_however_it_is_assigned(
    tmp_path: Path, source: str, expected: list[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    assert [value for value, _ in literal_constants(path)] == expected


def _cube_root(node: ast.AST) -> bool:
    """``x ** (1 / 3)`` (Eq. 19's cube root) in any spelling of a third."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)):
        return False
    try:
        return abs(float(eval(compile(ast.Expression(node.right), "", "eval"))) - 1 / 3) < 1e-12
    except Exception:  # not a constant exponent
        return False


def test_no_second_spelling_of_a_fact() -> None:
    """A fact written again under another name: Eq. 19's cube root, a Glorot rule (a function
    named after it), the profile statuses as a literal."""
    from reports.contracts.profile_run import STATUSES

    found = []
    for module, path in product_modules().items():
        tree = parsed(path)
        for node in walk(tree):
            if _cube_root(node) and module != FACTS["memory_optimal_r"]:
                found.append(f"{module}:{node.lineno}: Eq. 19's cube root")
            if (
                isinstance(node, ast.FunctionDef)
                and "glorot" in node.name.lower()
                and module != FACTS["glorot_"]
            ):
                found.append(f"{module}:{node.lineno}: a Glorot rule {node.name}")
            if (
                isinstance(node, ast.Tuple | ast.List | ast.Set)
                and len(node.elts) >= 3
                and all(isinstance(e, ast.Constant) for e in node.elts)
                and {e.value for e in node.elts} == set(STATUSES)
                and module != FACTS["STATUSES"]
            ):
                found.append(f"{module}:{node.lineno}: the profile row statuses")
    assert not found, found


# Each results file's row statuses -> the table of its contract that names them; a status is
# spelled as a literal in that contract only (issue 55 H23.1: reports/profile and the compare
# page compared ``rows["status"] == "ok"``, the suite ``row.get("status") == "ok"``)
ROW_STATUSES = {
    "reports.contracts.profile_run": "STATUSES",
    "reports.contracts.suite_results": "RUN_STATUSES",
}


def _says_status(node: ast.AST) -> bool:
    """``x["status"]``, ``x.get("status")``, ``x.status`` or ``status``: a row's status."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "status"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        first = node.args[0] if node.func.attr == "get" and node.args else None
        return isinstance(first, ast.Constant) and first.value == "status"
    if isinstance(node, ast.Attribute):
        return node.attr == "status"
    return isinstance(node, ast.Name) and node.id == "status"


def _written_strings(node: ast.AST) -> Iterator[ast.Constant]:
    """The string literals a value is made of: itself, a tuple's, list's or set's items, either
    branch of ``a if c else b``, each of ``a or b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for item in node.elts:
            yield from _written_strings(item)
    elif isinstance(node, ast.IfExp):
        yield from _written_strings(node.body)
        yield from _written_strings(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for item in node.values:
            yield from _written_strings(item)


# pandas' methods that test a column against values: ``rows["status"].isin([...])``, ``.eq(...)``
TESTS = ("isin", "eq", "ne")
# a pandas query string's test of the status column, and the quoted words it tests against
QUERY_STATUS = re.compile(
    r"\bstatus\s*(?:[=!]=|(?:not\s+)?in)\s*(\[[^\]]*\]|\([^)]*\)|'[^']*'|\"[^\"]*\")"
)
QUOTED = re.compile(r"['\"]([^'\"]*)['\"]")


def status_values(node: ast.AST) -> list[ast.AST]:
    """The values ``node`` compares a status with (``==``, ``in``, ``match``'s cases), tests it
    against (``.isin(...)``, ``.eq``, ``.ne``), or gives it (``status=``, ``{"status": ...}``,
    ``row["status"] = ...``, a parameter ``status``'s default)."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        if not any(map(_says_status, operands)):
            return []
        return [o for o in operands if not _says_status(o)]
    if isinstance(node, ast.Call):
        given = [k.value for k in node.keywords if k.arg == "status"]
        method = node.func if isinstance(node.func, ast.Attribute) else None
        tested = method is not None and method.attr in TESTS and _says_status(method.value)
        return [*(node.args if tested else []), *given]
    if isinstance(node, ast.Match) and _says_status(node.subject):
        return [
            value.value
            for case in node.cases
            for value in ast.walk(case.pattern)
            if isinstance(value, ast.MatchValue)
        ]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return [default for name, default in literal_defaults(node) if name == "status"]
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        return [v for k, v in pairs if isinstance(k, ast.Constant) and k.value == "status"]
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [node.value] if any(map(_says_status, targets)) else []
    return []


def status_spellings(modules: dict[str, Path]) -> list[str]:
    """``module:line: 'status'`` of each row status written as a literal outside its contract."""
    homes: dict[str, set[str]] = {}
    for contract, table in ROW_STATUSES.items():
        for status in getattr(importlib.import_module(contract), table):
            homes.setdefault(status, set()).add(contract)
    return sorted(
        f"{module}:{line}: {status!r}"
        for module, path in modules.items()
        for line, status in status_literals_in(parsed(path))
        if module not in homes.get(status, {module})
    )


def status_literals_in(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, literal) of each string a status is compared with, tested against or given
    (:func:`status_values`), and each quoted word a query string tests the status against
    (``"status == 'oom'"``). Not found: a status reached by ``getattr``/``setattr`` or through
    an alias of the column (far-fetched)."""
    skip = _docstrings(tree)
    for node in walk(tree):
        for value in status_values(node):
            for constant in _written_strings(value):
                yield constant.lineno, constant.value
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for tested in QUERY_STATUS.findall(node.value):
                yield from ((node.lineno, word) for word in QUOTED.findall(tested))


def tool_modules() -> dict[str, Path]:
    """tools/'s modules (developer tools of a checkout: outside :func:`product_modules`)."""
    return {module_name(path): path for path in sorted((ROOT / "tools").glob("*.py"))}


def test_a_row_status_is_spelled_in_its_contract_only() -> None:
    """In the product and in tools/ (issue 55, fifth outside check: tools/benchmarks_doc.py
    compared ``rows["status"] == "ok"`` nine times)."""
    found = status_spellings(product_modules() | tool_modules())
    assert not found, f"row statuses written as literals; import them from {ROW_STATUSES}: {found}"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('ok = rows[rows["status"] == "ok"]\n', 1),
        ('late = rows.loc["oom" != rows["status"], "seq_len"]\n', 1),
        ('if row.get("status") in ("oom", "skipped_oom"):\n    pass\n', 2),
        ('timed = rows["status"].isin(["ok", "contended"])\n', 2),
        ('reply = {"status": "error" if failed else "ok"}\n', 2),
        ('append(row, status="failed")\nrow["status"] = "predicted"\n', 2),
        ("if reply.status == 'ok' or status == 'oom':\n    pass\n", 2),
        ('ok = rows[rows["status"] == OK]\nkind = "ok" if done else "error"\n', 0),
        ('seen = "status" in row and row["status"] == "nvml failed"\n', 0),
        # issue 55 (fifth outside check): match/case, a default, pandas' eq/ne, a query string
        (
            'match row["status"]:\n    case "ok":\n        pass\n    case "oom" | "error":\n'
            "        pass\n",
            3,
        ),
        ('def keep(rows, status="ok"):\n    pass\n', 1),
        ('def keep(rows, *, status: str = "oom"):\n    pass\n', 1),
        ('ok = rows["status"].eq("ok")\nlate = rows.status.ne("oom")\n', 2),
        ("oom = rows.query(\"status == 'oom'\")\n", 1),
        ('timed = rows.query(\'status in ["ok", "contended"]\')\n', 2),
        ("match kind:\n    case 'ok':\n        pass\n", 0),
        ('def keep(rows, kind="ok"):\n    pass\n', 0),
        ("train = rows.query(\"mode == 'train'\")\nsaid = 'the status is ok'\n", 0),
    ],
)
def test_a_row_status_literal_is_found_however_it_is_written(
    tmp_path: Path, source: str, found: int
) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    assert len(status_spellings({"reports.site.m": path})) == found


# the site's templates that show a count per status, from the page's ``counts`` keyed by the
# contract's table (reports/site/profile_page.py passes one for each of STATUSES)
TEMPLATES = ROOT / "reports" / "site" / "templates"
STATUS_COUNTS = {"profile.html.j2": ("reports.contracts.profile_run", "STATUSES")}
COUNTED = re.compile(r"\bcounts(?:\.(\w+)|\[\s*['\"](\w+)['\"]\s*\])")
TEMPLATE_STATUS_TEST = re.compile(
    r"\bstatus\s*(?:[=!]=|(?:not\s+)?in)\s*(\[[^\]]*\]|\([^)]*\)|'[^']*'|\"[^\"]*\")"
)


def template_status_problems(name: str, text: str) -> list[str]:
    """What a template spells of the row statuses: a status it compares with (``status ==
    'oom'``: the page code should pass what it needs), and, in a template of STATUS_COUNTS,
    each ``counts.WORD`` that is no status of the contract and each status it does not count
    (a renamed or added status fails here, not as a blank on the page)."""
    statuses = {
        status
        for contract, table in ROW_STATUSES.items()
        for status in getattr(importlib.import_module(contract), table)
    }
    problems = [
        f"{name}: compares a status with {word!r}"
        for tested in TEMPLATE_STATUS_TEST.findall(text)
        for word in QUOTED.findall(tested)
        if word in statuses
    ]
    if name in STATUS_COUNTS:
        contract, table = STATUS_COUNTS[name]
        counted = {a or b for a, b in COUNTED.findall(text)}
        own = set(getattr(importlib.import_module(contract), table))
        problems += [
            f"{name}: counts.{word} is no status of {contract}" for word in sorted(counted - own)
        ]
        problems += [f"{name}: status {word!r} is not counted" for word in sorted(own - counted)]
    return problems


def test_the_templates_spell_the_statuses_of_their_contracts_only() -> None:
    """Issue 55 (fifth outside check): reports/site/templates/profile.html.j2 shows a count per
    status as ``counts.ok``, ...: each is a status of the contract, and each status is shown."""
    found = [
        problem
        for path in sorted(TEMPLATES.glob("*.j2"))
        for problem in template_status_problems(path.name, path.read_text())
    ]
    assert not found, found
    assert set(STATUS_COUNTS) <= {path.name for path in TEMPLATES.glob("*.j2")}


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("profile.html.j2", "{{ counts.done }} {{ counts['oom'] }}", 6),  # 1 unknown, 5 uncounted
        ("other.html.j2", "{% if row.status == 'oom' %}x{% endif %}", 1),
        ("other.html.j2", "{% if row.status in ('ok', 'contended') %}x{% endif %}", 2),
        ("other.html.j2", "{% if row.mode == 'train' %}{{ counts.items() }}{% endif %}", 0),
    ],
)
def test_a_templates_status_word_is_found(name: str, text: str, found: int) -> None:
    assert len(template_status_problems(name, text)) == found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from reports.site import build_site\n", {"reports.site"}),
        ("import importlib\nimportlib.import_module('reports.site')\n", {"reports.site"}),
        ("def f():\n    from datamodules.tasks import get_task\n", {"datamodules.tasks"}),
    ],
)
def test_imports_are_found_anywhere_in_a_module(
    tmp_path: Path, source: str, expected: set[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    modules = product_modules()
    found = {ours(name, modules) for name in imported("harness.m", path)} - {None}
    assert expected <= found


if __name__ == "__main__":
    print(GRAPH_START + package_graph() + GRAPH_END, end="")


# Tables of two names (too short for test_no_table_of_names_is_written_in_two_modules) and
# parameter defaults that are facts, each by its one home: a literal equal to one of them in
# another module is the fact written twice (issue 55 breaker)
NAMED_TABLES = (
    "harness.measurement.profiled_step.MODES",
    "reports.contracts.profile_run.MEASURED_STATUSES",
    "harness.training.settings.task_configs.PAPERS_OPTIMIZERS",
)
NAMED_DEFAULTS = {"head_hidden": "harness.training.heads.HEAD_HIDDEN"}


def literal_defaults(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> Iterator[tuple[str, ast.expr]]:
    """(parameter, default) of each parameter of ``node`` that has a default."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    yield from zip(
        (a.arg for a in positional[len(positional) - len(arguments.defaults) :]),
        arguments.defaults,
        strict=True,
    )
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if default is not None:
            yield argument.arg, default


def test_a_named_table_or_default_is_not_written_again() -> None:
    tables = {}
    for name in NAMED_TABLES:
        module, attribute = name.rsplit(".", 1)
        tables[frozenset(getattr(importlib.import_module(module), attribute))] = name
    found = []
    for module, path in product_modules().items():
        for node in walk(parsed(path)):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                strings = _strings(node.elts)
                home = tables.get(frozenset(strings or ()))
                if strings and home and home.rsplit(".", 1)[0] != module:
                    found.append(f"{module}:{node.lineno}: {home} written again")
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for parameter, default in literal_defaults(node):
                    if parameter in NAMED_DEFAULTS and isinstance(default, ast.Constant):
                        found.append(
                            f"{module}:{default.lineno}: {parameter}={default.value!r} "
                            f"({NAMED_DEFAULTS[parameter]})"
                        )
    assert not found, found


# Defaults that say nothing of their own (no value, off, on, zero, one, empty): the same name
# with one of them in two modules is no shared fact (``encoding=None``, ``compile=False``)
TRIVIAL_DEFAULTS = {"None", "True", "False", "0", "0.0", "1", "''", "()"}
# A default repeated on purpose, and why (the test imports neither: keep the reason true)
SAME_DEFAULT = {
    # `sanbench encoders`' options are checked before torch loads; encoders.registry imports it
    ("input_dim", "300"): "harness.encoder_list.options.ListOptions: build_encoder's width",
    # reports import nothing of harness: the site's stand-in looks for profile's default dtype
    ("dtype", "'fp32'"): "reports.site.cost_figures.stand_in: profile's --dtype default",
}


def named_defaults(path: Path) -> Iterator[tuple[str, str, int]]:
    """(name, value, line) of each literal default in ``path``: a function's parameter's and a
    class's field's (``batch_size: int = 64``), trivial values (TRIVIAL_DEFAULTS) left out."""
    for node in walk(parsed(path)):
        pairs: list[tuple[str, ast.expr]] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            pairs = list(literal_defaults(node))
        elif isinstance(node, ast.ClassDef):
            pairs = [
                (statement.target.id, statement.value)
                for statement in node.body
                if isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and statement.value is not None
            ]
        for name, default in pairs:
            try:
                value = repr(ast.literal_eval(default))
            except ValueError:  # a name or a call: imported from its home
                continue
            if value not in TRIVIAL_DEFAULTS:
                yield name, value, default.lineno


def repeated_defaults(modules: dict[str, Path]) -> dict[tuple[str, str], list[str]]:
    """Each (name, literal default) written in two modules, where not every one is an encoder's
    (each encoder's builder states its own paper's hyper-parameters: DiSAN's dropout is not
    MTSA's, issue 55.5)."""
    where: dict[tuple[str, str], list[str]] = {}
    for module, path in modules.items():
        for name, value, line in named_defaults(path):
            where.setdefault((name, value), []).append(f"{module}:{line}")
    return {
        key: found
        for key, found in where.items()
        if len({place.partition(":")[0] for place in found}) > 1
        and not all(place.startswith("encoders.") for place in found)
    }


def test_a_default_repeated_in_another_module_is_found(tmp_path: Path) -> None:
    """H20.1: the papers' training defaults (module.py, task_model.py), the memory study's
    (options.py, plans.py) and the storage's heartbeat and retries (storage.py, study.py) were
    each written twice, unseen."""
    (tmp_path / "a.py").write_text("def f(x, lr=0.5, seed=0, *, heartbeat_s=30):\n    pass\n")
    (tmp_path / "b.py").write_text(
        "class C:\n    lr: float = 0.5\n    seed: int = 0\n    heartbeat: int = 30\n"
        "def g(heartbeat_s: int = 30, encoding=None):\n    pass\n"
    )
    (tmp_path / "c.py").write_text("def h(lr=0.25, batch_size=64):\n    pass\n")
    modules = {name: tmp_path / f"{name}.py" for name in ("a", "b", "c")}
    assert repeated_defaults(modules) == {
        ("lr", "0.5"): ["a:1", "b:2"],
        ("heartbeat_s", "30"): ["a:1", "b:5"],
    }


def test_no_default_is_written_in_two_modules() -> None:
    found = repeated_defaults(product_modules())
    unexpected = {key: where for key, where in found.items() if key not in SAME_DEFAULT}
    assert not unexpected, f"one default written in two modules (import it): {unexpected}"
    assert set(SAME_DEFAULT) <= set(found), "written once now: drop it from SAME_DEFAULT"


VARIANT_PARSER = "harness.measurement.profiled_step"  # NAME:KEY=VALUE, read by option_parts


def _string_method(node: ast.AST, method: str, argument: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == argument
    )


def variant_readers(modules: dict[str, Path]) -> list[str]:
    """Each function that reads the encoder-variant syntax ``NAME:KEY=VALUE`` itself: it splits
    at ":" and takes ``KEY=VALUE`` apart at "=" (partition, split or replace)."""
    found = []
    for module, path in modules.items():
        for node in walk(parsed(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            calls = list(ast.walk(node))
            colon = any(_string_method(c, m, ":") for c in calls for m in ("split", "partition"))
            equals = any(
                _string_method(c, m, "=") for c in calls for m in ("partition", "split", "replace")
            )
            if colon and equals:
                found.append(f"{module}.{node.name}")
    return found


def test_the_encoder_variant_syntax_is_read_in_one_place(tmp_path: Path) -> None:
    """H20.1d: ``parse_options``, ``current_encoders`` and ``encoder_choice_problems`` each
    read ``NAME:KEY=VALUE`` their own way."""
    path = tmp_path / "m.py"
    path.write_text("def f(t):\n    return [p.partition('=') for p in t.split(':')]\n")
    assert variant_readers({"m": path}) == ["m.f"]
    found = variant_readers(product_modules())
    assert f"{VARIANT_PARSER}.option_parts" in found
    assert all(function.startswith(VARIANT_PARSER + ".") for function in found), found


NAMED_FILE = re.compile(r"(?<![\w/.])((?:[\w]+/)*\w+\.py)\b")


def missing_named_files(source: Path) -> list[str]:
    """The ``.py`` files ``source`` names (by path from the repository, or beside it) that
    do not exist."""
    names = NAMED_FILE.findall(source.read_text(encoding="utf-8"))
    return sorted(
        {n for n in names if not (ROOT / n).exists() and not source.with_name(n).exists()}
    )


def test_a_native_source_names_only_modules_that_exist(tmp_path: Path) -> None:
    """H20.5: cpu_tiles.cpp named fused_tiles.py two renames after it became compiled_tiles.py."""
    source = tmp_path / "k.cpp"
    source.write_text("// see gone.py and encoders/layers/cpu_tiles.py\n")
    assert missing_named_files(source) == ["gone.py"]
    sources = [p for package in PACKAGES for p in (ROOT / package).rglob("*.cpp")]
    assert sources
    found = {str(p.relative_to(ROOT)): missing_named_files(p) for p in sources}
    assert not any(found.values()), found


def test_a_mark_inside_an_f_string_is_its_constant() -> None:
    """A mark of no ASCII character (``reports.numbers``' "–") written inside an f-string
    elsewhere is the fact twice, as a whole literal is (issue 55 breaker: the range dash)."""
    modules = product_modules()
    marks = {}
    for module, path in modules.items():
        for value, name in literal_constants(path):
            text = ast.literal_eval(value)
            if isinstance(text, str) and not text.isascii() and not any(c.isalnum() for c in text):
                marks[text] = f"{module}.{name}"
    assert "–" in marks
    found = [
        f"{module}:{part.lineno}: {mark!r} ({marks[mark]})"
        for module, path in modules.items()
        for node in walk(parsed(path))
        if isinstance(node, ast.JoinedStr)
        for part in node.values
        if isinstance(part, ast.Constant) and isinstance(part.value, str)
        for mark in marks
        if mark in part.value and marks[mark].rsplit(".", 1)[0] != module
    ]
    assert not found, found


# a private module or name of another project that a module may import, each with why no
# public one does the job (jsonargparse's _ActionConfigLoad, fit's reader of --model FILE, gave
# way to sanbench's own reader, command_parser.section_file_content: issue 56)
PRIVATE_IMPORTS_ALLOWED = {
    "torch.utils._python_dispatch.TorchDispatchMode": "torch exports no public name of the "
    "dispatch mode that memory_prediction.step's LiveStorageTracker counts live storages "
    "with; torch's 'Extending PyTorch' notes name this path (torch 2.13: no other)",
    "jsonargparse._typehints.ActionTypeHint": "jsonargparse exports no public name of the "
    "action of a typed option, nor a hook for how a value given over a config file's merges; "
    "command_parser.ClassOption merges a class set again by LightningCLI's rule (jsonargparse "
    "4.53 raised AttributeError there). tests/harness/test_command_parser.py's class-merge "
    "tests fail if a release moves it",
}


def _private(name: str) -> bool:
    """``name`` (``_actions``, ``_ActionConfigLoad``) is private: one leading underscore."""
    return name.startswith("_") and not name.startswith("__")


def private_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each private module or name of another project that ``tree`` imports (``from x._y
    import z``, ``import x._y``, ``from x import _y``), the standard library's and ours
    (:data:`PACKAGES`) aside: its line and the dotted name."""
    skipped = set(PACKAGES) | set(sys.stdlib_module_names)
    for node in walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] not in skipped and any(_private(part) for part in parts):
                yield node.lineno, name


def test_a_private_import_of_another_project_is_found() -> None:
    tree = ast.parse(
        "from jsonargparse._actions import _ActionConfigLoad\nimport yaml._x\n"
        "from torch import _C\nfrom lightning import __version__\nfrom . import _ours\n"
        "from os import _exit\nfrom jsonargparse import ActionConfigFile\n"
    )
    assert [name for _, name in private_imports(tree)] == [
        "jsonargparse._actions._ActionConfigLoad",
        "yaml._x",
        "torch._C",
    ]


def test_no_module_imports_a_private_name_of_another_project() -> None:
    """A private module or name (``jsonargparse._actions``) may change in any release of its
    project: a public one does the job (issue 56: fit's reader of ``--model FILE``)."""
    found = [
        f"{module}:{line}: {name}"
        for module, path in product_modules().items()
        for line, name in private_imports(parsed(path))
        if name not in PRIVATE_IMPORTS_ALLOWED
    ]
    assert not found, found
