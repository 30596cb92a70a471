"""``sanbench data``: what a task's benchmark files hold, read through ``datamodules``."""
