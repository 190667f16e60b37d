"""What a leaderboard row was run with, beyond its task and arguments: the settings that key
rows and columns, so that two configurations are never one row and never called one cell.

A column (an :class:`Experiment`) is the task with its arguments, its data and the settings
every model of it shares: the task's version, the epochs and the judge's settings. A row is a
model in a column, with its own settings: the model's arguments, base URL and generation
settings (temperature, seed, ...). Settings that change how fast a run goes, never what it
answers (connections, retries, timeouts, batching, caching), are left out, so a plan's run and
an ``inspect eval`` of the same experiment share a column.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "SCHEDULING",
    "Experiment",
    "RunSettings",
    "differing",
    "loads",
    "present",
    "run_settings",
    "what_differs",
]

SCHEDULING = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "cache_prompt",
        "cache",
        "batch",
        "extra_headers",
    }
)
"""Generation settings that change how a run is scheduled, not what a model answers."""


class Experiment(NamedTuple):
    """A leaderboard column: its label (task and arguments that differ from the defaults),
    its data's identity, and the settings its models share (canonical JSON)."""

    label: str
    data: str
    settings: str


@dataclass(frozen=True)
class RunSettings:
    """A log's settings: those of its column and those of its row."""

    column: str
    """Canonical JSON of the task version, epochs and judge settings."""
    row: dict[str, Any]
    """The model's arguments, base URL and generation settings that were set."""

    @property
    def row_digest(self) -> str:
        return _canonical(self.row)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def present(value: Any) -> bool:
    """Not a missing cell of a data frame (None, NaN or pandas' NA)."""
    import pandas as pd

    return not (value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value))))


def loads(value: Any) -> Any:
    """A cell of Inspect's evals frame: a JSON object or list read, a missing cell None."""
    if isinstance(value, str) and value[:1] in "{[":
        return json.loads(value)
    return value if present(value) else None


def _answering(config: Any) -> dict[str, Any]:
    """The generation settings of ``config`` that were set and change answers."""
    config = loads(config)
    if not isinstance(config, Mapping):
        return {}
    return {k: v for k, v in config.items() if v is not None and k not in SCHEDULING}


def _given(ev: Mapping[str, Any], column: str) -> Any:
    """A column's value, None where it is missing or empty."""
    value = loads(ev.get(column))
    return None if isinstance(value, str | list | dict) and not value else value


def run_settings(ev: Mapping[str, Any], roles: Mapping[str, Any]) -> RunSettings:
    """The settings of a log's row in Inspect's evals frame; ``roles``: the model roles that
    judged it (empty where no judge is bound)."""
    judge = {}
    for name, role in sorted(roles.items()):
        role = loads(role)
        if isinstance(role, Mapping):
            judge[name] = {
                "args": role.get("args") or {},
                "config": _answering(role.get("config")),
                "base_url": role.get("base_url"),
            }
    column = {
        "task_version": _given(ev, "task_version"),
        "epochs": _given(ev, "epochs"),
        "judge": judge,
    }
    row = {
        "model_args": _given(ev, "model_args_json"),
        "base_url": _given(ev, "model_base_url"),
        "generate": _answering(ev.get("model_generate_config")),
    }
    return RunSettings(_canonical(column), {k: v for k, v in row.items() if v})


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else _canonical(value)
    return text if len(text) <= 40 else text[:37] + "..."


def differing(settings: Sequence[Mapping[str, Any]]) -> list[str]:
    """For each of ``settings`` (flat or nested mappings), the entries on which they differ,
    as ``key=value`` (``key unset`` where one lacks it)."""
    flat = [_flatten(s) for s in settings]
    keys = sorted({k for f in flat for k in f})
    varying = [k for k in keys if len({_canonical(f.get(k)) for f in flat}) > 1]
    return [
        ", ".join(f"{k}={_short(f[k])}" if k in f else f"{k} unset" for k in varying) or "same"
        for f in flat
    ]


def _flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping) and item:
            out.update(_flatten(item, f"{name}."))
        elif item is not None:
            out[name] = item
    return out


def what_differs(group: Sequence[Experiment]) -> list[str]:
    """For experiments that would share a column name, what tells each apart: the label where
    labels differ, the data's digest, and the settings that differ."""
    told: list[list[str]] = [[] for _ in group]
    if len({e.label for e in group}) > 1:
        for parts, exp in zip(told, group, strict=True):
            parts.append(exp.label)
    if len({e.data for e in group}) > 1:
        for parts, exp in zip(told, group, strict=True):
            parts.append(f"data {exp.data[:8]}" if exp.data else "data unnamed")
    if len({e.settings for e in group}) > 1:
        shown = differing([json.loads(e.settings) for e in group])
        for parts, text in zip(told, shown, strict=True):
            parts.append(text)
    return ["; ".join(parts) for parts in told]
