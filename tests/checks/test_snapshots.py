"""Metric snapshots (`longform_evals.checks.snapshots`): every task of the suite gives the values
stored for its current version, and stored values only change with a raised version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from longform_evals.checks import snapshots
from longform_evals.checks.judge import RECORDED_JUDGE, JudgeChoice
from longform_evals.checks.snapshots import (
    LEFT_OUT,
    SNAPSHOT_TASKS,
    Comparison,
    SnapshotError,
    SnapshotRefused,
    SnapshotRunError,
    compare,
    missing_modules,
    read_snapshot,
    snapshot_dir,
    update,
)
from longform_evals.cli import main
from longform_evals.judges.calibration_files import calibration_name
from longform_evals.models.replay import packaged_recording
from longform_evals.tasks import snapshot_fixtures

REPO = Path(__file__).resolve().parents[2]
SNAPSHOTS = REPO / "tests" / "snapshots"
RECORDING = packaged_recording(calibration_name(RECORDED_JUDGE))


# --------------------------------------------------------------------------------------------
# (a) Every task's current values are the stored ones.


@pytest.mark.parametrize("name", list(SNAPSHOT_TASKS))
def test_values_match_the_snapshot(name: str) -> None:
    missing = missing_modules(name)
    if missing:
        pytest.skip(f"{name} needs {', '.join(missing)} (the `embed` extra)")
    if SNAPSHOT_TASKS[name].may_be_judged and not RECORDING.exists():
        pytest.skip(
            f"{name} is judged by a replay of {RECORDED_JUDGE}, and the packaged recording "
            f"{RECORDING} does not exist"
        )
    try:
        comparison = compare(name, SNAPSHOTS)
    except SnapshotError as exc:
        error = str(exc)
    else:
        error = "" if comparison.ok else comparison.report()
    if error:  # outside the except block: pytest would show the message twice
        pytest.fail(error, pytrace=False)


def test_every_task_file_has_a_snapshot_or_a_reason() -> None:
    files = {p.stem for p in (REPO / "tasks").glob("*.py") if not p.stem.startswith("_")}
    assert files == set(SNAPSHOT_TASKS) | set(LEFT_OUT)
    assert not set(SNAPSHOT_TASKS) & set(LEFT_OUT)


def test_the_judged_inputs_are_the_checks_inputs() -> None:
    # The judged tasks' summaries are taken from the inputs the behaviour checks judge, so the
    # judge calls they make are among the recorded ones.
    from longform_evals.checks.booookscore_checks import planted_summaries
    from longform_evals.checks.inputs import planted_clusters
    from longform_evals.text import split_sentences

    [s07] = [s for s in planted_summaries() if s.id == "s07-clean"]
    assert split_sentences(snapshot_fixtures.COHERENCE_SUMMARY) == list(s07.sentences[:5])
    [cluster] = [c for c in planted_clusters() if c.id == snapshot_fixtures.FAITHFUL_CLUSTER]
    assert split_sentences(snapshot_fixtures.FAITHFUL_SUMMARY) == list(cluster.sentences[:5])


def test_a_task_without_its_judge_recording_names_the_missing_call(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(SnapshotRunError) as caught:
        snapshots.snapshot_values("qmsum", JudgeChoice(recording=str(empty)))
    message = str(caught.value)
    assert "has no answer for this call" in message and "reading-comprehension" in message
    assert f"--update --record {RECORDED_JUDGE} qmsum" in message


# --------------------------------------------------------------------------------------------
# (b) The rule: values change only with a raised version.


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    """A copy of the stored quality snapshot, in a folder of its own."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    shutil.copy(SNAPSHOTS / "quality.json", folder / "quality.json")
    return folder


def _edit(folder: Path, name: str, **changes: Any) -> None:
    path = folder / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if key == "values":
            data["values"].update(value)
        else:
            data[key] = value
    path.write_text(json.dumps(data), encoding="utf-8")


def _current(monkeypatch: pytest.MonkeyPatch, values: dict[str, Any], version: str) -> None:
    """Make the quality task 'give' these values under this version, without running it."""
    monkeypatch.setattr(
        snapshots.comparison, "snapshot_values", lambda name, judge=None: dict(values)
    )
    monkeypatch.setattr(snapshots.comparison, "task_version", lambda name: version)


