"""Length control: word counts, ratio to the target, and the adherence flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from longform_evals.scorers.length_control import length_control, length_control_values


def test_values_at_the_tolerance_boundary() -> None:
    assert length_control_values("a " * 110, 100, 0.1) == {
        "words": 110.0,
        "length_ratio": 1.1,
        "within": 1.0,
    }
    assert length_control_values("a " * 111, 100, 0.1)["within"] == 0.0
    assert length_control_values("a " * 89, 100, 0.1)["within"] == 0.0
    assert length_control_values("", 100, 0.1) == {"words": 0.0, "length_ratio": 0.0, "within": 0.0}


@given(st.integers(0, 3000), st.integers(1, 2000), st.floats(0, 1))
def test_within_matches_definition(n: int, target: int, tolerance: float) -> None:
    values = length_control_values(" ".join(["w"] * n), target, tolerance)
    assert values["words"] == n
    assert values["within"] == float(abs(n - target) <= tolerance * target)


def test_bad_parameters_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="target_words"):
        length_control(target_words=0)
    with pytest.raises(ValueError, match="tolerance"):
        length_control(target_words=10, tolerance=-0.1)


def _run(tmp_path: Path, samples: list[Sample], target_words: float | None) -> EvalLog:
    model = get_model(
        "scripted/writer",
        rules=[
            {"pattern": "^short$", "response": "one two three"},
            {"pattern": "^long$", "response": " ".join(["word"] * 10)},
        ],
        memoize=False,
    )
    task = Task(
        dataset=MemoryDataset(samples), solver=generate(), scorer=length_control(target_words)
    )
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    return log


def test_end_to_end_with_parameter_and_metadata_targets(tmp_path: Path) -> None:
    samples = [
        Sample(id="a", input="long", metadata={"target_words": 10}),
        Sample(id="b", input="short", metadata={"target_words": 3}),
        Sample(id="c", input="short", metadata={"target_words": 10}),
    ]
    log = _run(tmp_path, samples, None)
    assert log.status == "success", log.error
    assert log.samples and log.results
    scores = {str(s.id): s.scores["length_control"] for s in log.samples if s.scores}
    assert scores["a"].value == {"words": 10.0, "length_ratio": 1.0, "within": 1.0}
    assert scores["b"].value == {"words": 3.0, "length_ratio": 1.0, "within": 1.0}
    assert scores["c"].value == {"words": 3.0, "length_ratio": 0.3, "within": 0.0}
    assert scores["c"].metadata == {
        "target_words": 10.0,
        "tolerance": 0.1,
        "target_from": "metadata",
    }
    metrics = {s.name: s.metrics for s in log.results.scores}
    assert metrics["within"]["mean"].value == pytest.approx(2 / 3)
    assert metrics["words"]["mean"].value == pytest.approx(16 / 3)
    assert metrics["length_ratio"]["mean"].value == pytest.approx(2.3 / 3)

    # The parameter wins over metadata.
    log = _run(tmp_path / "p", [Sample(id="d", input="long", metadata={"target_words": 3})], 10)
    assert log.status == "success" and log.samples and log.samples[0].scores
    assert log.samples[0].scores["length_control"].value == {
        "words": 10.0,
        "length_ratio": 1.0,
        "within": 1.0,
    }


def test_missing_target_is_a_clear_error(tmp_path: Path) -> None:
    log = _run(tmp_path, [Sample(id="x", input="short")], None)
    assert log.status == "error"
    assert "no target length" in str(log.error)
