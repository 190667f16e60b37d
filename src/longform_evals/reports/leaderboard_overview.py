"""The overview at the top of the leaderboard page: models (rows) by tasks (columns).

A cell is one leaderboard row seen from above: the first headline metric of its task variant
with its interval, written by the same `interval_text` from the same `Row.metrics` entry as the
variant's table below, and the row's rank from `Row.ranks` (computed once, in
`reports/leaderboard.py`). Nothing is recomputed here. A variant whose rows were judged by
several judges gets one column per judge, because ranks are only ever shared among rows of
one judge (`rank_group`). A model without a run of a variant gets a marked empty cell.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from longform_evals.reports.leaderboard import Leaderboard, Row, rank_group
from longform_evals.reports.leaderboard_format import interval_text
from longform_evals.reports.leaderboard_identity import column_text
from longform_evals.reports.leaderboard_judge_cards import Cards, card_href, shown_card
from longform_evals.tasks.card import Headline

NOT_RUN = "not run"
NO_VALUE = "no value"


@dataclass(frozen=True)
class Column:
    """One variant (and judge, where the variant has several) of the overview."""

    variant: str
    anchor: str
    """The id of the variant's section on the page."""
    metric: Headline | None
    """Its first headline metric, the one its table ranks by (None: no metric has a value)."""
    judge: str | None
    split: bool
    """The variant has rows of other judges too, in columns of their own."""
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Cell:
    """A model's figure in a column; ``row`` is None where the model has no run of it."""

    row: Row | None
    rank: int | None = None
    ranked: int = 0
    """Rows of the column with a rank."""
    tied: bool = False
    """Another row of the column has the same rank: they cannot be told apart."""


def variant_anchor(index: int, variant: str) -> str:
    """A page id for the ``index``-th variant (the number keeps similar names apart)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", variant).strip("-").lower()
    return f"task-{index + 1}-{slug}" if slug else f"task-{index + 1}"


def columns(board: Leaderboard) -> list[Column]:
    """The overview's columns, in the page's order of variants, then by judge."""
    out = []
    for index, variant in enumerate(board.variants()):
        rows = [r for r in board.rows if r.variant == variant]
        shown = board.metrics.get(variant) or []
        groups = sorted({rank_group(r) for r in rows})
        for group in groups:
            same = tuple(r for r in rows if rank_group(r) == group)
            out.append(
                Column(
                    variant=variant,
                    anchor=variant_anchor(index, variant),
                    metric=shown[0] if shown else None,
                    judge=same[0].judge,
                    split=len(groups) > 1,
                    rows=same,
                )
            )
    return out


def models(board: Leaderboard) -> list[str]:
    """The overview's rows: every model with a run, by name."""
    return sorted({r.model for r in board.rows})


def cell(column: Column, model: str) -> Cell:
    """The model's cell of ``column``, its rank and ties read from the rows' ranks."""
    row = next((r for r in column.rows if r.model == model), None)
    if row is None or column.metric is None:
        return Cell(row)
    label = column.metric.label
    ranks = [r.ranks[label] for r in column.rows if label in r.ranks]
    rank = row.ranks.get(label)
    return Cell(row, rank, len(ranks), rank is not None and ranks.count(rank) > 1)


def rank_text(column: Column, found: Cell) -> str:
    """`rank 1 of 3`, `rank 2 of 3, tied`, or why there is no rank."""
    if found.rank is not None:
        return f"rank {found.rank} of {found.ranked}" + (", tied" if found.tied else "")
    if column.metric is not None and not column.metric.per_sample:
        return "not ranked (a whole-run figure)"
    return "not ranked"


def _header(column: Column, cards: Cards) -> str:
    parts = [f'<a href="#{column.anchor}">{html.escape(column.variant)}</a>']
    if column.metric is not None:
        arrow = "higher is better" if column.metric.higher_is_better else "lower is better"
        parts.append(f'<span class="sub">{html.escape(column.metric.label)} ({arrow})</span>')
    parts.append(f'<span class="sub data">{html.escape(column_text(column.rows))}</span>')
    if column.judge is not None:
        judge = f"judged by {html.escape(column.judge)}"
        names = [n for n in dict.fromkeys(shown_card(r) for r in column.rows) if n in cards]
        links = [f'<a class="card" href="{card_href(str(n))}">judge card</a>' for n in names]
        judge += f" ({', '.join(links)})" if links else " (no judge card)"
        parts.append(f'<span class="sub judge">{judge}</span>')
    return "<th>" + "<br>".join(parts) + "</th>"


def _cell_html(column: Column, found: Cell) -> str:
    if found.row is None:
        return (
            f'<td class="missing" data-missing="{NOT_RUN}" '
            f'title="no log of this model on this task">&#8212; {NOT_RUN}</td>'
        )
    row, metric = found.row, column.metric
    if metric is None or metric.label not in row.metrics:
        flags = ", ".join(row.flags)
        extra = f' <span class="flag">{html.escape(flags)}</span>' if flags else ""
        return (
            f'<td class="missing" data-missing="{NO_VALUE}" title="a run without a value of '
            f'this metric">&#8212; {NO_VALUE}{extra}</td>'
        )
    # marked best only when no other row shares its rank (one it cannot be told apart from)
    best = ' class="best"' if found.rank == 1 and not found.tied else ""
    lines = [
        f'<a href="#{column.anchor}" class="figure">{html.escape(interval_text(row, metric))}</a>',
        f'<span class="rank">{html.escape(rank_text(column, found))}</span>',
    ]
    if row.flags:
        lines.append(f'<span class="flag">{html.escape(", ".join(row.flags))}</span>')
    return f"<td{best}>" + "<br>".join(lines) + "</td>"


def overview_html(board: Leaderboard, cards: Cards) -> list[str]:
    """The overview section: a heading, how to read it, and the matrix."""
    shown = columns(board)
    body = [
        '<h2 id="overview">Overview: models by task</h2>',
        '<p class="note">Each cell is the task\'s headline metric with its 95 % interval, '
        "the same figure as in the task's table below (click it to go there), and the "
        "model's rank on that task: 1 + the models clearly better, among models judged by "
        "the same judge; <em>tied</em> means it shares its rank with a model it cannot be "
        "told apart from. A shaded cell is the one best model: ranked first and told apart "
        f"from every other. <em>&#8212; {NOT_RUN}</em>: no log of that model on that task. "
        "Models are listed by name.</p>",
        '<table class="overview"><thead><tr><th>model</th>',
        *(_header(c, cards) for c in shown),
        "</tr></thead><tbody>",
    ]
    for model in models(board):
        cells = "".join(_cell_html(c, cell(c, model)) for c in shown)
        body.append(f'<tr><th class="model" scope="row">{html.escape(model)}</th>{cells}</tr>')
    body.append("</tbody></table>")
    return body
