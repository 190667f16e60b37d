"""Checks of BooookScore (probe mode, the mode the default local judge gets), judged by the
checks' judge (`longform_evals.checks.judge`: the packaged recording unless `--live`).

Inputs are the held-out (test) split of the planted coherence set: clean summaries and the same
summaries with one planted error. The checks score whole summaries through the shipped scorer
and read its per-sentence verdicts from the score's metadata.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score

from longform_evals.analysis.agreement import roc_auc
from longform_evals.checks.inputs import respace, score_judged
from longform_evals.checks.judge import RECORDED_JUDGE, JudgeChoice, current_judge
from longform_evals.checks.spec import Check, Observation, unchanged, within
from longform_evals.data.jsonl import jsonl_records
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.scorers.booookscore import booookscore

METRIC = "booookscore"
_SHUFFLE_SEED = 7


@dataclass(frozen=True)
class Suite:
    """The summaries one judge mode is checked on: test-split bases of the planted set with
    some of their planted variants, few enough that a recording stays small and a live run
    takes minutes on a CPU."""

    mode: str
    """The scorer's `mode` (`auto`: probe mode for local judges, sentence mode otherwise)."""
    bases: tuple[str, ...]
    planted: tuple[str, ...]
    with_shuffled: bool
    prefix: str
    """Prefix of the check names."""


AUTO = Suite("auto", ("s07", "s08"), ("duplication", "discontinuity", "entity_omission"), True, "")
SENTENCE = Suite("sentence", ("s07",), ("duplication", "discontinuity"), False, "sentence_mode_")
"""The paper's method (one call per sentence, free-text verdicts read by the parser)."""
BATCHED = Suite("batched", ("s07",), ("duplication", "discontinuity"), False, "batched_mode_")
"""Numbered sentences, ten per call, verdicts as JSON."""


@dataclass(frozen=True)
class Summary:
    """One planted-set summary: its sentences, and the planted one (None when clean)."""

    id: str
    error_type: str | None
    sentences: tuple[str, ...]
    planted_index: int | None

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


@cache
def planted_summaries(suite: Suite = AUTO) -> tuple[Summary, ...]:
    """The clean and planted summaries of a suite, from the packaged planted set."""
    path = resources.files("longform_evals.data").joinpath("coherence/planted_errors.jsonl")
    rows = [record for _, record in jsonl_records(Path(str(path)))]
    wanted = [
        r
        for r in rows
        if r["base"] in suite.bases
        and r["split"] == "test"
        and r["error_type"] in (None, *suite.planted)
    ]
    return tuple(
        Summary(r["id"], r["error_type"], tuple(r["sentences"]), r["planted_index"]) for r in wanted
    )


def shuffled(summary: Summary) -> Summary:
    """The clean summary's sentences in a fixed random order other than the original."""
    order = list(range(len(summary.sentences)))
    random.Random(_SHUFFLE_SEED).shuffle(order)
    return Summary(
        f"{summary.id}-shuffled", "shuffled", tuple(summary.sentences[i] for i in order), None
    )


def _sample(summary_id: str) -> Sample:
    return Sample(id=summary_id, input="(summary given)")


def _score(suite: Suite, texts: Sequence[tuple[str, str]]) -> list[Score]:
    """BooookScore of each (id, summary text), with the checks' judge; Inspect's cache off, so
    every verdict comes from the judge (or the recording)."""
    scorer = booookscore(CoherenceJudging(mode=suite.mode, cache=False))
    return score_judged(scorer, [(_sample(i), t) for i, t in texts])


def _scored(suite: Suite) -> dict[str, Score]:
    """The scores of every summary of the suite (and each base's shuffled one), judged once
    per judge and process: the checks read the same scores."""
    return scored_with(current_judge(), suite)


@cache
def scored_with(judge: JudgeChoice, suite: Suite) -> dict[str, Score]:
    """:func:`_scored` for one judge (cleared by tests that change the scorer)."""
    del judge  # the cache key: the scores below come from the current judge
    summaries = list(planted_summaries(suite))
    if suite.with_shuffled:
        summaries += [shuffled(s) for s in _clean(suite)]
    scores = _score(suite, [(s.id, s.text) for s in summaries])
    return {s.id: score for s, score in zip(summaries, scores, strict=True)}


def _clean(suite: Suite) -> list[Summary]:
    return [s for s in planted_summaries(suite) if s.error_type is None]


def _value(score: Score, key: str = "booookscore") -> float:
    value = score.value
    assert isinstance(value, dict)
    return float(value[key])


def _verdicts(score: Score) -> list[dict[str, Any]]:
    return list((score.metadata or {})["sentences"])


def _pairs(suite: Suite, error_type: str) -> list[tuple[Summary, Summary]]:
    clean = {s.id.split("-")[0]: s for s in _clean(suite)}
    if error_type == "shuffled":
        return [(c, shuffled(c)) for c in clean.values()]
    return [
        (clean[s.id.split("-")[0]], s)
        for s in planted_summaries(suite)
        if s.error_type == error_type
    ]


