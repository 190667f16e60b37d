"""`longform leaderboard` beside unreadable logs: a garbage, truncated, zero-byte or bad-zip
`.eval` (or a garbage `.json`) is skipped with its reason; the good log's row is still shown.
An `--out` that is a file is an error message, not a crash."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model

from longform_evals.cli import main
from longform_evals.judges.coherence_judges import CoherenceJudging
from longform_evals.reports.leaderboard import LeaderboardError, build_leaderboard
from longform_evals.scorers.booookscore import booookscore
from longform_evals.solvers import given_summary

pytest.importorskip("pandas")


def _good_log(folder: Path) -> Path:
    samples = [Sample(id="s1", input="x", metadata={"summary": "Ada keeps the light."})]
    task = Task(
        dataset=MemoryDataset(samples),
        solver=given_summary(),
        scorer=booookscore(CoherenceJudging(mode="sentence")),
        name="booookscore",
    )
    judge = get_model(
        "scripted/judge",
        rules=[{"pattern": "Sentence to judge", "response": "No confusion."}],
        memoize=False,
    )
    [log] = inspect_eval(
        task,
        model=get_model("scripted/writer", memoize=False),
        model_roles={"grader": judge},
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success"
    return Path(log.location)


BAD_FILES: dict[str, bytes | None] = {
    "garbage.eval": b"this is not a zip file at all",
    "empty.eval": b"",
    "truncated.eval": None,  # the good log's first half
    "badzip.eval": b"PK\x03\x04" + b"\x00" * 64,
    "garbage.json": b"{not json",
}


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, Path]:
    logs = tmp_path / "logs"
    good = _good_log(logs)
    data = good.read_bytes()
    for name, content in BAD_FILES.items():
        (logs / f"2026-01-01T00-00-00+00-00_booookscore_{name}").write_bytes(
            data[: len(data) // 2] if content is None else content
        )
    return logs, good


@pytest.mark.fault("leaderboard_input", "counted")
def test_unreadable_logs_are_skipped_with_their_reasons(folder: tuple[Path, Path]) -> None:
    logs, good = folder
    board = build_leaderboard(logs)
    assert [row.log for row in board.rows] == [str(good)]
    reasons = {Path(path).name.split("_booookscore_")[-1]: why for path, why in board.skipped}
    for name in BAD_FILES:
        if name in reasons:
            assert reasons[name].startswith("unreadable log ("), reasons
    # every .eval file is listed by Inspect, so each bad one is reported
    assert {n for n in BAD_FILES if n.endswith(".eval")} <= set(reasons)


@pytest.mark.fault("leaderboard_input", "clear error")
def test_only_unreadable_logs_is_an_error_naming_them(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "2026-01-01T00-00-00+00-00_booookscore_x.eval").write_bytes(b"garbage")
    with pytest.raises(LeaderboardError, match=r"no readable Inspect logs .*unreadable log"):
        build_leaderboard(logs)


@pytest.mark.fault("leaderboard_input", "clear error")
def test_the_command_reports_skips_and_refuses_an_out_that_is_a_file(
    folder: tuple[Path, Path], tmp_path: Path
) -> None:
    logs, _ = folder
    result = CliRunner().invoke(main, ["leaderboard", str(logs), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "skipped logs:" in result.output and "garbage.eval: unreadable log (" in result.output
    assert (tmp_path / "o" / "leaderboard.md").exists()
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    result = CliRunner().invoke(main, ["leaderboard", str(logs), "--out", str(a_file)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "a-file" in result.output and "is a file" in result.output
    shutil.rmtree(tmp_path / "o")
