"""How a leaderboard figure is written: the one text of a cell, shared by every table.

The overview matrix and the per-task tables both call :func:`interval_text` on the same
``Row.metrics`` entry, so a number reads the same wherever the page shows it.
"""

from __future__ import annotations

import html
import math
from typing import Any

from longform_evals.reports.leaderboard import Leaderboard, Row, rank_group
from longform_evals.tasks.card import Headline


def number(x: float | None, digits: int = 1) -> str:
    """``x`` with thousands separators, `-` for a missing value."""
    return "-" if x is None or math.isnan(x) else f"{x:,.{digits}f}"


def interval_text(row: Row, metric: Headline) -> str:
    """The metric's value with its 95 % interval, or with its N where there is no interval."""
    interval = row.metrics.get(metric.label)
    if interval is None:
        return "-"
    if not interval.defined:
        return f"{number(interval.value)} (n={interval.n})"
    return f"{number(interval.value)} [{number(interval.low)}, {number(interval.high)}]"


def td(text: str, value: Any, cls: str = "") -> str:
    """A table cell holding already escaped ``text``; ``value`` is what the column sorts on."""
    attr = f' class="{cls}"' if cls else ""
    shown = "" if value is None else str(value)
    return f'<td{attr} data-value="{html.escape(shown)}">{text}</td>'


def rank_cell(row: Row, metric: str | None, board: Leaderboard) -> str:
    """A row's rank on ``metric``: `2`, `1, tied` where another row of its variant and judge
    shares it (they cannot be told apart), `-` without one."""
    rank = row.ranks.get(metric) if metric else None
    if metric is None or rank is None:
        return "-"
    same = [
        r
        for r in board.rows
        if r.variant == row.variant
        and rank_group(r) == rank_group(row)
        and r.ranks.get(metric) == rank
    ]
    return f"{rank}, tied" if len(same) > 1 else str(rank)