def _lowers(suite: Suite, error_type: str) -> Observation:
    # The summaries with the error score lower than their clean originals on average: a
    # judge misses some planted sentences (and an unflagged added sentence raises the share of
    # clean ones), so the claim is on the mean change, with each pair shown.
    scores = _scored(suite)
    shown, changes = [], []
    for clean, planted in _pairs(suite, error_type):
        before, after = _value(scores[clean.id]), _value(scores[planted.id])
        shown.append(f"{clean.id.split('-')[0]} {before:.1f} -> {after:.1f}")
        changes.append(after - before)
    mean = statistics.fmean(changes)
    return Observation(f"mean change {mean:+.1f} ({'; '.join(shown)})", mean < 0)


FLAG_GAP = 0.4
"""The planted sentences' flag rate must exceed the clean sentences' by this much."""


def _planted_flagged(suite: Suite) -> Observation:
    # The planted duplicate or discontinuous sentences are flagged far more often than the
    # sentences of the clean summaries.
    scores = _scored(suite)
    planted, missed = [], []
    for s in planted_summaries(suite):
        if s.error_type not in ("duplication", "discontinuity") or s.planted_index is None:
            continue
        confused = bool(_verdicts(scores[s.id])[s.planted_index]["confused"])
        planted.append(confused)
        if not confused:
            missed.append(s.id)
    clean = [bool(v["confused"]) for c in _clean(suite) for v in _verdicts(scores[c.id])]
    rate, base = statistics.fmean(planted), statistics.fmean(clean)
    observed = f"planted {sum(planted)}/{len(planted)} flagged, clean {base:.2f}"
    return Observation(observed, rate >= base + FLAG_GAP, f"missed: {', '.join(missed)}")


def _auc(suite: Suite) -> Observation:
    # P(confusion) of the planted sentences against every clean sentence after the first.
    scores = _scored(suite)
    labels: list[int] = []
    values: list[float | None] = []
    for s in _clean(suite):
        for verdict in _verdicts(scores[s.id])[1:]:
            labels.append(0)
            values.append(_p_confusion(verdict))
    for s in planted_summaries(suite):
        if s.error_type in ("duplication", "discontinuity") and s.planted_index is not None:
            labels.append(1)
            values.append(_p_confusion(_verdicts(scores[s.id])[s.planted_index]))
    auc = roc_auc(labels, values)
    observed = f"AUC {auc:.3f} ({sum(labels)} planted, {labels.count(0)} clean sentences)"
    return Observation(observed, auc >= AUC_FLOOR)


AUC_FLOOR = 0.75


def _p_confusion(verdict: dict[str, Any]) -> float | None:
    """The verdict's P(confusion) (probe mode), else its flag as 0 or 1 (the sentence and
    batched modes give no probability); None when unread."""
    if verdict["p_confusion"] is not None:
        return float(verdict["p_confusion"])
    return None if verdict["confused"] is None else float(verdict["confused"])


def _one_verdict_per_sentence(suite: Suite) -> Observation:
    # The scorer judges each sentence of the summary once: its verdicts line up with the
    # sentences the summary was written as.
    scores = _scored(suite)
    wrong = []
    for s in planted_summaries(suite):
        got = [v["sentence"] for v in _verdicts(scores[s.id])]
        if got != list(s.sentences):
            wrong.append(f"{s.id}: {len(got)} verdicts for {len(s.sentences)} sentences")
    total = len(planted_summaries(suite))
    return Observation(f"{total - len(wrong)}/{total} summaries", not wrong, "; ".join(wrong))


def _whitespace(suite: Suite) -> Observation:
    # Doubled spaces and blank lines leave every value unchanged.
    clean = _clean(suite)
    scores = _scored(suite)
    respaced = _score(suite, [(f"{s.id}-respaced", respace(s.text)) for s in clean])
    keys = _BOUNDED
    before = {f"{s.id} {k}": _value(scores[s.id], k) for s in clean for k in keys}
    after = {
        f"{s.id} {k}": _value(r, k) for s, r in zip(clean, respaced, strict=True) for k in keys
    }
    return unchanged(before, after)


def _bounds(suite: Suite) -> Observation:
    values = {f"{i} {k}": _value(s, k) / 100.0 for i, s in _scored(suite).items() for k in _SCORE}
    values |= {f"{i} {k}": _value(s, k) for i, s in _scored(suite).items() for k in _RATES}
    return within(values, 0.0, 1.0)


_SCORE = ("booookscore",)
_RATES = ("parse_failure_rate", "rate_duplication", "rate_discontinuity")
_BOUNDED = (*_SCORE, *_RATES)


