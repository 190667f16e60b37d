"""Progress of long runs: calls done and planned per phase, printed while a run goes on."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from helpers import OFFLINE_RULES
from longform_evals.progress import BOARD, ProgressBoard, printing_progress


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=30))
def test_planned_is_never_below_done(steps: list[tuple[bool, int]]) -> None:
    board = ProgressBoard()
    done = planned = 0
    for is_plan, n in steps:
        if is_plan:
            board.plan("summarizer", n)
            planned += n
        else:
            board.done("summarizer", n)
            done += n
        planned = max(planned, done)
    expected = f"summarizer {done}/{planned} calls" if steps else ""
    assert board.line() == expected


def test_phases_are_listed_in_order_of_first_report() -> None:
    board = ProgressBoard()
    board.plan("summarizer", 30)
    board.done("summarizer", 12)
    board.plan("judge", 4)
    assert board.line() == "summarizer 12/30 calls, judge 0/4 calls"


def test_printing_progress_prints_while_counts_move_and_at_the_end() -> None:
    out = io.StringIO()
    with printing_progress(interval=0.02, quiet_interval=60.0, stream=out) as board:
        assert board is BOARD
        board.plan("summarizer", 3)
        for _ in range(3):
            board.done("summarizer")
            time.sleep(0.08)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2
    assert lines[0].startswith("[0:00:00] 0 model calls, 0 tokens; summarizer ")
    assert lines[-1].endswith("done: 0 model calls, 0 tokens; summarizer 3/3 calls")


def test_a_quiet_run_still_prints_that_it_is_alive() -> None:
    out = io.StringIO()
    with printing_progress(interval=0.02, quiet_interval=0.05, stream=out):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and lines[0].endswith("] 0 model calls, 0 tokens")


def test_printed_progress_counts_calls_of_phases_that_report_no_plan(tmp_path: Path) -> None:
    """A judge that reports no plan to the board (a faithfulness judge, a rater) still shows
    its calls: the lines count every model call through Inspect's usage hook."""
    import longform_evals._registry  # noqa: F401  (the entry point registers the hook)

    task = Task(dataset=[Sample(input="Say hi.") for _ in range(3)])
    model = get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)
    out = io.StringIO()
    with printing_progress(interval=0.02, quiet_interval=60.0, stream=out):
        [log] = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success"
    last = out.getvalue().splitlines()[-1]
    assert "] done: 3 model calls, " in last and "tokens" in last


def test_a_plain_display_prints_progress_lines_while_a_sample_runs(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # With `--display plain` (and in CI, where output is no terminal) Inspect shows nothing
    # while a sample runs; the package's hook prints a line every interval.
    import longform_evals._registry  # noqa: F401  (the entry point registers the hook)

    monkeypatch.setenv("LONGFORM_PROGRESS_INTERVAL", "0.2")

    @solver
    def slow() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            state = await generate(state)
            await asyncio.sleep(1.0)
            return state

        return solve

    task = Task(dataset=[Sample(input="Say hi.")], solver=slow())
    model = get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)
    [log] = inspect_eval(task, model=model, display="plain", log_dir=str(tmp_path))
    assert log.status == "success"
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if "] longform: " in line]
    assert lines, err
    assert "1 model calls" in lines[-1] and "tokens" in lines[-1]


def test_no_progress_lines_when_the_display_is_silenced(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import longform_evals._registry  # noqa: F401

    monkeypatch.setenv("LONGFORM_PROGRESS_INTERVAL", "0.1")
    task = Task(dataset=[Sample(input="Say hi.")])
    model = get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)
    inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert "] longform: " not in capfd.readouterr().err
