"""Checks of the LLM raters (LR-1 strict, LR-2 permissive) through the `llm_raters` scorer,
judged by the checks' judge (`longform_evals.checks.judge`), on held-out (test) questions of
the planted answer set: exact answers (paraphrases, verbose ones), partial ones, wrong ones
(contradictions) and non-answers, each with the question's reference.
"""

from __future__ import annotations

import statistics
from functools import cache

from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score

from longform_evals.checks.inputs import respace, score_judged
from longform_evals.checks.judge import JudgeChoice, current_judge
from longform_evals.checks.spec import Check, Observation, unchanged, within
from longform_evals.data.planted.answers import PlantedAnswer, load_planted_answers
from longform_evals.scorers.llm_raters import llm_raters

METRIC = "llm_raters"
QUESTIONS = 6
"""Held-out questions the checks rate (5 answers each)."""
EXACT_GAP = 0.3
"""LR-1 of exact answers must exceed LR-1 of wrong ones and LR-1 of partial ones by this."""
LENIENT_GAP = 0.2
"""LR-2 of exact or partial answers must exceed LR-2 of wrong ones by this."""


@cache
def planted_answers() -> tuple[PlantedAnswer, ...]:
    answers = load_planted_answers(split="test")
    questions = list(dict.fromkeys(a.question for a in answers))[:QUESTIONS]
    return tuple(a for a in answers if a.question in questions)


def _sample(answer: PlantedAnswer, n: int) -> Sample:
    return Sample(
        id=f"a{n}",
        input=answer.question,
        target=answer.reference,
        metadata={"question": answer.question},
    )


def _rate(texts: list[tuple[PlantedAnswer, str]]) -> list[Score]:
    items = [(_sample(a, n), text) for n, (a, text) in enumerate(texts)]
    return score_judged(llm_raters(cache=False), items)


def _scored() -> list[Score]:
    return scored_with(current_judge())


@cache
def scored_with(judge: JudgeChoice) -> list[Score]:
    """The score of every planted answer, once per judge and process (cleared by tests that
    change the scorer)."""
    del judge  # the cache key: the scores come from the current judge
    return _rate([(a, a.text) for a in planted_answers()])


def _value(score: Score, key: str) -> float:
    value = score.value
    assert isinstance(value, dict)
    return float(value[key])


def _mean(key: str, labels: tuple[str, ...]) -> float:
    pairs = zip(planted_answers(), _scored(), strict=True)
    return statistics.fmean(_value(s, key) for a, s in pairs if a.label in labels)


def _wrong_lowers() -> Observation:
    exact, wrong = _mean("lr1", ("exact",)), _mean("lr1", ("wrong",))
    lenient, wrong2 = _mean("lr2", ("exact", "partial")), _mean("lr2", ("wrong", "off"))
    observed = (
        f"LR-1 exact {exact:.2f} vs wrong {wrong:.2f}; "
        f"LR-2 right {lenient:.2f} vs wrong {wrong2:.2f}"
    )
    return Observation(observed, exact >= wrong + EXACT_GAP and lenient >= wrong2 + LENIENT_GAP)


def _strict_on_partial() -> Observation:
    # A partial answer is not an exact one: the strict rater accepts it less often.
    exact, partial = _mean("lr1", ("exact",)), _mean("lr1", ("partial",))
    lenient = _mean("lr2", ("partial",))
    observed = f"LR-1 exact {exact:.2f}, partial {partial:.2f}; LR-2 partial {lenient:.2f}"
    return Observation(observed, exact >= partial + EXACT_GAP and lenient > partial)


def _strict_within_permissive() -> Observation:
    # Whatever LR-1 accepts, LR-2 accepts.
    over = [
        a.text
        for a, s in zip(planted_answers(), _scored(), strict=True)
        if _value(s, "lr1") > _value(s, "lr2")
    ]
    n = len(planted_answers())
    return Observation(f"{n - len(over)}/{n} with LR-1 <= LR-2", not over, "; ".join(over))


def _whitespace() -> Observation:
    answers = planted_answers()
    respaced = _rate([(a, respace(a.text)) for a in answers])
    before, after = {}, {}
    for n, (s, r) in enumerate(zip(_scored(), respaced, strict=True)):
        for key in ("lr1", "lr2"):
            before[f"a{n} {key}"] = _value(s, key)
            after[f"a{n} {key}"] = _value(r, key)
    return unchanged(before, after)


def _bounds() -> Observation:
    keys = ("lr1", "lr2", "unparsed")
    values = {f"a{n} {k}": _value(s, k) for n, s in enumerate(_scored()) for k in keys}
    return within(values, 0.0, 1.0)


RATER_CHECKS = [
    Check(
        METRIC,
        "wrong_answer_lowers",
        "direction",
        f"LR-1 of exact answers >= wrong ones' + {EXACT_GAP}; LR-2 of right or partial answers "
        f">= wrong or non-answers' + {LENIENT_GAP}",
        _wrong_lowers,
    ),
    Check(
        METRIC,
        "strict_on_partial",
        "discrimination",
        f"LR-1 of exact answers >= partial ones' + {EXACT_GAP}, and LR-2 accepts partial answers "
        "more often than LR-1",
        _strict_on_partial,
    ),
    Check(
        METRIC,
        "strict_within_permissive",
        "bounds",
        "LR-1 <= LR-2 for every answer",
        _strict_within_permissive,
    ),
    Check(
        METRIC,
        "whitespace",
        "invariance",
        "doubled spaces and blank lines in the answer leave LR-1 and LR-2 unchanged",
        _whitespace,
    ),
    Check(METRIC, "bounds", "bounds", "LR-1, LR-2 and unparsed in [0, 1]", _bounds),
]

__all__ = ["RATER_CHECKS", "planted_answers", "scored_with"]
