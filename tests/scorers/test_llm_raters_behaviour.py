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
from inspect_ai.model import get_model

from helpers import needs_local_runtime
from longform_evals.analysis.agreement import roc_auc
from longform_evals.data.planted_answers import load_planted_answers
from longform_evals.judges.rater_calibration import load_rater_calibration
from longform_evals.prompts import load_prompt
from longform_evals.scorers.llm_raters import RATERS, RatingSettings, ask_rater

GRADER = "gguf/qwen2.5-coder-1.5b"
QUESTIONS = 6  # held-out test questions: 30 answers, 60 short rater calls


@pytest.mark.slow
@needs_local_runtime
def test_calibrated_raters_separate_right_from_wrong_answers() -> None:
    try:
        model = get_model(GRADER)
    except Exception as exc:  # the 1.5B packages are part of the `local` extra
        pytest.skip(f"{GRADER} unavailable: {exc}")
    cal = load_rater_calibration(GRADER)
    assert cal.calibrated, "the packaged rater calibration of the default grader is missing"
    answers = load_planted_answers(split="test")[: 5 * QUESTIONS]
    templates = {r: load_prompt("raters", r) for r in RATERS}
    settings = RatingSettings(logprobs=True)

    async def p_yes(rater: str) -> list[float]:
        verdicts = await asyncio.gather(
            *[
                ask_rater(
                    model,
                    templates[rater].render(
                        question=a.question, reference=a.reference, answer=a.text
                    ),
                    settings,
                    rater,
                )
                for a in answers
            ]
        )
        assert all(v.p_yes is not None for v in verdicts), [v.answers for v in verdicts]
        return [float(v.p_yes) for v in verdicts if v.p_yes is not None]

    strict, permissive = asyncio.run(p_yes("strict")), asyncio.run(p_yes("permissive"))
    lr1 = np.array([s >= cal.exact_threshold for s in strict], dtype=float)
    lr2 = np.maximum(lr1, [p >= cal.partial_threshold for p in permissive])
    exact = np.array([a.exact for a in answers])
    wrong = np.array([a.label in ("wrong", "off") for a in answers])
    assert roc_auc([int(e) for e in exact], strict) >= 0.7, strict
    assert lr1[exact].mean() >= lr1[wrong].mean() + 0.3, (lr1, strict)
    assert lr2[~wrong].mean() >= lr2[wrong].mean() + 0.2, (lr2, permissive)
