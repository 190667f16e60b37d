"""The table of faithfulness support judges: every name builds a judge of the one shape."""

from __future__ import annotations

import pytest

from longform_evals.judges.faithfulness.llm import LLMSupportJudge
from longform_evals.judges.faithfulness.minicheck import MINICHECK_MODELS, MiniCheckSupportJudge
from longform_evals.judges.faithfulness.support import JudgeOptions
from longform_evals.judges.faithfulness.support_judges import support_judge
from longform_evals.judges.registry import JudgeWork, judge_entry, judge_names


def test_the_registry_names_the_llm_judge_and_every_minicheck_model() -> None:
    assert {"llm", *MINICHECK_MODELS} <= set(judge_names("faithfulness"))
    work = JudgeWork(items=4, units=3)
    assert judge_entry("faithfulness", "llm").cost(work) == 12  # a call per statement and unit
    for name in MINICHECK_MODELS:  # local classifiers: no model call, no step tallied
        entry = judge_entry("faithfulness", name)
        assert entry.cost(work) == 0 and entry.steps == ()


def test_every_judge_builds_without_loading_a_model() -> None:
    options = JudgeOptions(path="some/folder", device="cpu", batch_size=4)
    for name in judge_names("faithfulness"):
        judge = support_judge(name, options)
        assert callable(judge.setup) and callable(judge.support_rows)
    llm = support_judge("llm")
    assert isinstance(llm, LLMSupportJudge) and llm.options == JudgeOptions()


def test_classifier_options_reach_the_classifier() -> None:
    judge = support_judge("minicheck-flan-t5-large", JudgeOptions(path="x", batch_size=4))
    assert isinstance(judge, MiniCheckSupportJudge)
    assert judge.judge.path == "x" and judge.judge.batch_size == 4  # type: ignore[union-attr]
    setup = judge.setup()
    assert (setup.name, setup.prompt, setup.chunking) == (
        "minicheck-flan-t5-large",
        None,
        "natural",
    )
    assert setup.calibration.source == "none (MiniCheck)"


def test_unknown_judge_and_prompt() -> None:
    with pytest.raises(ValueError, match="unknown faithfulness judge 'minicheck-xl'"):
        support_judge("minicheck-xl")
    with pytest.raises(ValueError, match="unknown faithfulness prompt"):
        support_judge("llm", JudgeOptions(prompt="fancy"))
