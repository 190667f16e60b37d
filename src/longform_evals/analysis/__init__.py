"""Pure analysis of faithfulness judgments: aggregation, missing values, position profiles."""

from longform_evals.analysis.ordering import (
    ORDER_NAMES,
    expand_orders,
    expand_prefixes,
    importance_ranking,
    lexical_similarity,
    perturbations,
    place,
    rank_by_similarity,
    sensitivity,
)
from longform_evals.analysis.positions import (
    Ties,
    attribution,
    best_support,
    position_coverage,
    position_faithfulness,
)
from longform_evals.analysis.reduce import MERGES, Merge, nan_reduce
from longform_evals.analysis.support_matrix import SupportMatrix, decide

__all__ = [
    "MERGES",
    "ORDER_NAMES",
    "Merge",
    "SupportMatrix",
    "Ties",
    "attribution",
    "best_support",
    "decide",
    "expand_orders",
    "expand_prefixes",
    "importance_ranking",
    "lexical_similarity",
    "nan_reduce",
    "perturbations",
    "place",
    "position_coverage",
    "position_faithfulness",
    "rank_by_similarity",
    "sensitivity",
]
