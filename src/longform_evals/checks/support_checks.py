"""Checks of the faithfulness aggregations over a support matrix (`analysis/support_matrix.py`
and `analysis/reduce.py`), on matrices built from the planted faithfulness set.

An exact judge would give each clean sentence support 1 from the documents its
`supported_by` names and 0 from the others, and a planted sentence 0 from every document;
these matrices are what the aggregations would see from that judge. They need no model, so
the checks test the aggregation code alone.
"""

from __future__ import annotations

from itertools import permutations

from longform_evals.analysis.agreement import NO_PROBLEM, PROBLEM, support_auc
from longform_evals.analysis.reduce import MERGES
from longform_evals.analysis.support_matrix import SupportMatrix
from longform_evals.checks.inputs import planted_clusters
from longform_evals.checks.spec import Check, Observation, unchanged, within
from longform_evals.data.planted.support import PlantedCluster

METRIC = "faithfulness_aggregation"
# The "partial" support an exact judge gives a sentence another document only half covers.
_PARTIAL = 0.5


def clean_matrix(cluster: PlantedCluster) -> SupportMatrix:
    """Documents x clean sentences: 1 where `supported_by` names the document, else 0."""
    rows = [
        [1.0 if doc in used else 0.0 for used in cluster.supported_by]
        for doc in range(len(cluster.documents))
    ]
    return SupportMatrix.from_rows(rows)


def planted_matrix(cluster: PlantedCluster, planted: int) -> SupportMatrix:
    """The clean matrix with the sentence the `planted`-th planted one replaces unsupported."""
    column = cluster.planted[planted].replaces
    rows = [list(map(float, row)) for row in clean_matrix(cluster).values]
    for row in rows:
        row[column] = 0.0
    return SupportMatrix.from_rows(rows)


def _keyed(matrix: SupportMatrix, cluster: str) -> dict[str, float]:
    return {f"{cluster} {k}": v for k, v in matrix.all_aggregations().items()}


def _permutation_invariance() -> Observation:
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    for cluster in planted_clusters():
        matrix = clean_matrix(cluster)
        for order in permutations(range(matrix.n_docs)):
            tag = f"{cluster.id} {order}"
            before.update(_keyed(matrix, tag))
            after.update(_keyed(matrix.reorder(order), tag))
    return unchanged(before, after)


def _unreadable_cell_invariance() -> Observation:
    # An unreadable answer (NaN) where a document gave no support to an otherwise supported
    # sentence leaves every max-over-documents aggregation unchanged: NaN is skipped.
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    for cluster in planted_clusters():
        matrix = clean_matrix(cluster)
        doc, sentence = next(
            (d, s)
            for s, used in enumerate(cluster.supported_by)
            for d in range(matrix.n_docs)
            if d not in used
        )
        rows: list[list[float | None]] = [list(map(float, row)) for row in matrix.values]
        rows[doc][sentence] = None
        holed = SupportMatrix.from_rows(rows)
        keys = [f"max_{s}" for s in MERGES]
        before.update({f"{cluster.id} {k}": matrix.all_aggregations()[k] for k in keys})
        after.update({f"{cluster.id} {k}": holed.all_aggregations()[k] for k in keys})
    return unchanged(before, after)


def _planted_lowers() -> Observation:
    # Replacing a supported sentence by a planted one lowers mean and min over sentences of
    # max over documents, and raises no aggregation.
    lowered = 0
    problems = []
    for cluster in planted_clusters():
        clean = clean_matrix(cluster).all_aggregations()
        for i, planted in enumerate(cluster.planted):
            dirty = planted_matrix(cluster, i).all_aggregations()
            raised = [k for k in clean if dirty[k] > clean[k] + 1e-12]
            fell = dirty["max_mean"] < clean["max_mean"] and dirty["max_min"] < clean["max_min"]
            problems += [f"{cluster.id}/{planted.kind}: {k} rose" for k in raised]
            if not fell:
                problems.append(f"{cluster.id}/{planted.kind}: max_mean or max_min did not fall")
            lowered += fell and not raised
    total = sum(len(c.planted) for c in planted_clusters())
    return Observation(
        f"{lowered}/{total} plantings lower, none raise", not problems, "; ".join(problems)
    )


