"""`given_completion`: the solver that puts an lm-eval model's completion in each sample's
output, so the Inspect task's scorers score what lm-eval generated, without a model call."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.model import get_model
from inspect_ai.scorer import match

from longform_evals.lmeval.scoring import given_completion

SAMPLES = [Sample(id="a", input="One plus one?", target="2"), Sample(id=7, input="?", target="9")]


def _task(completions: dict[str, str]) -> Task:
    return Task(
        dataset=MemoryDataset(SAMPLES), solver=given_completion(completions), scorer=match()
    )


def test_each_sample_is_answered_with_its_completion(tmp_path: Path) -> None:
    model = get_model("scripted/unused", rules=[{"default": "never asked"}], memoize=False)
    task = _task({"a": "2", "7": "8"})  # ids as strings: lm-eval documents carry them so
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples
    by_id = {str(s.id): s for s in log.samples}
    assert by_id["a"].output.completion == "2"
    assert by_id["7"].output.completion == "8"
    assert by_id["a"].messages[-1].role == "assistant"
    assert by_id["a"].messages[-1].text == "2"
    assert {str(i): s.scores["match"].value for i, s in by_id.items()} == {"a": "C", "7": "I"}  # type: ignore[index]
    assert not [e for s in log.samples for e in s.events if isinstance(e, ModelEvent)]


def test_a_sample_without_a_completion_fails_naming_it(tmp_path: Path) -> None:
    model = get_model("scripted/unused", rules=[{"default": "never asked"}], memoize=False)
    [log] = inspect_eval(
        _task({"a": "2"}), model=model, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "error"
    errors = [s.error.message for s in log.samples or [] if s.error is not None]
    assert errors and "'7'" in errors[0]


def test_an_empty_completion_is_kept_as_it_is(tmp_path: Path) -> None:
    model = get_model("scripted/unused", rules=[{"default": "never asked"}], memoize=False)
    task = _task({"a": "", "7": "9"})
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples
    assert {str(s.id): s.output.completion for s in log.samples}["a"] == ""
