"""The leaderboard written out: markdown (for a terminal or a note), CSV, JSON, one HTML page.

The HTML page is one file with no outside resources. First the overview, models by task with
each task's headline figure and rank (`leaderboard_overview.py`); then a sortable table per
task variant (click a header) with its score-versus-tokens plot (`cost_plot.py`, inline SVG:
the cost-quality frontier, cheaper and better up and to the left), each row's model and score
cells linking to its log in ``inspect view`` and its judge card cell to the card, which the
page's last section holds (`leaderboard_judge_cards.py`).
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from longform_evals.log_store import join, relative_to, resolve, write_text
from longform_evals.reports.cost_plot import cost_plot_svg
from longform_evals.reports.leaderboard import Leaderboard, Row
from longform_evals.reports.leaderboard_format import interval_text, number, rank_cell, td
from longform_evals.reports.leaderboard_identity import (
    CSV_FIELDS,
    column_text,
    row_fields,
    summary,
    summary_html,
    summary_markdown,
)
from longform_evals.reports.leaderboard_judge_cards import (
    Cards,
    card_link,
    cards_section,
    page_cards,
)
from longform_evals.reports.leaderboard_overview import overview_html, variant_anchor
from longform_evals.tasks.card import Headline

VIEW_URL = "http://127.0.0.1:7575/#/logs/"
"""Where ``inspect view --log-dir <folder>`` shows a log of that folder."""


def _sorted(board: Leaderboard, variant: str) -> list[Row]:
    """Rows of ``variant``: by judge, then rank and value of the first metric, then model."""
    rows = [r for r in board.rows if r.variant == variant]
    shown = board.metrics.get(variant) or []
    if not shown:
        return sorted(rows, key=lambda r: r.model)
    first = shown[0]

    def key(r: Row) -> tuple[str, int, float, str]:
        interval = r.metrics.get(first.label)
        value = interval.value if interval else math.nan
        order = -value if first.higher_is_better else value
        return (
            str(r.judge),
            r.ranks.get(first.label, 10**6),
            math.inf if math.isnan(order) else order,
            r.model,
        )

    return sorted(rows, key=key)


COST_HEADERS = [
    "in tok/sample",
    "out tok/sample",
    "cache read/sample",
    "judge tok/sample",
    "calls/sample",
    "judge calls/sample",
    "wall s",
]


def _cost_cells(row: Row) -> list[str]:
    return [
        number(row.input_tokens, 0),
        number(row.output_tokens, 0),
        number(row.cache_read_tokens, 0),
        number(row.judge_tokens, 0),
        number(row.calls, 1),
        number(row.judge_calls, 1),
        number(row.wall_seconds, 0),
    ]


def to_markdown(board: Leaderboard) -> str:
    """One table per task variant; intervals are 95 % bootstrap intervals over samples."""
    out: list[str] = summary_markdown(board)
    for variant in board.variants():
        metrics = board.metrics.get(variant, [])
        out.append(f"### {variant}\n")
        out.append(column_text([r for r in board.rows if r.variant == variant]) + "\n")
        headers = [
            "rank",
            "model",
            *[f"{m.label} [95 % CI]" for m in metrics],
            "N",
            "missing",
            "flags",
            "judge",
            "judge mode",
            "judge card",
            "parse fail %",
            *COST_HEADERS,
        ]
        out.append("| " + " | ".join(headers) + " |")
        out.append("|" + "---|" * len(headers))
        for row in _sorted(board, variant):
            first = metrics[0].label if metrics else None
            rank = rank_cell(row, first, board)
            n = max((i.n for i in row.metrics.values()), default=0)
            missing = max(row.missing.values(), default=row.errors)
            cells = [
                rank,
                row.model,
                *[interval_text(row, m) for m in metrics],
                str(n),
                str(missing),
                ", ".join(row.flags) or "-",
                str(row.judge or "none"),
                str(row.judge_mode or "-"),
                row.judge_card.replace("|", "\\|"),
                number(100 * row.parse_failure_rate),
                *_cost_cells(row),
            ]
            out.append("| " + " | ".join(cells) + " |")
        judges = {r.judge_quality for r in board.rows if r.variant == variant}
        out.append("")
        out.extend(f"judge quality: {q}" for q in sorted(judges))
        out.append("")
    if board.notes:
        out.extend(f"note: {n}" for n in board.notes)
        out.append("")
    if board.skipped:
        out.append("skipped logs:")
        out.extend(f"- {Path(log).name}: {why}" for log, why in board.skipped)
        out.append("")
    out.append(
        "Ranks: 1 + the rows clearly better (paired bootstrap of the difference over shared "
        "samples excludes 0); rows that cannot be told apart share a rank. Rows with different "
        "judges are not ranked against each other."
    )
    return "\n".join(out) + "\n"


def _row_record(row: Row, metrics: list[Headline]) -> dict[str, Any]:
    return {
        "model": row.model,
        "variant": row.variant,
        "task": row.task,
        "judge": row.judge,
        "judge_mode": row.judge_mode,
        "judge_quality": row.judge_quality,
        "judge_card": row.judge_card,
        "judge_card_name": row.judge_card_names[0] if row.judge_card_names else None,
        "self_judged": row.self_judged,
        "status": row.status,
        "partial": row.partial,
        "flags": row.flags,
        "samples": row.samples,
        "planned": row.planned,
        "errors": row.errors,
        "budget_refused": row.budget_refused,
        "parse_failure_rate": row.parse_failure_rate,
        "metrics": {
            m.label: {
                **row.metrics[m.label].as_dict(),
                "missing": row.missing.get(m.label, 0),
                "rank": row.ranks.get(m.label),
                "higher_is_better": m.higher_is_better,
            }
            for m in metrics
            if m.label in row.metrics
        },
        "tokens_per_sample": {
            "input": row.input_tokens,
            "output": row.output_tokens,
            "cache_read": row.cache_read_tokens,
            "judge": row.judge_tokens,
        },
        "calls_per_sample": row.calls,
        "judge_calls_per_sample": row.judge_calls,
        "steps_per_sample": row.steps,
        "wall_seconds": row.wall_seconds,
        "log": row.log,
        "identity": row.identity.as_dict() if row.identity else None,
    }


def _clean(x: Any) -> Any:
    """JSON has no NaN: write null."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def to_json(board: Leaderboard) -> str:
    records = [_row_record(r, board.metrics.get(r.variant, [])) for r in board.rows]
    payload = {
        "rows": records,
        "notes": board.notes,
        "skipped": [{"log": log, "reason": why} for log, why in board.skipped],
        "confidence": 0.95,
        "identity": summary(board),
    }
    return json.dumps(_clean(payload), indent=2) + "\n"


