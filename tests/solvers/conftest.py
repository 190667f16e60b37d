"""Fixture for the solver tests: run one sample through a solver against a scripted model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import get_model
from inspect_ai.solver import Solver

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from longform_evals.models.scripted import ScriptedModelAPI

Rule = dict[str, Any]


@pytest.fixture
def run_eval(tmp_path: Path) -> Callable[..., tuple[EvalLog, EvalSample, ScriptedModelAPI]]:
    """Run one sample through ``solver`` against a scripted model."""

    def run(
        solver: Solver | Sequence[Solver],
        rules: list[Rule],
        document: str,
        sample_id: str = "book",
        default: str | None = None,
    ) -> tuple[EvalLog, EvalSample, ScriptedModelAPI]:
        model = get_model("scripted/summ", rules=rules, default_response=default, memoize=False)
        task = Task(
            dataset=MemoryDataset(
                [Sample(id=sample_id, input="Summarize the book.", metadata={"document": document})]
            ),
            solver=list(solver) if isinstance(solver, Sequence) else solver,
        )
        (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none")
        assert log.samples is not None
        return log, log.samples[0], cast(ScriptedModelAPI, model.api)

    return run
