"""Where a fit's settings come from: the task configs, the fit command line, a fit's config
object (``FitRun``) and the data, budget and fit options the other commands share."""
