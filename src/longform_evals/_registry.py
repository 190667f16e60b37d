"""Entry point for Inspect: importing this module registers the package's tasks, scorers, solvers
and model providers.

Inspect only logs a warning when this import fails, so it is kept light (heavy dependencies
are imported lazily inside the registered factories) and is covered by a test.
"""

from longform_evals.models.providers import gguf, scripted
from longform_evals.scorers.booookscore import booookscore as booookscore_scorer
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.summary_stats import summary_statistics
from longform_evals.solvers import (
    full_context,
    hierarchical_merge,
    incremental_update,
    multidoc_summary,
    remove_artifacts,
)
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.hello import hello_longform
from longform_evals.tasks.longformfact import longformfact
from longform_evals.tasks.positional_bias import positional_bias

__all__ = [
    "booookscore",
    "booookscore_scorer",
    "faithfulness",
    "full_context",
    "gguf",
    "hello_longform",
    "hierarchical_merge",
    "incremental_update",
    "longformfact",
    "multidoc_summary",
    "positional_bias",
    "remove_artifacts",
    "scripted",
    "summary_statistics",
]
