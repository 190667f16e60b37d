"""The judged behaviour checks against the live local judge (slow): the same specs `longform
check` replays, asked of gguf/qwen2.5-coder-1.5b itself, so a change of model file, runtime or
calibration that the recording cannot show (it replays the old answers) fails here.

- `llm_raters` (60 short rater calls): with the packaged rater calibration, exact answers of
  held-out planted questions get clearly more LR-1 than contradictions and non-answers, partial
  answers less LR-1 than exact ones, and never more LR-1 than LR-2. Read by its verdict words
  this grader calls nearly every answer exact (its permissive rater says "Yes" to almost
  anything), so a change that brings that back fails here.

The invariance checks are left out here: live, each re-asks every call (Inspect's cache is off
in the checks), doubling the time; `longform check` runs them on the recording. The live
faithfulness checks are not run here: scoring their ten summaries at once interleaves six
documents in llama.cpp's slots, which defeats the prefix cache (814 s measured, against 157 s
for `tests/judges/test_faithfulness_judge_behaviour.py`, which judges one cluster in turn).
"""

from __future__ import annotations

import pytest

from helpers import local_model_or_skip, needs_local_runtime
from longform_evals.checks.judge import RECORDED_JUDGE, JudgeChoice
from longform_evals.checks.runner import format_table, run_checks, shipped_checks


@pytest.mark.slow
@pytest.mark.live_judge
@needs_local_runtime
@pytest.mark.parametrize("metric", ["llm_raters"])
def test_checks_pass_against_the_live_judge(metric: str) -> None:
    local_model_or_skip(RECORDED_JUDGE)
    checks = [c for c in shipped_checks() if c.metric == metric and c.kind != "invariance"]
    results = run_checks(checks=checks, judge=JudgeChoice(live=RECORDED_JUDGE))
    assert results and all(r.passed for r in results), format_table(results)
