"""Result-file contracts: for each file sanbench writes, its name, columns or keys, and the one
typed reader and writer.

The harness writes through these modules and the reports read through them; no other module
spells a contract's file name or column list. They import nothing of sanbench (only the
standard library, pandas and PyYAML), so both ``harness`` and ``reports`` may import them.

| module | files |
|---|---|
| ``manifest`` | ``manifest.json`` of every run folder |
| ``profile_run`` | ``profile.csv`` of ``sanbench profile`` |
| ``fit_run`` | a fit run folder: ``fit_config.yaml``, ``metrics.json``, ``curve.csv``, ... |
| ``suite_results`` | a suite's ``results-K-of-N.csv`` rows |
| ``reproduction`` | ``reproduction/*.csv`` of ``sanbench reproduce`` |
| ``study`` | ``trials.csv``, ``summary.json``, ``best_config.yaml`` of ``sanbench tune`` |
| ``results_file`` | the append-only, torn-line-safe CSV the row files are written with |
| ``atomic`` | whole-file writes by rename |
"""
