"""Checks of the `faithfulness` scorer end to end with the LLM judge (the checks' judge:
`longform_evals.checks.judge`), on the held-out (test) clusters of the planted support set:
the clean summary, and the summary with one sentence replaced by a planted contradiction or
unsupported claim.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from functools import cache

from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score

from longform_evals.checks.inputs import planted_clusters, respace, score_judged
from longform_evals.checks.judge import JudgeChoice, current_judge
from longform_evals.checks.spec import Check, Observation, unchanged, within
from longform_evals.data.planted.support import PlantedCluster
from longform_evals.judges.faithfulness.judging import AGGREGATIONS
from longform_evals.scorers.faithfulness import faithfulness

METRIC = "faithfulness"
CLUSTERS = ("c07", "c08")
"""Test-split clusters the checks use: 2 x 3 documents x 8 sentences."""
PLANTED_KINDS = ("contradiction_entity", "contradiction_number", "unsupported_claim")
_MAX_DOCS = tuple(a for a in AGGREGATIONS if a.startswith("max_"))


def _clusters() -> list[PlantedCluster]:
    return [c for c in planted_clusters() if c.id in CLUSTERS]


def _planted_text(cluster: PlantedCluster, kind: str) -> tuple[str, int]:
    """The summary with the planted sentence of `kind`, and the index it replaces."""
    [planted] = [p for p in cluster.planted if p.kind == kind]
    sentences = list(cluster.sentences)
    sentences[planted.replaces] = planted.text
    return " ".join(sentences), planted.replaces


def _sample(cluster: PlantedCluster, documents: list[str] | None = None) -> Sample:
    return Sample(
        id=cluster.id,
        input="(summary given)",
        metadata={"documents": documents if documents is not None else cluster.documents},
    )


def _scored() -> dict[str, Score]:
    return scored_with(current_judge())


@cache
def scored_with(judge: JudgeChoice) -> dict[str, Score]:
    """Scores of the clean and planted summaries, and of the clean ones with the documents
    reversed, judged once per judge and process (cleared by tests that change the scorer)."""
    del judge  # the cache key: the scores below come from the current judge
    items: dict[str, tuple[Sample, str]] = {}
    for c in _clusters():
        clean = " ".join(c.sentences)
        items[c.id] = (_sample(c), clean)
        items[f"{c.id}-reversed"] = (_sample(c, c.documents[::-1]), clean)
        for kind in PLANTED_KINDS:
            items[f"{c.id}-{kind}"] = (_sample(c), _planted_text(c, kind)[0])
    scores = score_judged(faithfulness(judge_options={"cache": False}), list(items.values()))
    return dict(zip(items, scores, strict=True))


def _value(score: Score, key: str = "faithfulness") -> float:
    value = score.value
    assert isinstance(value, dict)
    return float(value[key])


def _plantings() -> Iterator[tuple[PlantedCluster, str, Score, Score]]:
    """Each planting of the test clusters: its cluster and kind, the clean summary's score and
    the planted one's."""
    scores = _scored()
    for c in _clusters():
        for kind in PLANTED_KINDS:
            yield c, kind, scores[c.id], scores[f"{c.id}-{kind}"]


def _planted_lowers() -> Observation:
    # Each planted summary scores lower than the clean one on the default aggregation.
    shown, failed = [], []
    for c, kind, clean_score, planted_score in _plantings():
        clean, planted = _value(clean_score), _value(planted_score)
        shown.append(f"{c.id} {kind} {clean:.3f}->{planted:.3f}")
        if not planted < clean:
            failed.append(f"{c.id}-{kind}")
    return Observation("; ".join(shown), not failed, f"not lower: {', '.join(failed)}")


def _planted_sentence_least_supported() -> Observation:
    # The planted sentence's support (max over documents) is below the clean sentence's it
    # replaced, read from the score's per-sentence metadata.
    gaps, failed = [], []
    for c, kind, clean_score, planted_score in _plantings():
        index = _planted_text(c, kind)[1]
        clean = _sentence_scores(clean_score)[index]
        planted = _sentence_scores(planted_score)[index]
        gaps.append(clean - planted)
        if not planted < clean:
            failed.append(f"{c.id}-{kind}: {clean:.3f} -> {planted:.3f}")
    observed = f"mean drop {statistics.fmean(gaps):.3f} over {len(gaps)} plantings"
    return Observation(observed, not failed, "; ".join(failed))


def _sentence_scores(score: Score) -> list[float]:
    return [float(v) for v in (score.metadata or {})["sentence_scores"]]


def _source_document() -> Observation:
    # A clean sentence is supported more by the documents it was written from than by the
    # others: the judge's rows line up with the documents as given.
    scores = _scored()
    own: list[float] = []
    other: list[float] = []
    for c in _clusters():
        matrix = (scores[c.id].metadata or {})["matrix"]
        for s, used in enumerate(c.supported_by):
            for d, row in enumerate(matrix):
                if row[s] is not None:
                    (own if d in used else other).append(float(row[s]))
    a, b = statistics.fmean(own), statistics.fmean(other)
    return Observation(f"own documents {a:.3f}, other documents {b:.3f}", a >= b + SOURCE_MARGIN)


SOURCE_MARGIN = 0.1


def _reversed_documents() -> Observation:
    # Reversing the documents leaves every max-over-documents aggregation unchanged.
    scores = _scored()
    before = {f"{c.id} {k}": _value(scores[c.id], k) for c in _clusters() for k in _MAX_DOCS}
    after = {
        f"{c.id} {k}": _value(scores[f"{c.id}-reversed"], k) for c in _clusters() for k in _MAX_DOCS
    }
    return unchanged(before, after)


def _whitespace() -> Observation:
    scores = _scored()
    clusters = _clusters()
    respaced = score_judged(
        faithfulness(judge_options={"cache": False}),
        [(_sample(c), respace(" ".join(c.sentences))) for c in clusters],
    )
    keys = ("faithfulness", *AGGREGATIONS)
    before = {f"{c.id} {k}": _value(scores[c.id], k) for c in clusters for k in keys}
    after = {
        f"{c.id} {k}": _value(r, k) for c, r in zip(clusters, respaced, strict=True) for k in keys
    }
    return unchanged(before, after)


def _bounds() -> Observation:
    keys = ("faithfulness", *AGGREGATIONS, "missing_rate")
    return within({f"{i} {k}": _value(s, k) for i, s in _scored().items() for k in keys}, 0, 1)


FAITHFULNESS_CHECKS = [
    Check(
        METRIC,
        "planted_summary_lowers",
        "direction",
        "a planted contradiction or unsupported claim lowers faithfulness",
        _planted_lowers,
    ),
    Check(
        METRIC,
        "planted_sentence_least_supported",
        "direction",
        "the planted sentence gets less support than the sentence it replaced",
        _planted_sentence_least_supported,
    ),
    Check(
        METRIC,
        "source_document",
        "discrimination",
        f"mean support from a sentence's own documents >= other documents' + {SOURCE_MARGIN}",
        _source_document,
    ),
    Check(
        METRIC,
        "reversed_documents",
        "invariance",
        "reversing the documents leaves the max-over-documents aggregations unchanged",
        _reversed_documents,
    ),
    Check(
        METRIC,
        "whitespace",
        "invariance",
        "doubled spaces and blank lines in the summary leave every aggregation unchanged",
        _whitespace,
    ),
    Check(METRIC, "bounds", "bounds", "every aggregation and missing_rate in [0, 1]", _bounds),
]

__all__ = ["FAITHFULNESS_CHECKS", "scored_with"]
