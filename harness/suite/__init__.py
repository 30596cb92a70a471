"""``sanbench suite``: a grid of tasks x encoders x seeds (or CV folds), run by a resumable
sharded runner, here or as jobs, then aggregated into tables."""

from harness.suite.options import SuiteOptions
from harness.suite.suite import pending_shards, run_as_jobs, run_shard_of_suite, run_suite

__all__ = ["SuiteOptions", "pending_shards", "run_as_jobs", "run_shard_of_suite", "run_suite"]
