"""What a leaderboard page says was run, so a figure taken from it can be cited: the plans,
the run dates, the package and task versions and the data of every column.

Each row carries its log's `RunIdentity`; the page's first lines sum them up, each overview
column names its data and task version, and every JSON row and CSV line carries its own.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime
from pathlib import PurePath
from typing import Any

from longform_evals.reports.leaderboard import AD_HOC, Leaderboard, Row, RunIdentity

PACKAGES = ("longform-evals", "inspect_ai")
"""The packages whose versions the page names (as Inspect records them in each log)."""


def _joined(values: Sequence[str]) -> str:
    return ", ".join(dict.fromkeys(v for v in values if v)) or "unknown"


def _day(stamp: str) -> str:
    """`2026-12-07 04:34 UTC` of an ISO time (the text itself where it is not one)."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    zone = moment.strftime("%Z") or "local time"
    return f"{moment:%Y-%m-%d %H:%M} {zone}"


def _identities(rows: Sequence[Row]) -> list[RunIdentity]:
    return [r.identity for r in rows if r.identity is not None]


def summary(board: Leaderboard) -> dict[str, Any]:
    """The page's identity: plans, first start and last end, versions of each package."""
    found = _identities(board.rows)
    starts = sorted(i.started for i in found if i.started)
    ends = sorted(i.completed for i in found if i.completed)
    return {
        "plans": list(dict.fromkeys(i.plan for i in found)) or [AD_HOC],
        "first_started_at": starts[0] if starts else None,
        "last_completed_at": ends[-1] if ends else None,
        "versions": {
            package: list(
                dict.fromkeys(i.versions[package] for i in found if package in i.versions)
            )
            for package in PACKAGES
        },
    }


def data_text(data: dict[str, Any]) -> str:
    """`quality_fixture.jsonl (sha256 1a2b3c4d5e6f), 6 items` or `emozilla/quality @ main,
    validation, 230 items`."""
    if data.get("sha256") or data.get("name") or data.get("path"):
        named = str(data.get("name") or PurePath(str(data["path"])).name)
        digest = f" (sha256 {str(data['sha256'])[:12]})" if data.get("sha256") else ""
        where = named + digest
    elif data.get("dataset"):
        parts = [str(data["dataset"])]
        if data.get("revision"):
            parts[0] += f" @ {data['revision']}"
        if data.get("split"):
            parts.append(str(data["split"]))
        where = ", ".join(parts)
    else:
        where = "data not recorded"
    items = data.get("items")
    if not isinstance(items, int):
        return where
    return f"{where}, {items} item{'' if items == 1 else 's'}"


def column_text(rows: Sequence[Row]) -> str:
    """One overview column's data and task version (every distinct one of its rows)."""
    found = _identities(rows)
    data = _joined([data_text(i.data) for i in found])
    versions = _joined([i.task_version for i in found])
    return f"data: {data}; task version {versions}"


def summary_html(board: Leaderboard) -> str:
    """The lines under the page's title."""
    facts = summary(board)
    start, end = facts["first_started_at"], facts["last_completed_at"]
    when = f"{_day(start)} to {_day(end)}" if start and end else "unknown"
    versions = "; ".join(
        f"{package} {_joined(found)}" for package, found in facts["versions"].items()
    )
    lines = [
        f"<b>Plan</b>: {html.escape(', '.join(facts['plans']))}",
        f"<b>Runs</b>: {html.escape(when)}",
        f"<b>Versions</b>: {html.escape(versions)}",
    ]
    return '<p class="identity" id="identity">' + " &#183; ".join(lines) + "</p>"


def summary_markdown(board: Leaderboard) -> list[str]:
    facts = summary(board)
    versions = "; ".join(
        f"{package} {_joined(found)}" for package, found in facts["versions"].items()
    )
    return [
        f"Plan: {', '.join(facts['plans'])}",
        f"Runs: {facts['first_started_at'] or 'unknown'} to "
        f"{facts['last_completed_at'] or 'unknown'}",
        f"Versions: {versions}",
        "",
    ]


def row_fields(row: Row) -> dict[str, Any]:
    """A CSV line's identity columns."""
    found = row.identity
    if found is None:
        return dict.fromkeys(CSV_FIELDS, "")
    data = found.data
    return {
        "plan": found.plan,
        "plan_variant": found.plan_variant or "",
        "started_at": found.started,
        "completed_at": found.completed,
        "longform_evals_version": found.versions.get("longform-evals", ""),
        "inspect_ai_version": found.versions.get("inspect_ai", ""),
        "task_version": found.task_version,
        "data": data.get("name") or data.get("dataset") or data.get("path") or "",
        "data_sha256": data.get("sha256", ""),
        "data_revision": data.get("revision", ""),
        "split": data.get("split", ""),
        "items": data.get("items", ""),
    }


CSV_FIELDS = (
    "plan",
    "plan_variant",
    "started_at",
    "completed_at",
    "longform_evals_version",
    "inspect_ai_version",
    "task_version",
    "data",
    "data_sha256",
    "data_revision",
    "split",
    "items",
)
