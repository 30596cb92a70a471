"""Per-task training configurations (one YAML per task), read by ``load_task_config``."""
