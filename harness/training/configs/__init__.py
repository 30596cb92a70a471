"""Per-task training configurations (only what differs per task), read by ``task_defaults``."""