def test_an_edited_snapshot_shows_the_diff_and_update_needs_a_raised_version(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    _edit(copied, "quality", values={"choice_accuracy/correct/accuracy": 0.5})
    # The real run of the task: its accuracy differs from the edited file.
    comparison = compare("quality", copied)
    assert comparison.status == "changed" and not comparison.ok
    report = comparison.report()
    assert "changed  choice_accuracy/correct/accuracy: 0.5 -> 0.333333" in report
    assert "--update quality" in report and "raise `version`" in report
    with pytest.raises(SnapshotRefused, match=r"accuracy: 0\.5 -> 0\.333333"):
        update("quality", copied)
    assert read_snapshot("quality", copied).values["choice_accuracy/correct/accuracy"] == 0.5  # type: ignore[union-attr]

    raised = "99.0.0"
    monkeypatch.setattr(snapshots.comparison, "task_version", lambda name: raised)
    written = update("quality", copied)
    assert written.written and written.status == "outdated"
    assert read_snapshot("quality", copied) == snapshots.Snapshot("quality", raised, stored.values)
    assert compare("quality", copied).ok


def test_the_diff_lists_changed_added_and_removed_values(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    values: dict[str, Any] = dict(stored.values)
    values["reading_stats/words_sent/mean"] = 700.0
    values["choice_accuracy/unparsed/mean"] = "nan"
    del values["limited/limited/mean"]
    values["reading_stats/new_metric/mean"] = 1.5
    _current(monkeypatch, values, stored.version)
    comparison = compare("quality", copied)
    assert [str(c) for c in comparison.diff] == [
        "changed  choice_accuracy/unparsed/mean: 0.0 -> nan",
        "removed  limited/limited/mean: 0.0 -> (none)",
        "added    reading_stats/new_metric/mean: (none) -> 1.5",
        "changed  reading_stats/words_sent/mean: 698.0 -> 700.0",
    ]
    with pytest.raises(SnapshotRefused):
        update("quality", copied)


def test_a_difference_in_the_last_digit_is_not_a_change(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    values: dict[str, Any] = dict(stored.values)
    values["choice_accuracy/correct/accuracy"] = 0.333334
    _current(monkeypatch, values, stored.version)
    assert compare("quality", copied).ok


def test_a_matching_snapshot_is_left_as_it_is(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    before = (copied / "quality.json").read_bytes()
    _current(monkeypatch, dict(stored.values), stored.version)
    assert not update("quality", copied).written
    assert (copied / "quality.json").read_bytes() == before


def test_a_missing_snapshot_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _current(monkeypatch, {"a/b/mean": 0.25, "a/c/mean": "nan"}, "1.0.0")
    folder = tmp_path / "new"
    assert compare("quality", folder).status == "missing"
    assert update("quality", folder).written
    data = json.loads((folder / "quality.json").read_text(encoding="utf-8"))
    assert data == {
        "task": "quality",
        "version": "1.0.0",
        "values": {"a/b/mean": 0.25, "a/c/mean": "nan"},
    }
    assert list(data) == ["task", "version", "values"]


# --------------------------------------------------------------------------------------------
# (c) Versions that do not fit, and malformed files.


def test_a_snapshot_of_an_older_version_must_be_rewritten(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    _edit(copied, "quality", version="1.0.9")
    _current(monkeypatch, dict(stored.values), stored.version)
    comparison = compare("quality", copied)
    assert comparison.status == "outdated" and not comparison.ok
    assert f"is of version 1.0.9, older than the task's {stored.version}" in comparison.report()
    assert "--update quality" in comparison.report()
    assert update("quality", copied).written
    assert read_snapshot("quality", copied).version == stored.version  # type: ignore[union-attr]


def test_a_snapshot_of_a_newer_version_is_refused(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    _edit(copied, "quality", version="2.0.0")
    _current(monkeypatch, dict(stored.values), stored.version)
    comparison = compare("quality", copied)
    assert comparison.status == "ahead" and not comparison.ok
    assert f"is of version 2.0.0, newer than the task's {stored.version}" in comparison.report()
    with pytest.raises(SnapshotRefused, match="newer than the task's"):
        update("quality", copied)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", r"expected an object with keys \['task', 'version', 'values'\], got list"),
        ('{"task": "quality", "version": "1.1.0"}', "expected an object with keys"),
        ('{"task": "squality", "version": "1.1.0", "values": {}}', "of task 'squality', not"),
        ('{"task": "quality", "version": 1.1, "values": {}}', "'version' must be a string"),
        ('{"task": "quality", "version": "one", "values": {}}', "not of the form 1.2.3"),
        ('{"task": "quality", "version": "1.1.0", "values": []}', "'values' must be an object"),
        (
            '{"task": "quality", "version": "1.1.0", "values": {"a/b/mean": "high"}}',
            "value of 'a/b/mean' must be a number",
        ),
        (
            '{"task": "quality", "version": "1.1.0", "values": {"a/b/mean": true}}',
            "value of 'a/b/mean' must be a number",
        ),
    ],
    ids=[
        "not-json",
        "not-object",
        "missing-key",
        "other-task",
        "version-type",
        "version-form",
        "values-type",
        "value-text",
        "value-bool",
    ],
)
def test_a_malformed_snapshot_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    (tmp_path / "quality.json").write_text(text, encoding="utf-8")
    _current(monkeypatch, {}, "1.1.0")
    with pytest.raises(SnapshotError, match=message) as caught:
        compare("quality", tmp_path)
    assert str(tmp_path / "quality.json") in str(caught.value)
    with pytest.raises(SnapshotError, match=message):
        update("quality", tmp_path)


def test_unknown_task() -> None:
    known = "no snapshot task 'hello'; known: booookscore, booksum"
    with pytest.raises(SnapshotError, match=known):
        compare("hello", SNAPSHOTS)


# --------------------------------------------------------------------------------------------
# The command line and the snapshot folder.


def test_the_folder_is_found_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tests" / "snapshots").mkdir(parents=True)
    below = tmp_path / "src" / "deep"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    assert snapshot_dir() == (tmp_path / "tests" / "snapshots").resolve()
    assert snapshot_dir(REPO / "src") == SNAPSHOTS
    monkeypatch.chdir(tmp_path.parent)
    with pytest.raises(SnapshotError, match="pass --dir"):
        snapshot_dir()


def _snapshot(*args: str) -> Result:
    return CliRunner().invoke(main, ["snapshot", *args])


def test_the_command_exits_1_on_a_mismatch_and_prints_the_diff(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = read_snapshot("quality", copied)
    assert stored is not None
    judges: list[JudgeChoice] = []

    def values(name: str, judge: JudgeChoice) -> dict[str, Any]:
        judges.append(judge)
        return dict(stored.values)

    monkeypatch.setattr(snapshots.comparison, "snapshot_values", values)
    monkeypatch.setattr(snapshots.comparison, "task_version", lambda name: stored.version)
    result = _snapshot("--dir", str(copied), "quality")
    assert result.exit_code == 0 and "values match" in result.output

    _edit(copied, "quality", values={"reading_stats/words_sent/mean": 1.0})
    result = _snapshot("--dir", str(copied), "quality")
    assert result.exit_code == 1
    assert "changed  reading_stats/words_sent/mean: 1.0 -> 698.0" in result.output
    assert "0 of 1 snapshots match; failed: quality" in result.output
    result = _snapshot("--dir", str(copied), "--update", "quality")
    assert result.exit_code == 1 and f"still the stored {stored.version}" in result.output

    assert _snapshot("--dir", str(copied), "--record", RECORDED_JUDGE, "quality").exit_code == 1
    assert judges[-1] == JudgeChoice(live=RECORDED_JUDGE, record=True)
    assert judges[0] == JudgeChoice()


def test_the_command_refuses_an_unknown_task() -> None:
    result = _snapshot("--dir", str(SNAPSHOTS), "hello")
    assert result.exit_code == 2 and "unknown task(s) hello" in result.output


def test_a_comparison_without_a_snapshot_says_how_to_write_it() -> None:
    comparison = Comparison("quality", "1.1.0", {"a/b/mean": 1.0}, None, SNAPSHOTS / "q.json")
    assert comparison.status == "missing"
    assert "no snapshot at" in comparison.report()
