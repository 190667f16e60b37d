"""`longform run` and `longform leaderboard` end to end with scripted models.

Two scripted "models" answer QuALITY questions differently and summarize the bundled book; a
third is the fixed judge. The runs check what a user relies on: one log per model x variant,
a second run that redoes nothing, a budget that stops new samples and a larger one that
finishes them, a killed run that resumes, and a leaderboard that ranks only rows with the
same judge, flags unreadable verdicts and lists logs it cannot use.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, generate, solver

from longform_evals.cli import main
from longform_evals.reports.leaderboard import (
    Leaderboard,
    LeaderboardError,
    build_leaderboard,
)
from longform_evals.reports.leaderboard_render import to_csv, to_json, to_markdown
from longform_evals.tasks.reading import quality
from plans import GARBLED_JUDGE, QUALITY, plan_text


def run_cli(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result


def eval_files(folder: Path) -> dict[str, int]:
    """The plan's logs (each cell's below its own folder) and when each was written."""
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*.eval")}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A plan run to the end once, shared by the tests that only read it (and copy it before
    changing anything): (plan file, log folder)."""
    folder = tmp_path_factory.mktemp("finished")
    logs = folder / "logs"
    plan = folder / "plan.yaml"
    plan.write_text(plan_text(logs), encoding="utf-8")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("INSPECT_CACHE_DIR", str(folder / "inspect-cache"))
        result = run_cli("run", str(plan))
    assert result.exit_code == 0, result.output
    return plan, logs


def test_one_log_per_cell_and_a_second_run_redoes_nothing(finished: tuple[Path, Path]) -> None:
    plan, logs = finished
    before = eval_files(logs)
    assert len(before) == 2 * 3  # two models x (two QuALITY variants + the book)
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info, header_only=True)
        assert log.status == "success"
        assert log.eval.model_roles and "grader" in log.eval.model_roles
        assert log.eval.metadata and log.eval.metadata["longform_plan"]["variant"]
    result = run_cli("run", str(plan))
    assert result.exit_code == 0, result.output
    assert eval_files(logs) == before  # nothing rewritten, nothing new


def test_dry_run_prints_the_grid_without_running(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text(tmp_path / "logs"), encoding="utf-8")
    result = run_cli("run", str(plan), "--dry-run")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("| scripted/")]
    assert len(lines) == 6
    assert any("booookscore-hier512" in line for line in lines)
    assert "judge (grader role): scripted/judge" in result.output
    assert not (tmp_path / "logs").exists()


def test_the_leaderboard_of_a_plan(finished: tuple[Path, Path], tmp_path: Path) -> None:
    _, logs = finished
    out = tmp_path / "board"
    result = run_cli("leaderboard", str(logs), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.html",
    }
    board = build_leaderboard(logs)
    assert sorted((r.model, r.variant) for r in board.rows) == sorted(
        (m, v)
        for m in ("scripted/alpha", "scripted/beta")
        for v in ("quality[strategy=full]", "quality[strategy=read_agent_p]", "booookscore-hier512")
    )
    quality = {r.model: r for r in board.rows if r.variant == "quality[strategy=full]"}
    # The fixture's gold letters: alpha (always B) and beta (always A) score what they match.
    for row in quality.values():
        interval = row.metrics["accuracy"]
        assert interval.n == 6 and interval.low <= interval.value <= interval.high
        assert row.judge is None and row.calls == 1.0 and row.input_tokens > 0
        assert row.steps["answer"]["calls"] == 1.0
    book = [r for r in board.rows if r.variant == "booookscore-hier512"]
    for row in book:
        assert row.judge == "scripted/judge" and row.judge_mode == "sentence"
        assert row.metrics["BooookScore"].value == 100.0
        assert row.steps["chunk_summary"]["calls"] > 1 and row.steps["judge"]["calls"] >= 1
        assert row.ranks["BooookScore"] == 1  # the same score: one shared rank
        assert not row.flags
    records = json.loads(to_json(board))["rows"]
    assert len(records) == 6 and all("metrics" in r for r in records)
    assert to_csv(board).count("\n") == 1 + 2 * 3  # header + one metric per row
    markdown = result.output
    assert "### booookscore-hier512" in markdown and "BooookScore [95 % CI]" in markdown