def _mean_gap(suite: Suite) -> Observation:
    # Averaged over the planted summaries of every type, the planted ones score lower.
    scores = _scored(suite)
    clean = statistics.fmean(_value(scores[s.id]) for s in _clean(suite))
    planted = statistics.fmean(
        _value(scores[s.id]) for s in planted_summaries(suite) if s.error_type is not None
    )
    return Observation(f"clean {clean:.1f}, planted {planted:.1f}", planted < clean)


_ENTITY_GAP = (
    (
        RECORDED_JUDGE,
        "its calibration switches the 'introduced' probe off (calibration AUC 0.50 on the "
        "planted set): this judge does not see an entity that was never introduced",
    ),
)
_MODE_GAPS = {
    "sentence": (
        (
            RECORDED_JUDGE,
            "in sentence mode this judge answers 'No confusion' to every sentence (0 of the 13 "
            "sentences of these summaries flagged, planted ones included): the reason local "
            "judges get probe mode",
        ),
    ),
    "batched": (
        (
            RECORDED_JUDGE,
            "in batched mode this judge's flags do not follow the planted errors (0 of 2 "
            "planted and 2 of 12 clean sentences of s07 flagged, AUC 0.41): the reason local "
            "judges get probe mode",
        ),
    ),
}


def _effect_checks(suite: Suite) -> list[Check]:
    """The checks that each planted error lowers the score and its sentences are flagged."""
    return [
        Check(
            METRIC,
            suite.prefix + "duplicated_sentence_lowers",
            "direction",
            "a repeated sentence lowers the score (mean over the summaries)",
            partial(_lowers, suite, "duplication"),
        ),
        Check(
            METRIC,
            suite.prefix + "discontinuity_lowers",
            "direction",
            "a sentence that does not follow from the one before lowers the score (mean)",
            partial(_lowers, suite, "discontinuity"),
        ),
        Check(
            METRIC,
            suite.prefix + "shuffled_sentences_lower",
            "direction",
            "the same sentences in a shuffled order score lower (mean)",
            partial(_lowers, suite, "shuffled"),
        ),
        Check(
            METRIC,
            suite.prefix + "unintroduced_entity_lowers",
            "direction",
            "a character never introduced earlier lowers the score (mean)",
            partial(_lowers, suite, "entity_omission"),
            known_gaps=_ENTITY_GAP,
        ),
        Check(
            METRIC,
            suite.prefix + "planted_sentence_flagged",
            "direction",
            f"planted duplicate or discontinuous sentences flagged at a rate >= clean "
            f"sentences' + {FLAG_GAP}",
            partial(_planted_flagged, suite),
        ),
        Check(
            METRIC,
            suite.prefix + "planted_vs_clean_auc",
            "discrimination",
            f"AUC of P(confusion), planted vs clean sentences >= {AUC_FLOOR}",
            partial(_auc, suite),
        ),
    ]


def _sanity_checks(suite: Suite) -> list[Check]:
    """The checks over whole summaries and of the score's form: planted summaries' mean, one
    verdict per sentence, whitespace invariance, bounds."""
    return [
        Check(
            METRIC,
            suite.prefix + "planted_mean_lower",
            "direction",
            "mean score of planted summaries < mean of clean summaries",
            partial(_mean_gap, suite),
        ),
        Check(
            METRIC,
            suite.prefix + "one_verdict_per_sentence",
            "bounds",
            "one verdict per sentence, on the sentence as written",
            partial(_one_verdict_per_sentence, suite),
        ),
        Check(
            METRIC,
            suite.prefix + "whitespace",
            "invariance",
            "doubled spaces and blank lines leave the score and its rates unchanged",
            partial(_whitespace, suite),
        ),
        Check(
            METRIC,
            suite.prefix + "bounds",
            "bounds",
            "booookscore in [0, 100], its rates in [0, 1]",
            partial(_bounds, suite),
        ),
    ]


def suite_checks(suite: Suite) -> list[Check]:
    """The checks of one judge mode."""
    checks = [*_effect_checks(suite), *_sanity_checks(suite)]
    gaps = _MODE_GAPS.get(suite.mode)
    if gaps is not None:
        # The recorded judge shows no effect in this mode: every effect is a known gap of it.
        checks = [
            replace(c, known_gaps=gaps) if c.kind in ("direction", "discrimination") else c
            for c in checks
        ]
    # A check of an input the suite does not score is left out.
    return [
        c
        for c in checks
        if (suite.with_shuffled or "shuffled" not in c.name)
        and ("entity_omission" in suite.planted or "entity" not in c.name)
    ]


BOOOOKSCORE_CHECKS = [*suite_checks(AUTO), *suite_checks(SENTENCE), *suite_checks(BATCHED)]

__all__ = [
    "AUTO",
    "BATCHED",
    "BOOOOKSCORE_CHECKS",
    "SENTENCE",
    "Suite",
    "planted_summaries",
    "scored_with",
]
