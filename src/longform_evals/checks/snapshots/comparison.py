"""Comparing a task's values now with its snapshot, and updating the snapshot (only with a raised
task version)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from longform_evals.checks.judge import JudgeChoice
from longform_evals.checks.snapshots.run import COMMAND, REPLAYED, snapshot_values
from longform_evals.checks.snapshots.store import (
    TOLERANCE,
    Snapshot,
    SnapshotRefused,
    Value,
    read_snapshot,
    shown_path,
    snapshot_path,
    version_key,
    write_snapshot,
)
from longform_evals.checks.snapshots.table import task_version


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
        old = version_key(self.stored.version, str(self.path))
        new = version_key(self.version, f"task {self.task}")
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
        path = shown_path(self.path)
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
    version_key(version, f"task {name}")
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
