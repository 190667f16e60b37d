"""A plain lm-eval model is asked what the suite's one-call strategy sends: the prompt comes
from the solver's own prompt function, not a copy of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

import longform_evals
from longform_evals.lmeval.docs import plain_prompt
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.tasks.narrative import squality
from longform_evals.tasks.reading import quality

pytest.importorskip("lm_eval")

DATA = Path(longform_evals.__file__).resolve().parent / "data"


def _first_prompt(task: Task, tmp_path: Path) -> str:
    model = get_model("scripted/p", default_response="Answer: (A)", memoize=False)
    [log] = inspect_eval(task, model=model, limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    api = model.api
    assert isinstance(api, ScriptedModelAPI)
    return api.calls[0].prompt


def test_the_question_focused_summary_prompt_is_the_solvers(tmp_path: Path) -> None:
    task = squality(data=str(DATA / "narrative" / "squality_fixture.jsonl"), strategy="full")
    [sample] = task.dataset[:1]
    sent = _first_prompt(task, tmp_path)
    assert plain_prompt("squality", {}, sample) == sent
    assert str((sample.metadata or {})["question"]) in sent


def test_the_reading_answer_prompt_is_the_solvers(tmp_path: Path) -> None:
    task = quality(data=str(DATA / "reading" / "quality_fixture.jsonl"), strategy="full")
    [sample] = task.dataset[:1]
    assert plain_prompt("quality", {}, sample) == _first_prompt(task, tmp_path)
