"""HTML pages and PNG/SVG figures built from result files (CSV/JSON) only."""
