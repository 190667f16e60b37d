"""`budget_gate`, the solver `longform run` puts in front of every task's solver: it lets a
sample start while the plan's ledger has budget left, and refuses it (no model call) after."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.scorer import match
from inspect_ai.solver import chain, generate

from longform_evals.log_keys import BUDGET_ERROR
from longform_evals.runs import budget
from longform_evals.runs.budget import budget_gate


def _run(tmp_path: Path) -> EvalLog:
    task = Task(
        dataset=MemoryDataset([Sample(id="one", input="Say four.", target="4")]),
        solver=chain(budget_gate(), generate()),
        scorer=match(),
    )
    model = get_model("scripted/budget", rules=[{"default": "4"}], memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    return log


def _model_calls(log: EvalLog) -> int:
    assert log.samples
    return sum(isinstance(e, ModelEvent) for e in log.samples[0].events)


def test_a_sample_starts_outside_a_plan(tmp_path: Path) -> None:
    assert not budget.LEDGER.active
    log = _run(tmp_path)
    assert log.status == "success", log.error
    assert _model_calls(log) == 1


def test_a_sample_starts_while_budget_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "LEDGER", budget.Ledger(max_tokens=10_000, spent=budget.Spend(10)))
    log = _run(tmp_path)
    assert log.status == "success", log.error
    assert _model_calls(log) == 1


def test_a_spent_budget_refuses_the_sample_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "LEDGER", budget.Ledger(max_tokens=100, spent=budget.Spend(100)))
    log = _run(tmp_path)
    assert log.status == "error"
    assert log.samples and log.samples[0].error is not None
    message = log.samples[0].error.message
    assert BUDGET_ERROR in message and "100 tokens spent of 100" in message
    assert _model_calls(log) == 0
