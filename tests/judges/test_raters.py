"""The LR-1 / LR-2 raters' judgement: verdict parsing, asking again, and the combination rules
(the scorer end to end: tests/scorers/test_llm_raters.py)."""

from __future__ import annotations

import asyncio
import math
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.model import get_model

from longform_evals.judges.raters.calibration import RaterCalibration
from longform_evals.judges.raters.rating import (
    RaterVerdict,
    RatingSettings,
    Verdict,
    ask_rater,
    parse_verdict,
    rate_reference,
    rate_reference_calibrated,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("YES", "yes"),
        ("yes.", "yes"),
        ("No.", "no"),
        ("NO - the places differ.", "no"),
        ("Yes, partially", "partial"),
        ("yes partially.", "partial"),
        ("**Yes, partially.**", "partial"),
        ("Yes, but only partially.", "partial"),
        ("Partially", "partial"),
        ("Verdict: Yes", "yes"),
        ("Rating: no", "no"),
        ("The two answers agree, so YES.", None),  # not in answer position: asked again
        ("Yes. There is no difference.", "yes"),
        ("I cannot tell.", None),
        ("Not really", None),
        ("", None),
        ("Yes, but no.", None),
        ("Yes or no", None),
        ("yes/no", None),
        ("YES / NO", None),
        ("No. Actually, yes.", None),
        ("Yes, partially, but no.", None),
        ("No, the text never says that.", "no"),
        ("Yes. The document states it.", "yes"),
        ("There is no difference, so YES.", None),
    ],
)
def test_parse_verdict(text: str, expected: Verdict | None) -> None:
    assert parse_verdict(text) == expected


def _ask(response: str, top: dict[str, float] | None = None) -> RaterVerdict:
    rule: dict[str, Any] = {"pattern": ".", "response": response}
    if top is not None:
        rule["top_logprobs"] = top
    model = get_model("scripted/rater", rules=[rule], memoize=False)
    settings = RatingSettings(cache=False, logprobs=top is not None)
    return asyncio.run(ask_rater(model, "Reference answer: x (YES or NO)", settings))


def test_hedged_verdict_is_asked_again_then_missing() -> None:
    verdict = _ask("Yes, but no.")
    assert verdict == RaterVerdict(None, ["Yes, but no.", "Yes, but no."], None)


def test_rater_p_yes_reads_whole_word_tokens_only() -> None:
    top = {"YES": math.log(0.3), "NO": math.log(0.1), "Nothing": -0.1}
    assert _ask("YES", top).p_yes == pytest.approx(0.75)


@pytest.mark.fault("answer_not_yes_no", "counted")
@pytest.mark.parametrize("answer", ["Nothing differs", "Nope", "Correct."])
def test_rater_never_reads_p_yes_from_alternatives_of_another_answer(answer: str) -> None:
    # Before: the "YES" alternative of a "Nope" answer read as P(yes) = 1 (LR-1 = 1).
    verdict = _ask(answer, {answer.split()[0]: -0.01, "YES": -7.0})
    assert verdict.p_yes is None and verdict.verdict is None and len(verdict.answers) == 2


def test_combination_rule() -> None:
    assert rate_reference("yes", "no") == ("exact", "exact")
    assert rate_reference("no", "yes") == ("exact", "exact")
    assert rate_reference("no", "partial") == ("partial", "partial")
    assert rate_reference("partial", "partial") == ("partial", "partial")  # strict: not exact
    assert rate_reference("no", "no") == ("none", "none")
    assert rate_reference(None, "partial") == ("partial", "exact")
    assert rate_reference("no", None) == ("none", "exact")
    assert rate_reference(None, "yes") == ("exact", "exact")


_VERDICTS = st.sampled_from([*get_args(Verdict), None])
_RANK = {"none": 0, "partial": 1, "exact": 2}


@given(strict=_VERDICTS, permissive=_VERDICTS, fill=st.sampled_from(get_args(Verdict)))
def test_bounds_contain_every_completion_of_missing_verdicts(
    strict: Verdict | None, permissive: Verdict | None, fill: Verdict
) -> None:
    lower, upper = rate_reference(strict, permissive)
    known, _ = rate_reference(strict or fill, permissive or fill)
    assert _RANK[lower] <= _RANK[known] <= _RANK[upper]


_P = st.one_of(st.none(), st.floats(0.0, 1.0))


@given(strict=_P, permissive=_P, fill=st.floats(0.0, 1.0))
def test_calibrated_bounds_contain_every_completion(
    strict: float | None, permissive: float | None, fill: float
) -> None:
    cal = RaterCalibration(source="test", exact_threshold=0.7, partial_threshold=0.4)
    lower, upper = rate_reference_calibrated(strict, permissive, cal)
    known, _ = rate_reference_calibrated(
        fill if strict is None else strict, fill if permissive is None else permissive, cal
    )
    assert _RANK[lower] <= _RANK[known] <= _RANK[upper]
