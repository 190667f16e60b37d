"""Progress of long runs: calls made and queued per phase, printed while a run goes on."""

from __future__ import annotations

import asyncio
import io
import re
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

LINE = re.compile(
    r"\[\d+:\d\d:\d\d\] longform: (?P<done>done, )?(?P<calls>[\d,]+) model calls?, "
    r"(?P<tokens>[\d,]+) tokens?(?:; (?P<phases>.+))?"
)
"""The one format of every progress line, from a `longform` command or the hook."""
PHASE = re.compile(r"(?P<name>\w+) (?P<calls>[\d,]+) calls?(?: \((?P<queued>[\d,]+) queued\))?")


def _phases(line: str) -> dict[str, tuple[int, int]]:
    """Each phase of a progress line: (calls made, calls queued)."""
    match = LINE.fullmatch(line)
    assert match is not None, line
    phases = {}
    for part in (match["phases"] or "").split(", ") if match["phases"] else []:
        found = PHASE.fullmatch(part)
        assert found is not None, part  # a running count, never `done/planned`
        phases[found["name"]] = (int(found["calls"]), int(found["queued"] or 0))
    return phases


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=30))
def test_a_phase_shows_its_calls_and_those_queued(steps: list[tuple[bool, int]]) -> None:
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
    queued = f" ({planned - done} queued)" if planned > done else ""
    calls = "call" if done == 1 else "calls"
    assert board.line() == (f"summarizer {done} {calls}{queued}" if steps else "")


def test_phases_are_listed_in_order_of_first_report() -> None:
    board = ProgressBoard()
    board.plan("summarizer", 30)
    board.done("summarizer", 12)
    board.plan("judge", 4)
    board.done("judge")
    assert board.line() == "summarizer 12 calls (18 queued), judge 1 call (3 queued)"


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
    assert lines[0].startswith("[0:00:00] longform: 0 model calls, 0 tokens; summarizer ")
    assert lines[-1].endswith("] longform: done, 0 model calls, 0 tokens; summarizer 3 calls")
    assert all(LINE.fullmatch(line) for line in lines), lines


def test_a_quiet_run_still_prints_that_it_is_alive() -> None:
    out = io.StringIO()
    with printing_progress(interval=0.02, quiet_interval=0.05, stream=out):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and lines[0].endswith("] longform: 0 model calls, 0 tokens")


def test_a_scripted_run_prints_one_line_format_and_running_counts(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A book summarized by merging (whose merge levels are learnt as it goes) and judged
    sentence by sentence, under a `longform` command's printer, with a display that draws no
    progress (the package's hook would print too): one printer, one format, and each phase a
    running count that never goes down, not a fraction of a total that grows."""
    import longform_evals._registry  # noqa: F401  (the entry point registers the hook)
    from longform_evals.data.books import bundled_books_dir
    from longform_evals.tasks.booookscore import booookscore

    monkeypatch.setenv("LONGFORM_PROGRESS_INTERVAL", "0.01")  # the hook's, were it to print
    task = booookscore(
        strategy="hierarchical",
        data=str(bundled_books_dir() / "the_frost_hold.txt"),
        chunk_size=256,
        max_summary_tokens=900,
    )
    model = get_model(
        "scripted/progress",
        default_response="A part summary. It ends.",
        latency=0.02,
        memoize=False,
    )
    out = io.StringIO()
    with printing_progress(interval=0.01, quiet_interval=60.0, stream=out):
        [log] = inspect_eval(task, model=model, display="plain", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert "longform:" not in capfd.readouterr().err  # the hook printed nothing of its own
    lines = out.getvalue().splitlines()
    assert lines and all(LINE.fullmatch(line) for line in lines), lines
    assert [bool(LINE.fullmatch(line)["done"]) for line in lines] == [False] * (  # type: ignore[index]
        len(lines) - 1
    ) + [True]
    seen: dict[str, int] = {}
    for line in lines:
        for name, (calls, _) in _phases(line).items():
            assert calls >= seen.get(name, 0), lines
            seen[name] = calls
    last = _phases(lines[-1])
    assert last["summarizer"][0] > 10 and last["judge"][0] > 0
    assert all(queued == 0 for _, queued in last.values())  # at the end, nothing is queued


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
    assert "] longform: done, 3 model calls, " in last and "tokens" in last


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
    assert all(LINE.fullmatch(line) for line in lines), lines
    assert "1 model call," in lines[-1] and "tokens" in lines[-1]


def test_no_progress_lines_when_the_display_is_silenced(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import longform_evals._registry  # noqa: F401

    monkeypatch.setenv("LONGFORM_PROGRESS_INTERVAL", "0.1")
    task = Task(dataset=[Sample(input="Say hi.")])
    model = get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)
    inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert "] longform: " not in capfd.readouterr().err
