"""Snapshot files: where they live, how values are stored and read back, and the errors of the
snapshot commands."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

Value = float | str
"""A stored metric value: a float rounded to 6 decimals, or "nan", "inf", "-inf"."""

DECIMALS = 6
TOLERANCE = 2e-6
"""Two numbers this close count as equal: a value computed with other CPU instructions (the
BERTScore embeddings) may differ in its last stored digit."""

SNAPSHOT_FOLDER = Path("tests") / "snapshots"
"""Where the snapshots live, relative to the repository root."""

_KEYS = ("task", "version", "values")
_NON_FINITE = ("nan", "inf", "-inf")


class SnapshotError(ValueError):
    """A snapshot file is missing its parts or unreadable, or a task cannot be snapshotted."""


class SnapshotRefused(SnapshotError):
    """`update` would change stored values without a raised task version (or lower it)."""


class SnapshotRunError(SnapshotError):
    """The task's eval failed (for a judged task: often a call the judge's recording lacks)."""


def rounded(value: float) -> Value:
    """`value` as stored: 6 decimals, or "nan" / "inf" / "-inf"."""
    number = float(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return round(number, DECIMALS) + 0.0  # + 0.0: no -0.0


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
    version_key(version, str(path))
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


def shown_path(path: Path) -> str:
    """`path` relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def version_key(version: str, where: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        raise SnapshotError(f"{where}: version {version!r} is not of the form 1.2.3")
    return tuple(int(part) for part in version.split("."))
