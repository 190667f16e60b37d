"""Pure analysis of faithfulness judgments: aggregation, missing values, position profiles."""

from longform_evals.analysis._reduce import MERGES, Merge
from longform_evals.analysis.positions import (
    Ties,
    attribution,
    best_support,
    position_coverage,
    position_faithfulness,
)
from longform_evals.analysis.support_matrix import SupportMatrix, decide

__all__ = [
    "MERGES",
    "Merge",
    "SupportMatrix",
    "Ties",
    "attribution",
    "best_support",
    "decide",
    "position_coverage",
    "position_faithfulness",
]
