"""The static report site (``sanbench report``): pages for profile sweeps, suites, studies and
fit runs, comparison pages, and an index; reads result files only."""

from reports.site.build import build_profile_report, build_site

__all__ = ["build_profile_report", "build_site"]
