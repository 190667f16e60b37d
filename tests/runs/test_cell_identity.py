"""A cell is what it ran: a changed input is a new cell, and the leaderboard never merges two
configurations or calls one the superseded run of the other (scripted models)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from longform_evals.cli import main
from longform_evals.reports.leaderboard import build_leaderboard
from longform_evals.reports.leaderboard_settings import Experiment, differing, what_differs
from plans import QUALITY, plan_text


def _run(plan: Path, text: str) -> Any:
    plan.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(plan)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _plan(logs: Path, **changes: Any) -> str:
    """One scripted reader on QuALITY's fixture with the `full` strategy, edited by
    ``changes`` (top-level settings, or `args` of the task)."""
    raw = json.loads(plan_text(logs, book=False, strategies=("full",), readers=(("alpha", "B"),)))
    task = raw["tasks"][0]
    task["name"] = "quality"
    task.pop("variants")
    task["args"] = {**task["args"], "strategy": "full", **changes.pop("args", {})}
    raw.update(changes)
    return json.dumps(raw)


def _evals(logs: Path) -> list[Path]:
    return sorted(logs.rglob("*.eval"))


def test_a_data_file_edited_under_its_name_is_a_new_cell(tmp_path: Path) -> None:
    data = tmp_path / "quality.jsonl"
    data.write_bytes(QUALITY.read_bytes())
    logs, plan = tmp_path / "logs", tmp_path / "plan.yaml"
    _run(plan, _plan(logs, args={"data": str(data)}))
    assert len(_evals(logs)) == 1
    again = _run(plan, _plan(logs, args={"data": str(data)}))
    assert len(_evals(logs)) == 1 and "running" not in again.output  # nothing changed
    data.write_text(QUALITY.read_text(encoding="utf-8").replace("Odile", "Oriel"), "utf-8")
    edited = _run(plan, _plan(logs, args={"data": str(data)}))
    assert len(_evals(logs)) == 2 and "running" in edited.output
    board = build_leaderboard(logs)
    assert len(board.rows) == 2 and not any("superseded" in why for _, why in board.skipped)
    assert len(set(board.variants())) == 2 and all("data " in v for v in board.variants())


def test_a_variant_edited_between_runs_is_a_column_of_its_own_named_by_what_differs(
    tmp_path: Path,
) -> None:
    logs, plan = tmp_path / "logs", tmp_path / "plan.yaml"
    _run(plan, _plan(logs, args={"answer_max_tokens": 30}))
    _run(plan, _plan(logs, args={"answer_max_tokens": 20}))
    _run(plan, _plan(logs, epochs=2))
    board = build_leaderboard(logs)
    assert not any("superseded" in why for _, why in board.skipped)
    columns = board.variants()
    assert len(columns) == len(set(columns)) == 3, columns
    assert any("answer_max_tokens=20" in c for c in columns)
    assert any("answer_max_tokens=30" in c for c in columns)
    assert any("epochs=2" in c for c in columns)
    for column in columns:
        rows = [r for r in board.rows if r.variant == column]
        assert [r.model for r in rows] == ["scripted/alpha"]


def test_one_model_run_with_other_settings_in_one_column_is_two_named_rows(
    tmp_path: Path,
) -> None:
    logs, plan = tmp_path / "logs", tmp_path / "plan.yaml"
    _run(plan, _plan(logs))
    raw = json.loads(_plan(logs))
    raw["models"][0]["args"]["latency"] = 0.01
    _run(plan, json.dumps(raw))
    board = build_leaderboard(logs)
    assert not any("superseded" in why for _, why in board.skipped)
    models = sorted(r.model for r in board.rows)
    assert len(models) == 2 and len(set(models)) == 2 and "latency" in models[1], models
    assert len(board.variants()) == 1


def test_what_differs_names_each_difference() -> None:
    a = Experiment("quality[k=3]", "ab" * 32, json.dumps({"task_version": "1.0", "epochs": 1}))
    b = Experiment("quality[k=2]", "ab" * 32, json.dumps({"task_version": "1.1", "epochs": 1}))
    assert what_differs([a, b]) == [
        "quality[k=3]; task_version=1.0",
        "quality[k=2]; task_version=1.1",
    ]
    assert differing([{"x": 1, "y": {"z": 2}}, {"x": 1}]) == ["y.z=2", "y.z unset"]


def test_a_cells_cost_does_not_depend_on_what_its_process_ran_before(tmp_path: Path) -> None:
    def steps(logs: Path, strategies: tuple[str, ...]) -> dict[str, float]:
        raw = json.loads(
            plan_text(logs, book=False, strategies=strategies, readers=(("alpha", "B"),))
        )
        _run(tmp_path / f"{logs.name}.yaml", json.dumps(raw))
        [row] = [r for r in build_leaderboard(logs).rows if "gist_memory" in r.variant]
        return {"calls": row.calls, "input_tokens": row.input_tokens, "steps": row.steps}

    # gist_memory after read_agent_p in one process (the same pages and gists), and alone
    after = steps(tmp_path / "after", ("read_agent_p", "gist_memory"))
    alone = steps(tmp_path / "alone", ("gist_memory",))
    assert after == alone and after["steps"]["gist"]["calls"] > 0