def _discrimination() -> Observation:
    # Per sentence, max over documents: planted sentences (the problems) against clean ones,
    # as AUC of the support.
    labels: list[int] = []
    scores: list[float | None] = []
    for cluster in planted_clusters():
        clean = clean_matrix(cluster).sentence_scores("max")
        labels += [NO_PROBLEM] * len(clean)
        scores += [float(v) for v in clean]
        for i, planted in enumerate(cluster.planted):
            dirty = planted_matrix(cluster, i).sentence_scores("max")
            labels.append(PROBLEM)
            scores.append(float(dirty[planted.replaces]))
    auc = support_auc(labels, scores)
    return Observation(f"AUC {auc:.3f} over {len(labels)} sentences", auc >= 0.99)


def _ordering_bounds() -> Observation:
    # For each document merge, min <= mean <= max over sentences, and all in [0, 1]; also
    # for a matrix with partial support, where the three differ.
    seen: dict[str, float] = {}
    broken = []
    for cluster in planted_clusters():
        for name, matrix in (("clean", clean_matrix(cluster)), ("partial", _partial(cluster))):
            agg = matrix.all_aggregations()
            seen.update({f"{cluster.id} {name} {k}": v for k, v in agg.items()})
            for d in MERGES:
                low, mid, high = agg[f"{d}_min"], agg[f"{d}_mean"], agg[f"{d}_max"]
                if not low <= mid <= high:
                    broken.append(f"{cluster.id} {name} {d}: {low:.3g}, {mid:.3g}, {high:.3g}")
            for s in MERGES:
                low, mid, high = agg[f"min_{s}"], agg[f"mean_{s}"], agg[f"max_{s}"]
                if not low <= mid <= high:
                    broken.append(
                        f"{cluster.id} {name} over docs {s}: {low:.3g} {mid:.3g} {high:.3g}"
                    )
    bounds = within(seen, 0.0, 1.0)
    detail = "; ".join(filter(None, ["; ".join(broken), bounds.detail]))
    return Observation(bounds.observed, bounds.passed and not broken, detail)


def _partial(cluster: PlantedCluster) -> SupportMatrix:
    """The clean matrix with partial support from each sentence's next document."""
    rows = [list(map(float, row)) for row in clean_matrix(cluster).values]
    n = len(rows)
    for s, used in enumerate(cluster.supported_by):
        other = (max(used) + 1) % n
        if rows[other][s] == 0.0:
            rows[other][s] = _PARTIAL
    return SupportMatrix.from_rows(rows)


SUPPORT_CHECKS = [
    Check(
        METRIC,
        "planted_sentence_lowers",
        "direction",
        "a planted sentence lowers max_mean and max_min and raises no aggregation",
        _planted_lowers,
    ),
    Check(
        METRIC,
        "clean_vs_planted_auc",
        "discrimination",
        "AUC of clean vs planted sentences (max over documents) >= 0.99",
        _discrimination,
    ),
    Check(
        METRIC,
        "document_permutation",
        "invariance",
        "every permutation of the documents leaves all 9 aggregations unchanged",
        _permutation_invariance,
    ),
    Check(
        METRIC,
        "unreadable_cell",
        "invariance",
        "a NaN where a document gave no support leaves max-over-documents aggregations unchanged",
        _unreadable_cell_invariance,
    ),
    Check(
        METRIC,
        "ordering_bounds",
        "bounds",
        "min <= mean <= max (over sentences and over documents); all in [0, 1]",
        _ordering_bounds,
    ),
]

__all__ = ["SUPPORT_CHECKS", "clean_matrix", "planted_matrix"]
