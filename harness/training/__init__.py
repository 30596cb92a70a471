"""Training: LightningModules with the papers' task heads, efficiency columns, ``run_fit``."""
