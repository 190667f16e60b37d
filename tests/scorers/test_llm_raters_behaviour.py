"""Behaviour check of the calibrated LLM raters with the local grader (slow).

With the packaged rater calibration of gguf/qwen2.5-coder-1.5b, the raters must give the exact
answers of held-out planted questions clearly more LR-1 than the contradictions and
non-answers, and less LR-2 to those than to the exact and partial answers. Read by its verdict
words this grader calls nearly every answer exact (its permissive rater says "Yes" to almost
anything), so a change of prompt, parsing, model file or thresholds that brings that back
fails here.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from helpers import local_model_or_skip, needs_local_runtime
from longform_evals.analysis.agreement import roc_auc
from longform_evals.data.planted_answers import load_planted_answers
from longform_evals.judges.rater_calibration import load_rater_calibration
from longform_evals.judges.raters import RaterVerdict, RatingSettings, rate_answer

GRADER = "gguf/qwen2.5-coder-1.5b"
QUESTIONS = 6  # held-out test questions: 30 answers, 60 short rater calls


@pytest.mark.slow
@needs_local_runtime
def test_calibrated_raters_separate_right_from_wrong_answers() -> None:
    model = local_model_or_skip(GRADER)
    cal = load_rater_calibration(GRADER)
    assert cal.calibrated, "the packaged rater calibration of the default grader is missing"
    answers = load_planted_answers(split="test")[: 5 * QUESTIONS]
    settings = RatingSettings(logprobs=True)

    async def verdicts() -> list[dict[str, RaterVerdict]]:
        rows = await asyncio.gather(
            *[rate_answer(model, a.question, a.text, [a.reference], settings) for a in answers]
        )
        return [row[0] for row in rows]

    rows = asyncio.run(verdicts())
    missing = [r for r in rows if r["strict"].p_yes is None or r["permissive"].p_yes is None]
    assert not missing, [(r["strict"].answers, r["permissive"].answers) for r in missing]
    strict = [float(r["strict"].p_yes or 0.0) for r in rows]
    permissive = [float(r["permissive"].p_yes or 0.0) for r in rows]
    lr1 = np.array([s >= cal.exact_threshold for s in strict], dtype=float)
    lr2 = np.maximum(lr1, [p >= cal.partial_threshold for p in permissive])
    exact = np.array([a.exact for a in answers])
    wrong = np.array([a.label in ("wrong", "off") for a in answers])
    assert roc_auc([int(e) for e in exact], strict) >= 0.7, strict
    assert lr1[exact].mean() >= lr1[wrong].mean() + 0.3, (lr1, strict)
    assert lr2[~wrong].mean() >= lr2[wrong].mean() + 0.2, (lr2, permissive)
