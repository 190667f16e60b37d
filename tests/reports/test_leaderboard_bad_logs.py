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
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.reports.leaderboard import LeaderboardError, build_leaderboard
from longform_evals.scorers.booookscore import booookscore
from longform_evals.solvers import given_summary

pytest.importorskip("pandas")


def _good_log(folder: Path, samples: int = 1, model: str = "scripted/writer") -> Path:
    dataset = [
        Sample(id=f"s{i}", input="x", metadata={"summary": "Ada keeps the light."})
        for i in range(1, samples + 1)
    ]
    task = Task(
        dataset=MemoryDataset(dataset),
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
        model=get_model(model, memoize=False),
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


def _with_sample_replaced(source: Path, target: Path, data: bytes | None) -> None:
    """A copy of the log ``source`` whose second sample file is ``data`` (None: left out)."""
    import zipfile

    import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401 - Inspect's logs are zstd-compressed zips

    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        names = sorted(n for n in zin.namelist() if n.startswith("samples/"))
        for item in zin.infolist():
            content = zin.read(item.filename)
            if item.filename == names[-1]:
                if data is None:
                    continue
                content = data
            zout.writestr(item, content)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"{not json", "JSONDecodeError"),
        (b'{"id": "s2", "epoch": "one"}', "ValidationError"),
        (b"", "JSONDecodeError"),
    ],
)
def test_a_log_with_one_unreadable_sample_is_skipped_with_its_reason(
    tmp_path: Path, data: bytes, says: str
) -> None:
    """Its header reads: only its samples tell it apart (issue 49: this crashed)."""
    logs = tmp_path / "logs"
    good = _good_log(logs, samples=2)
    broken = logs / "2026-01-02T00-00-00+00-00_booookscore_broken.eval"
    _with_sample_replaced(good, broken, data)
    board = build_leaderboard(logs)
    assert [row.log for row in board.rows] == [str(good)]
    reasons = {Path(p).name: why for p, why in board.skipped}
    assert reasons[broken.name].startswith("unreadable sample s2 (epoch 1) ("), reasons
    assert says in reasons[broken.name]
    result = CliRunner().invoke(main, ["leaderboard", str(logs), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0 and f"{broken.name}: unreadable sample s2" in result.output


def test_links_that_lead_nowhere_are_listed_and_good_links_read(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    elsewhere = tmp_path / "elsewhere"
    good = _good_log(logs)
    linked = _good_log(elsewhere, model="scripted/other")
    (logs / "2026-01-03T00-00-00+00-00_booookscore_link.eval").symlink_to(linked)
    (logs / "2026-01-04T00-00-00+00-00_booookscore_gone.eval").symlink_to(tmp_path / "gone")
    loop = logs / "2026-01-05T00-00-00+00-00_booookscore_loop.eval"
    loop.symlink_to(loop)
    (logs / "2026-01-06T00-00-00+00-00_booookscore_dir.eval").mkdir()
    (logs / "same.eval").symlink_to(good)  # the log itself again: read once
    board = build_leaderboard(logs)
    assert sorted(row.model for row in board.rows) == ["scripted/other", "scripted/writer"]
    reasons = {Path(p).name.split("_booookscore_")[-1]: why for p, why in board.skipped}
    assert reasons["gone.eval"].startswith("unreadable log (broken symbolic link"), reasons
    assert reasons["loop.eval"].startswith("unreadable log (looping symbolic link"), reasons
    assert reasons["dir.eval"] == "unreadable log (a folder)"
    assert "same.eval" not in reasons


def test_only_links_that_lead_nowhere_is_an_error_naming_them(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "x.eval").symlink_to(tmp_path / "gone")
    with pytest.raises(LeaderboardError, match=r"no readable Inspect logs .*x\.eval: .*broken"):
        build_leaderboard(logs)


@pytest.mark.parametrize("out", ["{file}/o", "/proc/longform-49"])
def test_an_out_that_cannot_be_written_is_refused_before_reading(tmp_path: Path, out: str) -> None:
    if out.startswith("/proc") and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    (tmp_path / "a-file").write_text("x")
    logs = tmp_path / "logs"
    (logs).mkdir()
    (logs / "x.eval").write_bytes(b"garbage")  # never read: the refusal comes first
    target = out.format(file=tmp_path / "a-file")
    result = CliRunner().invoke(main, ["leaderboard", str(logs), "--out", target])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith(f"Error: cannot write the leaderboard to {target}: ")
    assert "unreadable" not in result.output
