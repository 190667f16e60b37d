"""The leaderboard's judge column names the model that judged, as the scorers record it: a
scorer given `model=` judges with that model, whatever the grader role holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from longform_evals.data.books import load_summaries
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.reports.leaderboard import build_leaderboard
from longform_evals.scorers.booookscore import booookscore
from longform_evals.solvers.summarize.given import given_summary

pytest.importorskip("pandas")

CLEAN = {"pattern": "Sentence to judge", "response": "No confusion."}


def _run(tmp_path: Path, scorer_model: str | None, grader: str | None) -> None:
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = tmp_path / "s.jsonl"
    data.write_text(json.dumps({"id": "a", "summary": "Mara rows. She waves."}) + "\n")
    judge = CoherenceJudging(mode="sentence")
    task = Task(
        name="booookscore",
        dataset=load_summaries(data),
        solver=given_summary(),
        scorer=booookscore(
            judge,
            model=get_model(scorer_model, rules=[CLEAN], memoize=False) if scorer_model else None,
        ),
    )
    roles = {"grader": get_model(grader, rules=[CLEAN], memoize=False)} if grader else {}
    [log] = inspect_eval(
        task,
        model=get_model("scripted/writer", rules=[CLEAN], memoize=False),
        model_roles=roles,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error


def test_a_scorers_own_judge_model_is_the_judge_shown(tmp_path: Path) -> None:
    _run(tmp_path, "scripted/own-judge", grader="scripted/role-judge")
    [row] = build_leaderboard(tmp_path / "logs").rows
    assert row.judge == "scripted/own-judge" and not row.self_judged


def test_the_bound_grader_and_self_judging_as_before(tmp_path: Path) -> None:
    _run(tmp_path / "bound", None, grader="scripted/role-judge")
    [row] = build_leaderboard(tmp_path / "bound" / "logs").rows
    assert row.judge == "scripted/role-judge" and not row.self_judged
    _run(tmp_path / "self", None, grader=None)
    [row] = build_leaderboard(tmp_path / "self" / "logs").rows
    assert row.judge == "scripted/writer (self)" and row.self_judged
