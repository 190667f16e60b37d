"""The per-step-kind token tally: accumulation in a sample's store, reading it back, nothing
recorded outside a sample, and the open registry of step kinds."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store

import longform_evals.judges.steps  # noqa: F401  (registers the judge kind)
import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
import longform_evals.solvers.common.recording  # noqa: F401  (registers the summary kinds)
from longform_evals.models import step_usage as step_usage_module
from longform_evals.models.step_usage import (
    STEP_USAGE_FIELDS,
    STEP_USAGE_KEY,
    StepKind,
    record_step_usage,
    register_step_kind,
    render_step_kinds,
    step_kinds,
    step_usage,
)


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations of a test are forgotten after it (the docs list the package's own)."""
    monkeypatch.setattr(step_usage_module, "_KINDS", dict(step_usage_module._KINDS))


def _output(
    input_tokens: int | None = None, output_tokens: int = 0, cache_read: int | None = None
) -> ModelOutput:
    out = ModelOutput.from_content("m", "text")
    if input_tokens is not None:
        out.usage = ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
            input_tokens_cache_read=cache_read,
        )
    return out


@solver
def _recorder(calls: list[tuple[StepKind, ModelOutput]]) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        for kind, output in calls:
            record_step_usage(kind, output)
        return state

    return solve


def _logged(tmp_path: Path, calls: list[tuple[StepKind, ModelOutput]]) -> EvalSample:
    task = Task(dataset=MemoryDataset([Sample(id="s", input="x")]), solver=_recorder(calls))
    model = get_model("scripted/unit", default_response="ok", memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    on_disk = read_eval_log(log.location)
    assert on_disk.samples is not None
    return on_disk.samples[0]


def test_calls_and_tokens_add_up_per_kind_in_the_logged_store(tmp_path: Path) -> None:
    sample = _logged(
        tmp_path,
        [
            ("chunk_summary", _output(100, 10)),
            ("chunk_summary", _output(50, 5, cache_read=30)),
            ("merge", _output(70, 7)),
            ("judge", _output()),  # no usage: counted, with no tokens
            ("judge", _output(20, 1)),
        ],
    )
    assert step_usage(sample) == {
        "chunk_summary": {
            "calls": 2,
            "calls_without_usage": 0,
            "input_tokens": 150,
            "output_tokens": 15,
            "input_tokens_cache_read": 30,
        },
        "merge": {
            "calls": 1,
            "calls_without_usage": 0,
            "input_tokens": 70,
            "output_tokens": 7,
            "input_tokens_cache_read": 0,
        },
        "judge": {
            "calls": 2,
            "calls_without_usage": 1,
            "input_tokens": 20,
            "output_tokens": 1,
            "input_tokens_cache_read": 0,
        },
    }
    # what the leaderboard reads is plain JSON in the sample's store
    assert sample.store[STEP_USAGE_KEY] == step_usage(sample)


def test_a_sample_without_calls_has_no_tally(tmp_path: Path) -> None:
    sample = _logged(tmp_path, [])
    assert STEP_USAGE_KEY not in sample.store and step_usage(sample) == {}


def test_nothing_is_recorded_outside_a_sample() -> None:
    # outside a sample store() is one process-wide fallback; it must stay untouched
    record_step_usage("answer", _output(10, 2))
    assert store().get(STEP_USAGE_KEY) is None


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown step kind 'summary'"):
        record_step_usage(cast(Any, "summary"), _output(1, 1))


def test_reading_tolerates_old_and_odd_stores() -> None:
    def sample(store: dict[str, Any]) -> EvalSample:
        return EvalSample(id=1, epoch=1, input="x", target="", store=store)

    assert step_usage(sample({})) == {}
    assert step_usage(sample({STEP_USAGE_KEY: "junk"})) == {}
    odd = {STEP_USAGE_KEY: {"gist": {"calls": 3, "input_tokens": "x"}, "answer": 5}}
    assert step_usage(sample(odd)) == {"gist": {**dict.fromkeys(STEP_USAGE_FIELDS, 0), "calls": 3}}


def test_the_vocabulary() -> None:
    import longform_evals.solvers.reading.run  # noqa: F401  (registers the reading kinds)

    kinds = step_kinds()
    assert "judge" in kinds and all(description.strip() for description in kinds.values())
    assert {"chunk_summary", "merge", "compression", "gist", "lookup", "answer"} <= set(kinds)


@pytest.mark.usefixtures("fresh_registry")
def test_a_registered_kind_is_recorded_and_listed() -> None:
    assert register_step_kind("outline", "a plan of the summary") == "outline"
    assert register_step_kind("outline", "a plan of the summary") == "outline"  # idempotent
    record_step_usage("outline", _output(1, 1))
    assert step_kinds()["outline"] == "a plan of the summary"
    assert "- `outline`: a plan of the summary" in render_step_kinds().splitlines()


@pytest.mark.usefixtures("fresh_registry")
def test_a_conflicting_or_malformed_registration_is_refused() -> None:
    register_step_kind("outline", "a plan of the summary")
    with pytest.raises(ValueError, match="already registered as 'a plan of the summary'"):
        register_step_kind("outline", "something else")
    with pytest.raises(ValueError, match="lowercase"):
        register_step_kind("Outline", "a plan")
    with pytest.raises(ValueError, match="description is empty"):
        register_step_kind("outline_two", " ")
    assert "outline_two" not in step_kinds()
