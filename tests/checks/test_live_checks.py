"""The rater checks against the live local judge (slow): the same specs `longform check`
replays, asked of gguf/qwen2.5-coder-1.5b itself, so a change of model file, runtime or
calibration that the recording cannot show (it replays the old answers) fails here.

With the packaged rater calibration, the raters must give exact answers of held-out planted
questions clearly more LR-1 than contradictions and non-answers, partial answers less LR-1
than exact ones, and never more LR-1 than LR-2. Read by its verdict words this grader calls
nearly every answer exact (its permissive rater says "Yes" to almost anything), so a change
that brings that back fails here. 60 short rater calls.
"""

from __future__ import annotations

import pytest

from helpers import local_model_or_skip, needs_local_runtime
from longform_evals.checks.judge import RECORDED_JUDGE, JudgeChoice
from longform_evals.checks.runner import format_table, run_checks


@pytest.mark.slow
@needs_local_runtime
def test_rater_checks_pass_against_the_live_judge() -> None:
    local_model_or_skip(RECORDED_JUDGE)
    results = run_checks(only=["llm_raters"], judge=JudgeChoice(live=RECORDED_JUDGE))
    assert results and all(r.passed for r in results), format_table(results)