def to_csv(board: Leaderboard) -> str:
    """One line per row and metric (long format), cost columns repeated."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        [
            "variant", "model", "metric", "value", "ci_low", "ci_high", "n", "missing", "rank",
            "judge", "judge_mode", "judge_card", "parse_failure_rate", "partial",
            "input_tokens_per_sample",
            "output_tokens_per_sample", "cache_read_tokens_per_sample", "judge_tokens_per_sample",
            "calls_per_sample", "judge_calls_per_sample", "wall_seconds", "log", *CSV_FIELDS,
        ]
    )  # fmt: skip
    for row in board.rows:
        for metric in board.metrics.get(row.variant, []):
            interval = row.metrics.get(metric.label)
            if interval is None:
                continue
            writer.writerow(
                [
                    row.variant, row.model, metric.label, interval.value, interval.low,
                    interval.high, interval.n, row.missing.get(metric.label, 0),
                    row.ranks.get(metric.label, ""), row.judge or "", row.judge_mode or "",
                    row.judge_card, row.parse_failure_rate, row.partial, row.input_tokens,
                    row.output_tokens, row.cache_read_tokens, row.judge_tokens, row.calls,
                    row.judge_calls, row.wall_seconds, row.log, *row_fields(row).values(),
                ]
            )  # fmt: skip
    return buffer.getvalue()


_SCRIPT = """
document.querySelectorAll("table.board").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.from(body.rows);
      var asc = th.getAttribute("data-order") !== "asc";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-order"); });
      th.setAttribute("data-order", asc ? "asc" : "desc");
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-value");
        var y = b.cells[col].getAttribute("data-value");
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.body.setAttribute("data-ready", "yes");
"""

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
div.scroll { overflow-x: auto; max-width: 100%; }
table.board { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
table.board th, table.board td { border: 1px solid #ccc; padding: 4px 6px; text-align: right; }
table.board td { white-space: nowrap; }
table.board th { background: #f3f4f6; cursor: pointer; user-select: none; }
table.board th[data-order=asc]::after { content: " \\25B2"; }
table.board th[data-order=desc]::after { content: " \\25BC"; }
table.board td.text { text-align: left; }
td.flag { color: #b91c1c; }
.note, .skipped { color: #555; }
p.identity { font-size: 15px; }
table.overview { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
table.overview th, table.overview td { border: 1px solid #ccc; padding: 6px 10px; }
table.overview thead th { background: #f3f4f6; text-align: left; vertical-align: bottom; }
table.overview th.model { background: #f9fafb; text-align: left; }
table.overview td { text-align: right; vertical-align: top; }
table.overview td.best { background: #ecfdf5; }
table.overview td.missing { color: #6b7280; background: repeating-linear-gradient(
  45deg, #fafafa, #fafafa 6px, #f0f0f0 6px, #f0f0f0 12px); text-align: center; }
table.overview .sub, table.overview .rank { font-size: 12px; color: #555; }
table.overview .flag { font-size: 12px; color: #b91c1c; }
section.judge-card pre { white-space: pre-wrap; font-size: 12px; background: #f9fafb;
  padding: 8px; }
svg.frontier { max-width: 100%; height: auto; }
"""


