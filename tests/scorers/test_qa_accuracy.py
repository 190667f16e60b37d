"""Multiple-choice accuracy end to end: a scripted reader answers in several formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from longform_evals.scorers.qa_accuracy import choice_accuracy

CHOICES = ["the miller", "the ferryman", "the weaver", "the smith"]
# question -> (gold letter, the reader's canned answer)
QUESTIONS = {
    "Who rang the bell?": ("B", "Answer: (B)"),
    "Who crossed the river first?": ("B", "The answer is C."),
    "Who kept the key?": ("D", "**d**"),
    "Who told the lie?": ("A", "Maybe the miller or the smith, I cannot decide."),
}


def _run(tmp_path: Path, samples: list[Sample]) -> EvalLog:
    model = get_model(
        "scripted/reader",
        rules=[
            {"pattern": q.replace("?", r"\?"), "response": a} for q, (_, a) in QUESTIONS.items()
        ],
        memoize=False,
    )
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=choice_accuracy())
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    return log


def _samples() -> list[Sample]:
    return [
        Sample(id=f"doc:{i}", input=q, target=gold, choices=CHOICES)
        for i, (q, (gold, _)) in enumerate(QUESTIONS.items())
    ]


def test_accuracy_and_unparsed_rate(tmp_path: Path) -> None:
    log = _run(tmp_path, _samples())
    assert log.status == "success", log.error
    assert log.samples
    scores = {s.id: s.scores["choice_accuracy"] for s in log.samples if s.scores}
    assert scores["doc:0"].value == {"correct": 1, "unparsed": 0}
    assert scores["doc:0"].answer == "B"
    assert scores["doc:1"].value == {"correct": 0, "unparsed": 0}
    assert scores["doc:1"].answer == "C"
    assert scores["doc:2"].value == {"correct": 1, "unparsed": 0}
    assert scores["doc:3"].value == {"correct": 0, "unparsed": 1}
    assert scores["doc:3"].answer is None
    assert scores["doc:3"].metadata == {
        "raw_answer": QUESTIONS["Who told the lie?"][1],
        "gold": "A",
    }
    assert log.results
    metrics = {s.name: s.metrics for s in log.results.scores}
    assert metrics["correct"]["accuracy"].value == pytest.approx(0.5)
    assert metrics["unparsed"]["mean"].value == pytest.approx(0.25)


def test_sample_without_choices_is_a_clear_error(tmp_path: Path) -> None:
    log = _run(tmp_path, [Sample(id="nochoice:0", input="Who rang the bell?", target="B")])
    assert log.status == "error"
    assert log.error and "'nochoice:0' has no choices" in log.error.message


def test_target_that_is_not_an_option_letter_is_a_clear_error(tmp_path: Path) -> None:
    sample = Sample(id="bad:0", input="Who rang the bell?", target="E", choices=CHOICES)
    log = _run(tmp_path, [sample])
    assert log.status == "error"
    assert log.error and "'bad:0': target 'E' is not one of the option letters" in log.error.message
