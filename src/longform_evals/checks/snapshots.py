"""Metric snapshots: the values each task of the suite gives on its bundled fixtures with
deterministic models, stored in `tests/snapshots/<task>.json`, so that a change of any value
shows as a diff.

    python -m longform_evals.checks.snapshots                    # compare every task
    python -m longform_evals.checks.snapshots --update quality   # write / refresh one
    python -m longform_evals.checks.snapshots --update --record gguf/qwen2.5-coder-1.5b qmsum

The rule: a task's values may only change together with its `version`. `compare` runs a task
and sets its values beside the stored ones; `update` writes them, and refuses while the values
differ from the stored ones and the task's version equals the stored version. So a change of a
scorer, a prompt or a data loader that moves a number needs the task's version raised in the
same change, and the snapshot rewritten with `--update`.

Every task of `tasks/` has an entry in :data:`SNAPSHOT_TASKS` (:data:`LEFT_OUT` says which are
not and why), made from its task card and the fixture the card names
(`longform_evals.tasks.snapshot_fixtures`: a few samples of a bundled fixture, the cheapest
strategy, every cache off, and the rules of the `scripted/` model that plays the evaluated
model). When the task's arguments call a judge, the `grader` role is bound to the checks'
judge (:func:`longform_evals.checks.judge.judge_model`: by default a replay of the packaged
recording of gguf/qwen2.5-coder-1.5b, so no model runs).
A call the recording lacks fails the run naming the prompt; `--record MODEL` asks the real
model and appends its answer to the recording.

Values are rounded to 6 decimals (NaN and infinities are stored as the strings "nan", "inf",
"-inf"), and two numbers within :data:`TOLERANCE` count as equal.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from longform_evals.checks.judge import RECORDED_JUDGE, JudgeChoice, judge_model, using_judge
from longform_evals.tasks.card import TaskCard
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.snapshot_fixtures import SnapshotFixture

__all__ = [
    "LEFT_OUT",
    "SNAPSHOT_FOLDER",
    "SNAPSHOT_TASKS",
    "TOLERANCE",
    "Change",
    "Comparison",
    "Snapshot",
    "SnapshotError",
    "SnapshotRefused",
    "SnapshotRunError",
    "SnapshotTask",
    "compare",
    "main",
    "missing_modules",
    "read_snapshot",
    "snapshot_dir",
    "snapshot_path",
    "snapshot_values",
    "task_version",
    "update",
]

Value = float | str
"""A stored metric value: a float rounded to 6 decimals, or "nan", "inf", "-inf"."""

DECIMALS = 6
TOLERANCE = 2e-6
"""Two numbers this close count as equal: a value computed with other CPU instructions (the
BERTScore embeddings) may differ in its last stored digit."""

SNAPSHOT_FOLDER = Path("tests") / "snapshots"
"""Where the snapshots live, relative to the repository root."""

COMMAND = "python -m longform_evals.checks.snapshots"
REPLAYED = JudgeChoice()
"""The default judge: a replay of the packaged recording."""
_KEYS = ("task", "version", "values")
_NON_FINITE = ("nan", "inf", "-inf")


class SnapshotError(ValueError):
    """A snapshot file is missing its parts or unreadable, or a task cannot be snapshotted."""


class SnapshotRefused(SnapshotError):
    """`update` would change stored values without a raised task version (or lower it)."""


class SnapshotRunError(SnapshotError):
    """The task's eval failed (for a judged task: often a call the judge's recording lacks)."""


# --------------------------------------------------------------------------------------------
# The tasks and how each runs.


@dataclass(frozen=True)
class SnapshotTask:
    """A task with a snapshot: its card, and the fixture the card names
    (`longform_evals.tasks.snapshot_fixtures`)."""

    card: TaskCard
    fixture: SnapshotFixture

    @property
    def factory(self) -> Callable[..., Task]:
        return self.card.factory

    @property
    def args(self) -> Callable[[Path], dict[str, Any]]:
        return self.fixture.args

    @property
    def rules(self) -> tuple[Mapping[str, Any], ...]:
        return self.fixture.rules

    @property
    def limit(self) -> int | None:
        return self.fixture.limit

    @property
    def sample_id(self) -> str | None:
        return self.fixture.sample_id

    @property
    def needs(self) -> tuple[str, ...]:
        return self.fixture.needs

    @property
    def about(self) -> str:
        return self.fixture.about

    @property
    def may_be_judged(self) -> bool:
        """Whether some arguments of the task call a judge (bound to the checks' judge)."""
        return self.card.judged_by != "nobody"


SNAPSHOT_TASKS: dict[str, SnapshotTask] = {
    name: SnapshotTask(card, card.snapshot)
    for name, card in TASK_CARDS.items()
    if card.snapshot is not None
}
"""The suite's tasks with a snapshot, by the name of their `tasks/` file."""

LEFT_OUT: dict[str, str] = {
    "hello": "the smoke task: two hard-coded questions scored by `includes`, which checks the "
    "call path and measures nothing of the suite",
    "judge_agreement": "it measures a judge against people's labels, which the package does not "
    "ship (the published files are read where the user has them); its figures are pinned by "
    "tests/tasks/test_judge_agreement_task.py and, for the embedded judge, by its judge cards",
}
"""`tasks/` files without a snapshot, and why."""


def spec(name: str) -> SnapshotTask:
    try:
        return SNAPSHOT_TASKS[name]
    except KeyError:
        raise SnapshotError(
            f"no snapshot task {name!r}; known: {', '.join(SNAPSHOT_TASKS)}"
        ) from None


def missing_modules(name: str) -> list[str]:
    """The modules task `name` needs that are not installed."""
    return [m for m in spec(name).needs if importlib.util.find_spec(m) is None]


def task_version(name: str) -> str:
    """The current `version` of task `name`, as a string."""
    entry = spec(name)
    with tempfile.TemporaryDirectory(prefix=f"snapshot-{name}-") as scratch:
        return str(entry.factory(**entry.args(Path(scratch))).version)


# --------------------------------------------------------------------------------------------
# Running a task.


def snapshot_values(name: str, judge: JudgeChoice = REPLAYED) -> dict[str, Value]:
    """The metric values task `name` gives now, as `{"<scorer>/<score>/<metric>": value}`
    sorted by key (e.g. `"rouge/rougeL/mean"`).

    Args:
        name: a key of :data:`SNAPSHOT_TASKS`.
        judge: the judge of a judged task (default: replay the packaged recording);
            `JudgeChoice(live="gguf/qwen2.5-coder-1.5b", record=True)` records the calls the
            recording lacks.

    Raises:
        SnapshotRunError: when the eval fails (the message names the failing call; for a
            replayed judge, the prompt the recording has no answer for).
        SnapshotError: when a module the task needs is missing.
    """
    entry = spec(name)
    missing = missing_modules(name)
    if missing:
        raise SnapshotError(
            f"{name}: needs {', '.join(missing)} (the `embed` extra: pip install -e '.[embed]')"
        )
    # Imported here: the reading memory pulls in the reading strategies.
    from longform_evals.solvers.reading.memory import clear_reading_cache

    with tempfile.TemporaryDirectory(prefix=f"snapshot-{name}-") as scratch:
        folder = Path(scratch)
        args = entry.args(folder)
        roles: dict[str, Model] = {}
        if entry.card.judged(args):
            try:
                with using_judge(judge):
                    roles["grader"] = judge_model()
            except ValueError as exc:  # ReplayError: no recording
                raise SnapshotRunError(f"{name}: no judge: {exc}") from exc
        task = entry.factory(**args)
        model = get_model(f"scripted/snapshot-{name}", rules=list(entry.rules), memoize=False)
        clear_reading_cache()
        with _inspect_cache(folder / "inspect-cache"):
            [log] = inspect_eval(
                task,
                model=model,
                model_roles=roles or None,
                limit=entry.limit,
                sample_id=entry.sample_id,
                log_dir=str(folder / "logs"),
                display="none",
                score_display=False,
            )
    if log.status != "success":
        raise SnapshotRunError(_failure(name, log, judge))
    return metric_values(log)


@contextmanager
def _inspect_cache(folder: Path) -> Iterator[None]:
    """Inspect's model cache in `folder` for the block: no answer comes from an earlier run,
    and a judged call always reaches the judge (or its recording)."""
    previous = os.environ.get("INSPECT_CACHE_DIR")
    os.environ["INSPECT_CACHE_DIR"] = str(folder)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("INSPECT_CACHE_DIR", None)
        else:
            os.environ["INSPECT_CACHE_DIR"] = previous


def _failure(name: str, log: EvalLog, judge: JudgeChoice) -> str:
    error = log.error.message if log.error is not None else f"status {log.status}"
    message = f"{name}: the eval failed: {error}"
    if "has no answer for this call" in error and judge.live is None:
        message += (
            f"\nThe judge's recording lacks this call. Record the calls with the real judge: "
            f"{COMMAND} --update --record {RECORDED_JUDGE} {name}"
        )
    return message


def metric_values(log: EvalLog) -> dict[str, Value]:
    """Every metric of a finished log as `{"<scorer>/<score>/<metric>": rounded value}`,
    sorted (the scorer's name first: several scorers report `scored`, `empty_summary`, ...)."""
    if log.results is None:
        raise SnapshotRunError("the log has no results")
    values: dict[str, Value] = {}
    for score in log.results.scores:
        for metric_name, metric in score.metrics.items():
            key = f"{score.scorer}/{score.name}/{metric_name}"
            if key in values:
                raise SnapshotRunError(f"two scores report {key!r}")
            values[key] = rounded(metric.value)
    return dict(sorted(values.items()))


def rounded(value: float) -> Value:
    """`value` as stored: 6 decimals, or "nan" / "inf" / "-inf"."""
    number = float(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return round(number, DECIMALS) + 0.0  # + 0.0: no -0.0


# --------------------------------------------------------------------------------------------
# Snapshot files.


@dataclass(frozen=True)
class Snapshot:
    task: str
    version: str
    values: dict[str, Value]


def snapshot_dir(start: Path | None = None) -> Path:
    """`tests/snapshots` of the repository `start` (default: the working directory) is in."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / SNAPSHOT_FOLDER).is_dir():
            return folder / SNAPSHOT_FOLDER
    raise SnapshotError(
        f"no {SNAPSHOT_FOLDER.as_posix()}/ in {here} or a folder above it: run from the "
        "repository, or pass --dir"
    )


def snapshot_path(name: str, directory: Path | None = None) -> Path:
    return (directory if directory is not None else snapshot_dir()) / f"{name}.json"


def read_snapshot(name: str, directory: Path | None = None) -> Snapshot | None:
    """The stored snapshot of task `name` (None when there is none).

    Raises:
        SnapshotError: naming the file, when it is not a snapshot of `name`.
    """
    path = snapshot_path(name, directory)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, dict) or set(data) != set(_KEYS):
        found = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise SnapshotError(f"{path}: expected an object with keys {list(_KEYS)}, got {found}")
    if data["task"] != name:
        raise SnapshotError(f"{path}: the snapshot of task {data['task']!r}, not of {name!r}")
    version = data["version"]
    if not isinstance(version, str):
        raise SnapshotError(f"{path}: 'version' must be a string, got {version!r}")
    _version_key(version, str(path))
    values = data["values"]
    if not isinstance(values, dict):
        raise SnapshotError(f"{path}: 'values' must be an object of metric -> number")
    for key, value in values.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not (number or value in _NON_FINITE):
            raise SnapshotError(
                f"{path}: value of {key!r} must be a number or one of {list(_NON_FINITE)}, "
                f"got {value!r}"
            )
    return Snapshot(name, version, {k: _stored(v) for k, v in values.items()})


def _stored(value: float | str) -> Value:
    return value if isinstance(value, str) else float(value)


def write_snapshot(snapshot: Snapshot, directory: Path | None = None) -> Path:
    path = snapshot_path(snapshot.task, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    values = dict(sorted(snapshot.values.items()))
    data = {"task": snapshot.task, "version": snapshot.version, "values": values}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _version_key(version: str, where: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        raise SnapshotError(f"{where}: version {version!r} is not of the form 1.2.3")
    return tuple(int(part) for part in version.split("."))


# --------------------------------------------------------------------------------------------
# Comparing and updating.


@dataclass(frozen=True)
class Change:
    key: str
    old: Value | None
    """None: the key is new."""
    new: Value | None
    """None: the key is gone."""

    @property
    def kind(self) -> Literal["added", "removed", "changed"]:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "changed"

    def __str__(self) -> str:
        old = "(none)" if self.old is None else _show(self.old)
        new = "(none)" if self.new is None else _show(self.new)
        return f"{self.kind:<8} {self.key}: {old} -> {new}"


def _show(value: Value) -> str:
    return value if isinstance(value, str) else repr(value)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(a - b) <= TOLERANCE


def changes(old: Mapping[str, Value], new: Mapping[str, Value]) -> list[Change]:
    """Each key added, removed or changed from `old` to `new`, by key."""
    out = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if before is None or after is None or not _same(before, after):
            out.append(Change(key, before, after))
    return out


Status = Literal["match", "missing", "changed", "outdated", "ahead"]


@dataclass(frozen=True)
class Comparison:
    """A task's current values and version beside its stored snapshot.

    `status`: `match` (same version, same values), `missing` (no snapshot), `changed` (same
    version, other values: the rule is broken), `outdated` (the task's version was raised and
    the snapshot not rewritten), `ahead` (the snapshot is of a newer version than the task).
    """

    task: str
    version: str
    values: dict[str, Value]
    stored: Snapshot | None
    path: Path
    written: bool = False
    diff: list[Change] = field(default_factory=list)

    @property
    def status(self) -> Status:
        if self.stored is None:
            return "missing"
        old = _version_key(self.stored.version, str(self.path))
        new = _version_key(self.version, f"task {self.task}")
        if new > old:
            return "outdated"
        if new < old:
            return "ahead"
        return "changed" if self.diff else "match"

    @property
    def ok(self) -> bool:
        return self.status == "match"

    def report(self) -> str:
        """What was found (and done), with every changed, added and removed value."""
        stored = self.stored
        head = f"{self.task} {self.version}"
        update = f"{COMMAND} --update {self.task}"
        path = _shown(self.path)
        if self.written:
            was = "" if stored is None else f" (was version {stored.version})"
            lines = [f"{head}: wrote {path} with {len(self.values)} values{was}"]
        elif stored is None:
            lines = [f"{head}: no snapshot at {path}; write it with `{update}`"]
        elif self.status == "match":
            lines = [f"{head}: the {len(self.values)} values match {path}"]
        elif self.status == "changed":
            lines = [
                f"{head}: {len(self.diff)} value(s) differ from {path}, and the task's "
                f"version is still the stored {stored.version}. Values may only change with a "
                f"raised version: raise `version` of the {self.task} task (src/longform_evals/"
                f"tasks/), then run `{update}`."
            ]
        elif self.status == "outdated":
            lines = [
                f"{head}: the snapshot {path} is of version {stored.version}, older than the "
                f"task's {self.version}; rewrite it with `{update}` ({len(self.diff)} value(s) "
                "differ)"
            ]
        else:
            lines = [
                f"{head}: the snapshot {path} is of version {stored.version}, newer than the "
                f"task's {self.version}: a version never goes down (is the snapshot from another "
                "branch?)"
            ]
        return "\n".join([*lines, *(f"  {change}" for change in self.diff)])


def compare(name: str, directory: Path | None = None, judge: JudgeChoice = REPLAYED) -> Comparison:
    """Run task `name` and set its values and version beside the stored snapshot.

    Raises:
        SnapshotError: when the snapshot file is malformed (or its version unreadable).
        SnapshotRunError: when the run fails.
    """
    path = snapshot_path(name, directory)
    stored = read_snapshot(name, path.parent)
    values = snapshot_values(name, judge)
    version = task_version(name)
    _version_key(version, f"task {name}")
    diff = changes(stored.values, values) if stored is not None else []
    return Comparison(name, version, values, stored, path, diff=diff)


def update(name: str, directory: Path | None = None, judge: JudgeChoice = REPLAYED) -> Comparison:
    """Write the snapshot of task `name` when it is missing or of an older version; leave a
    matching one as it is.

    Raises:
        SnapshotRefused: with the diff, when the values changed but the task's version is the
            stored one (raise the version first), or the snapshot is of a newer version.
    """
    comparison = compare(name, directory, judge)
    if comparison.status in ("changed", "ahead"):
        raise SnapshotRefused(comparison.report())
    if comparison.status == "match":
        return comparison
    write_snapshot(Snapshot(name, comparison.version, comparison.values), comparison.path.parent)
    return replace(comparison, written=True)


# --------------------------------------------------------------------------------------------
# Command line.


def main(argv: Sequence[str] | None = None) -> int:
    """Compare (or `--update`) the snapshots; exit 1 when one does not match or fails."""
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Compare the metric values of the suite's tasks with their snapshots "
        f"({SNAPSHOT_FOLDER.as_posix()}/<task>.json); values may only change with a raised "
        "task version.",
    )
    parser.add_argument(
        "tasks",
        nargs="*",
        metavar="TASK",
        help=f"tasks (default: all): {', '.join(SNAPSHOT_TASKS)}",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="write missing snapshots and those of a raised version; refuses changed values "
        "under an unchanged version",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        help=f"the snapshot folder (default: {SNAPSHOT_FOLDER.as_posix()} of the repository "
        "the working directory is in)",
    )
    parser.add_argument(
        "--record",
        metavar="MODEL",
        help=f"judge with MODEL (e.g. {RECORDED_JUDGE}) wherever the recording lacks a call, "
        "and append its answers to the recording",
    )
    args = parser.parse_args(argv)
    unknown = [t for t in args.tasks if t not in SNAPSHOT_TASKS]
    if unknown:
        parser.error(f"unknown task(s) {', '.join(unknown)}; known: {', '.join(SNAPSHOT_TASKS)}")
    try:
        directory = args.dir if args.dir is not None else snapshot_dir()
    except SnapshotError as exc:
        parser.error(str(exc))
    judge = JudgeChoice(live=args.record, record=True) if args.record else JudgeChoice()
    names = list(dict.fromkeys(args.tasks)) or list(SNAPSHOT_TASKS)
    failed: list[str] = []
    skipped: list[str] = []
    for name in names:
        missing = missing_modules(name)
        if missing:
            print(f"{name}: skipped: needs {', '.join(missing)} (the `embed` extra)", flush=True)
            skipped.append(name)
            continue
        try:
            comparison = (update if args.update else compare)(name, directory, judge)
        except SnapshotError as exc:
            print(str(exc) if str(exc).startswith(name) else f"{name}: {exc}", flush=True)
            failed.append(name)
            continue
        print(comparison.report(), flush=True)
        if not (comparison.ok or comparison.written):
            failed.append(name)
    checked = len(names) - len(skipped)
    summary = f"{checked - len(failed)} of {checked} snapshots " + (
        "up to date" if args.update else "match"
    )
    if skipped:
        summary += f" ({len(skipped)} skipped: {', '.join(skipped)})"
    if failed:
        summary += f"; failed: {', '.join(failed)}"
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
