"""The action words a command takes after its name (``sanbench data stats``), by command: its
messages name it with the one typed (``harness.cli.shown_name``), from sanbench's start on. Here,
importing nothing, so that ``harness.cli`` knows them before any command's module loads: until
2026-12-01 a SIGTERM in the 0.3 s ``harness.data.command`` took to load said ``sanbench data:
terminated ...`` (outside check at 9564b86 item 4)."""

COMMAND_ACTIONS: dict[str, tuple[str, ...]] = {"data": ("stats",)}
