"""Pure analysis of faithfulness judgments: aggregation, missing values, position profiles,
bootstrap intervals."""

from longform_evals.analysis.intervals import (
    Interval,
    bootstrap_interval,
    paired_difference,
    shared_ranks,
)
from longform_evals.analysis.ordering import (
    ORDER_NAMES,
    OrderTable,
    expand_orders,
    expand_prefixes,
    importance_ranking,
    lexical_similarity,
    order_table,
    perturbations,
    place,
    rank_by_similarity,
    sensitivity,
    sensitivity_interval,
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
    "Interval",
    "Merge",
    "OrderTable",
    "SupportMatrix",
    "Ties",
    "attribution",
    "best_support",
    "bootstrap_interval",
    "decide",
    "expand_orders",
    "expand_prefixes",
    "importance_ranking",
    "lexical_similarity",
    "nan_reduce",
    "order_table",
    "paired_difference",
    "perturbations",
    "place",
    "position_coverage",
    "position_faithfulness",
    "rank_by_similarity",
    "sensitivity",
    "sensitivity_interval",
    "shared_ranks",
]
