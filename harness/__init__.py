"""Lightning modules, sweeps, suites and studies built on ``encoders`` and ``datamodules``."""
