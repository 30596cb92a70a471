"""The multi-task suite: grid, resumable sharded runner, aggregation and paper tables."""