def test_an_inspect_eval_of_a_plans_experiment_shares_its_column_and_rows_name_the_run(
    finished: tuple[Path, Path], tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(finished[1], logs)
    # the plan's quality variant (data, strategy=full, cache) run by hand, by another model
    [log] = eval(
        quality(data=str(QUALITY), strategy="full", cache=True),
        model="scripted/delta",
        model_args={"default_response": "Answer: (A)"},
        log_dir=str(logs / "by-hand"),
        display="none",
    )
    assert log.status == "success", log.error
    # and an experiment no plan ran: a variant of its own, named by what differs
    [other] = eval(
        quality(data=str(QUALITY), strategy="full"),
        model="scripted/delta",
        model_args={"default_response": "Answer: (A)"},
        limit=2,
        log_dir=str(logs / "by-hand"),
        display="none",
    )
    assert other.status == "success", other.error
    board = build_leaderboard(logs)
    full = {r.model for r in board.rows if r.variant == "quality[strategy=full]"}
    assert full == {"scripted/alpha", "scripted/beta", "scripted/delta"}
    # the plan's variants in the plan's order, then the one no plan ran
    assert board.variants() == [
        "quality[strategy=full]",
        "quality[strategy=read_agent_p]",
        "booookscore-hier512",
        "quality[data=quality_fixture.jsonl,strategy=full,limit=2]",
    ]
    digest = hashlib.sha256(QUALITY.read_bytes()).hexdigest()
    records = json.loads(to_json(board))
    by_hand = [r for r in records["rows"] if r["model"] == "scripted/delta"]
    assert {r["identity"]["plan"] for r in by_hand} == {"ad hoc"}
    planned = [r for r in records["rows"] if r["model"] != "scripted/delta"]
    assert {r["identity"]["plan"] for r in planned} == {"scripted"}
    for record in records["rows"]:
        identity = record["identity"]
        assert identity["started_at"] and identity["completed_at"] and identity["task_version"]
        assert identity["versions"]["longform-evals"] and identity["versions"]["inspect_ai"]
        if record["task"] == "quality":
            assert identity["data"]["sha256"] == digest and identity["data"]["items"] in (2, 6)
    assert records["identity"]["plans"] == ["scripted", "ad hoc"]
    lines = list(csv.DictReader(io.StringIO(to_csv(board))))
    assert all(line["plan"] and line["started_at"] and line["task_version"] for line in lines)
    assert {line["data_sha256"] for line in lines if line["variant"].startswith("quality")} == {
        digest
    }


def test_rows_with_different_judges_are_not_ranked_together(tmp_path: Path) -> None:
    combined = tmp_path / "combined"
    combined.mkdir()
    for name, judge in [("one", "scripted/judge"), ("two", "scripted/other-judge")]:
        plan = tmp_path / f"{name}.yaml"
        logs = tmp_path / name
        plan.write_text(plan_text(logs, judge_name=judge, book=True), encoding="utf-8")
        assert run_cli("run", str(plan)).exit_code == 0
        for path in logs.rglob("*booookscore*.eval"):
            shutil.copy(path, combined / f"{name}-{path.name}")
    board = build_leaderboard(combined)
    book = [r for r in board.rows if r.variant == "booookscore-hier512"]
    assert len(book) == 4 and {r.judge for r in book} == {"scripted/judge", "scripted/other-judge"}
    assert any("different judges" in note for note in board.notes)
    assert "different judges" in to_markdown(board)
    # Every row ranks first among the rows of its own judge, not 1..4 across judges.
    assert all(r.ranks["BooookScore"] == 1 for r in book)


def test_a_row_with_unreadable_verdicts_is_flagged(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    logs = tmp_path / "logs"
    plan.write_text(plan_text(logs, judge=GARBLED_JUDGE), encoding="utf-8")
    assert run_cli("run", str(plan)).exit_code == 0
    board = build_leaderboard(logs)
    book = [r for r in board.rows if r.variant == "booookscore-hier512"]
    assert book and all(r.parse_failure_rate > 0.10 for r in book)
    assert all(any(f.startswith("parse failures") for f in r.flags) for r in book)


def test_a_budget_stops_new_samples_and_a_larger_one_finishes_them(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text(logs, budget=2500, book=False), encoding="utf-8")
    first = run_cli("run", str(plan))
    assert first.exit_code == 1 and "run the same command again" in first.output
    board = build_leaderboard(logs)
    refused = sum(r.budget_refused for r in board.rows)
    assert refused > 0
    assert all("partial" in r.flags for r in board.rows if r.budget_refused)
    for row in board.rows:  # refused samples are counted as missing, not dropped
        assert row.missing["accuracy"] == row.errors
    plan.write_text(plan_text(logs, budget=10**7, book=False), encoding="utf-8")
    second = run_cli("run", str(plan))
    assert second.exit_code == 0, second.output
    board = build_leaderboard(logs)
    assert all(r.samples == 6 and not r.partial for r in board.rows)


def _cached_calls(cache: Path) -> int:
    return sum(1 for p in cache.rglob("*") if p.is_file())


def test_a_killed_run_resumes_without_redoing_finished_work(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text(logs, latency=0.2, book=False), encoding="utf-8")
    cache = Path(os.environ["INSPECT_CACHE_DIR"])
    child = subprocess.Popen(
        [sys.executable, "-m", "longform_evals.cli", "run", str(plan), "--display", "none"],
        env=os.environ.copy(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    # one cell of six one-call samples, then two samples into the next: kill it there
    while _cached_calls(cache) < 8:
        assert child.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    unfinished = [read_eval_log(i, header_only=True).status for i in list_eval_logs(str(logs))]
    assert "started" in unfinished
    result = run_cli("run", str(plan))
    assert result.exit_code == 0, result.output
    board = build_leaderboard(logs)
    assert len(board.rows) == 4 and all(
        r.samples == 6 and r.status == "success" for r in board.rows
    )
    # That no finished call is made again is measured on the same mechanism (Inspect's retry
    # and the strategies' cache) by tests/benchmarks/test_resume_after_kill.py.


@solver
def _broken() -> Any:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raise RuntimeError("this solver always fails")

    return solve


@task
def unrelated_task(fail: bool = False) -> Task:
    return Task(
        dataset=[Sample(input="Say hi", target="hi")],
        solver=_broken() if fail else generate(),
        scorer=match(),
    )


def _unrelated(folder: Path, *, fail: bool = False) -> None:
    eval(
        unrelated_task(fail=fail),
        model="scripted/x",
        model_args={"default_response": "hi"},
        log_dir=str(folder),
    )


def test_bad_log_folders(tmp_path: Path, finished: tuple[Path, Path]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(LeaderboardError, match="no Inspect logs in"):
        build_leaderboard(empty)
    result = run_cli("leaderboard", str(empty))
    assert result.exit_code == 1 and "no Inspect logs in" in result.output
    with pytest.raises(LeaderboardError, match="no such log folder"):
        build_leaderboard(tmp_path / "absent")
    unrelated = tmp_path / "unrelated"
    _unrelated(unrelated)
    with pytest.raises(LeaderboardError, match=r"none of the 1 logs .* is a longform-evals task"):
        build_leaderboard(unrelated)
    _, logs = finished
    mixed = tmp_path / "mixed"
    shutil.copytree(logs, mixed)
    _unrelated(mixed)
    _unrelated(mixed, fail=True)
    board: Leaderboard = build_leaderboard(mixed)
    assert len(board.rows) == 6
    reasons = [why for _, why in board.skipped]
    assert reasons.count("task 'unrelated_task' is not a longform-evals task") == 2
    assert "skipped logs:" in to_markdown(board)


def test_a_failed_cell_is_a_partial_row(tmp_path: Path, finished: tuple[Path, Path]) -> None:
    _, logs = finished
    folder = tmp_path / "failed"
    shutil.copytree(logs, folder)
    victim = next(folder.rglob("*quality*.eval"))
    log = read_eval_log(str(victim))
    log.status = "error"
    assert log.samples
    log.samples = log.samples[:2]
    from inspect_ai.log import write_eval_log

    write_eval_log(log, str(victim))
    board = build_leaderboard(folder)
    partial = [r for r in board.rows if r.log.endswith(victim.name)]
    assert partial and partial[0].partial and "partial" in partial[0].flags
    assert any("error: shown as a partial row" in why for _, why in board.skipped)


@pytest.mark.fault("interrupted_run", "clear error")
def test_a_stopped_run_names_its_unfinished_cells_and_fails(
    finished: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's eval set can report success for a run stopped by Ctrl-C (one cell cancelled,
    one never started): the command reads the logs, names those cells and exits 1."""
    from longform_evals.runs import run_plan as run_module
    from longform_evals.runs.plan_file import read_plan

    plan_file, logs = finished
    plan = read_plan(plan_file)
    built = run_module.build_plan(plan)
    read = [read_eval_log(info, header_only=True) for info in list_eval_logs(str(logs))]
    assert run_module.unfinished_cells(plan, built, read) == []
    read[0] = read[0].model_copy(update={"status": "cancelled"})
    read.pop()
    lines = run_module.unfinished_cells(plan, built, read)
    assert len(lines) == 2, lines
    assert sum(line.endswith(": cancelled") for line in lines) == 1
    assert sum(line.endswith(": not started") for line in lines) == 1
    stopped = run_module.PlanRun(logs=read)
    monkeypatch.setattr(run_module, "run_plan", lambda *a, **k: stopped)
    result = CliRunner().invoke(main, ["run", str(plan_file)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "not finished: " in result.output and ": cancelled" in result.output
    assert "2 cell(s) did not finish" in result.output

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "run_plan", interrupted)
    result = CliRunner().invoke(main, ["run", str(plan_file)])
    assert result.exit_code == 1 and "interrupted" in result.output
    # the cells are read from the log folder, where every one had finished earlier
    assert "0 cell(s) did not finish" in result.output


def test_max_tasks_runs_cells_at_once_in_worker_processes(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    plan = tmp_path / "plan.yaml"
    readers = (("alpha", "B"), ("beta", "A"), ("gamma", "C"))
    plan.write_text(
        plan_text(
            logs, readers=readers, book=False, strategies=("full",), max_tasks=2, latency=0.3
        ),
        encoding="utf-8",
    )
    result = run_cli("run", str(plan))
    assert result.exit_code == 0, result.output
    assert "started 1 worker process(es)" in result.output
    ran = [line for line in result.output.splitlines() if line.startswith("ran here:")]
    # which process gets which cell is a race (the worker starts a Python first); the cells
    # are shared, each run once
    assert len(ran) == 3, result.output
    assert len(eval_files(logs)) == 3


def test_a_plan_fixing_the_judge_of_a_judge_task_is_warned_and_priced_as_it_runs(
    tmp_path: Path,
) -> None:
    """LongFormFact measures the evaluated model as a judge; a plan's fixed judge would judge
    every row instead. The dry run says so and prices the fixed judge's calls (issue 50)."""
    records = tmp_path / "lff.jsonl"
    documents = ["The station opened in May.", "Trains run every hour."]
    records.write_text(
        json.dumps(
            {
                "id": "r1",
                "subset": "planted",
                "summary": "The station opened in May. Trains run hourly.",
                "faithfulness": 1,
                "documents": documents,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    plan = json.loads(plan_text(tmp_path / "logs", book=False))
    plan["tasks"] = [{"task": "longformfact", "args": {"data_dir": str(records)}}]
    path = tmp_path / "plan.yaml"
    path.write_text(json.dumps(plan), encoding="utf-8")
    result = run_cli("run", str(path), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "measures its judge" in result.output
    assert "scripted/judge judges every row" in result.output
    assert "write `judge: self`" in result.output  # what the plan check accepts
    [row, *_] = [line for line in result.output.splitlines() if line.startswith("| scripted/")]
    cells = [c.strip() for c in row.split("|")]
    # 2 sentences x (2 documents + all documents at once): judge calls, no model call
    assert cells[4] == "0" and cells[7] == "6", row
    plan["judge"] = "self"
    path.write_text(json.dumps(plan), encoding="utf-8")
    result = run_cli("run", str(path), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "measures its judge" not in result.output