def _html_variant(board: Leaderboard, index: int, cards: Cards, log_dir: str) -> list[str]:
    """The ``index``-th variant's section: its table, its judges' quality and its cost plot."""
    variant = board.variants()[index]
    anchor = variant_anchor(index, variant)
    metrics = board.metrics.get(variant, [])
    rows = _sorted(board, variant)
    body = [
        f'<h2 id="{anchor}">{html.escape(variant)}</h2>',
        f'<p class="note">{html.escape(column_text(rows))}</p>',
    ]
    # flags next to the figures they qualify, so a narrow window shows them
    headers = [
        "rank", "model", *[f"{m.label} [95 % CI]" for m in metrics], "N", "flags", "judge",
        "judge mode", "judge card", "parse fail %", *COST_HEADERS,
    ]  # fmt: skip
    # a wide table scrolls inside its box instead of running off the page
    body.append('<div class="scroll"><table class="board"><thead><tr>')
    body.extend(f"<th>{html.escape(h)}</th>" for h in headers)
    body.append("</tr></thead><tbody>")
    body.extend(_html_row(board, row, metrics, cards, log_dir) for row in rows)
    body.append("</tbody></table></div>")
    qualities = sorted({r.judge_quality for r in rows})
    body.extend(f'<p class="note">judge quality: {html.escape(q)}</p>' for q in qualities)
    for metric in metrics[:1]:
        body.append(f"<h3>{html.escape(metric.label)} against cost</h3>")
        body.append(cost_plot_svg(rows, metric, anchor))
    return body


def _html_row(
    board: Leaderboard, row: Row, metrics: Sequence[Headline], cards: Cards, log_dir: str
) -> str:
    """One table row; the model's name and its figures link to its log."""
    first = metrics[0].label if metrics else None
    rank = row.ranks.get(first) if first else None
    # the viewer names a log by its path below the folder it shows (a cell's subfolder too)
    href = f"{VIEW_URL}{html.escape(quote(relative_to(row.log, log_dir)))}"

    def link(text: str) -> str:
        return f'<a href="{href}" title="{html.escape(row.log)}">{html.escape(text)}</a>'

    cells = [td(rank_cell(row, first, board), rank), td(link(row.model), row.model, "text")]
    for m in metrics:
        interval = row.metrics.get(m.label)
        cells.append(td(link(interval_text(row, m)), interval.value if interval else None))
    n = max((i.n for i in row.metrics.values()), default=0)
    costs = [
        row.input_tokens,
        row.output_tokens,
        row.cache_read_tokens,
        row.judge_tokens,
        row.calls,
        row.judge_calls,
        row.wall_seconds,
    ]
    cells += [
        td(str(n), n),
        td(
            html.escape(", ".join(row.flags) or "-"),
            ", ".join(row.flags),
            "text flag" if row.flags else "text",
        ),
        td(html.escape(str(row.judge or "none")), row.judge, "text"),
        td(html.escape(str(row.judge_mode or "-")), row.judge_mode, "text"),
        td(card_link(row, cards), row.judge_card, "text"),
        td(number(100 * row.parse_failure_rate), row.parse_failure_rate),
        *[td(text, v) for text, v in zip(_cost_cells(row), costs, strict=True)],
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def to_html(board: Leaderboard, log_dir: str | Path) -> str:
    """The page; model cells link to the log in ``inspect view --log-dir log_dir``."""
    body = [
        "<h1>Leaderboard</h1>",
        summary_html(board),
        f'<p class="note">Logs: {html.escape(str(log_dir))}. Open a model\'s log by starting '
        f"<code>inspect view --log-dir {html.escape(str(log_dir))}</code> and clicking its "
        "name. Intervals are 95 % bootstrap intervals over samples; rows that cannot be told "
        "apart share a rank; rows judged by different judges are not ranked together.</p>",
    ]
    cards = page_cards(board.rows)
    body += overview_html(board, cards)
    for index in range(len(board.variants())):
        body += _html_variant(board, index, cards, str(log_dir))
    body.extend(f'<p class="note">{html.escape(n)}</p>' for n in board.notes)
    if board.skipped:
        body.append('<h2>Skipped logs</h2><ul class="skipped">')
        body.extend(
            f"<li>{html.escape(Path(log).name)}: {html.escape(why)}</li>"
            for log, why in board.skipped
        )
        body.append("</ul>")
    body += cards_section(cards)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>longform-evals leaderboard</title><style>{_STYLE}</style></head><body>"
        + "\n".join(body)
        + f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_all(board: Leaderboard, out_dir: str | Path, log_dir: str | Path) -> list[str]:
    """Write leaderboard.md, .csv, .json and .html into ``out_dir`` (a local folder or a store
    URL); return where they went.

    Raises:
        StoreError: When a file cannot be written there; the message names it.
    """
    folder = resolve(str(out_dir))
    files = {
        "leaderboard.md": to_markdown(board),
        "leaderboard.csv": to_csv(board),
        "leaderboard.json": to_json(board),
        "leaderboard.html": to_html(board, log_dir),
    }
    written = []
    for name, text in files.items():
        location = join(folder, name)
        write_text(location, text)
        written.append(location)
    return written
