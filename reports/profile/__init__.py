"""Profile runs as data, figures and tables (no HTML: ``reports.site.profile_page`` renders)."""
