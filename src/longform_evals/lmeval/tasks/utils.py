"""lm-eval task hooks of the longform tasks (the YAML files name these with `!function`)."""

from longform_evals.lmeval.hooks import auc, bacc, load, nanmean, prescore, process_results

__all__ = ["auc", "bacc", "load", "nanmean", "prescore", "process_results"]
