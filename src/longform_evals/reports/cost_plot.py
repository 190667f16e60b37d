"""A task's headline metric against the evaluated model's tokens per sample (matplotlib).

One point per leaderboard row, with its 95 % interval as a bar and its model's name placed by
`label_placement` so that no two names overlap and no name covers a marker; names that fit
nowhere go to a numbered legend under the plot. The page embeds the figure as SVG with its
text drawn as paths, so the browser shows exactly the boxes that were measured. Cheaper and
better is up and to the left (down and to the left for a lower-is-better metric).
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from longform_evals.analysis.intervals import Interval
from longform_evals.reports.label_placement import Placement, place_labels
from longform_evals.reports.leaderboard import Row
from longform_evals.tasks.card import Headline

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

WIDTH_IN, HEIGHT_IN = 7.0, 3.6
MARGINS_IN = {"left": 0.75, "right": 0.2, "bottom": 0.55, "top": 0.15}
LEGEND_LINE_IN = 0.2
DPI = 72.0
"""Points are pixels: the layout measured is the layout the SVG shows."""
FONT = 8.0


@dataclass(frozen=True)
class CostPoint:
    """One row on the plot."""

    name: str
    tokens: float
    """Tokens processed per sample, cache reads included (`Row.tokens`)."""
    interval: Interval
    cache_read: float = 0.0
    """Of ``tokens``, those read from a prompt cache (shown apart in the point's title)."""


@dataclass
class CostFigure:
    """The figure, what is on it, and where each name went."""

    figure: Figure
    axes: Axes
    markers: list[Line2D]
    placement: Placement
    legend: list[str]


def cost_points(rows: Sequence[Row], metric: Headline) -> list[CostPoint]:
    """The rows with a value of ``metric`` and a token count (a log scale needs tokens > 0)."""
    return [
        CostPoint(r.model, r.tokens, r.metrics[metric.label], r.cache_read_tokens)
        for r in rows
        if metric.label in r.metrics
        and r.tokens > 0
        and not math.isnan(r.metrics[metric.label].value)
    ]


def _bounds(interval: Interval) -> tuple[float, float]:
    if interval.defined:
        return interval.low, interval.high
    return interval.value, interval.value


def _limits(points: Sequence[CostPoint]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis limits with room around the points for their names (x on a log scale)."""
    xs = [math.log10(p.tokens) for p in points]
    span = max(max(xs) - min(xs), 0.3)
    x_pad = 0.15 * span + 0.05
    lows, highs = zip(*(_bounds(p.interval) for p in points), strict=True)
    y0, y1 = min(lows), max(highs)
    y_span = y1 - y0 if y1 - y0 > 1e-9 else max(abs(y1), 1.0)
    y_pad = 0.15 * y_span
    return (10 ** (min(xs) - x_pad), 10 ** (max(xs) + x_pad)), (y0 - y_pad, y1 + y_pad)


def _figure() -> tuple[Figure, Axes, FigureCanvasAgg]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # A figure of its own canvas, not pyplot: no global state, safe to build in any thread.
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    canvas = FigureCanvasAgg(fig)
    fig.subplots_adjust(
        left=MARGINS_IN["left"] / WIDTH_IN,
        right=1 - MARGINS_IN["right"] / WIDTH_IN,
        bottom=MARGINS_IN["bottom"] / HEIGHT_IN,
        top=1 - MARGINS_IN["top"] / HEIGHT_IN,
    )
    return fig, fig.add_subplot(), canvas


def _describe(point: CostPoint) -> str:
    cached = f", {point.cache_read:,.0f} of them cache reads" if point.cache_read else ""
    return f"{point.interval.value:.1f} at {point.tokens:,.0f} tokens processed{cached}"


def _add_legend(fig: Figure, ax: Axes, lines: Sequence[str]) -> None:
    """Lines under the plot, in a strip added to the figure's bottom; the axes keep their size
    and place in inches, so every label keeps its place relative to its point."""
    width, height = fig.get_size_inches()
    extra = LEGEND_LINE_IN * len(lines) + 0.1
    box = ax.get_position()
    total = height + extra
    fig.set_size_inches(width, total)
    ax.set_position(
        (box.x0, (box.y0 * height + extra) / total, box.width, box.height * height / total)
    )
    for k, line in enumerate(lines):
        y = (extra - (k + 1) * LEGEND_LINE_IN) / total
        fig.text(box.x0, y, line, fontsize=FONT, gid=f"lf-legend-{k}")


def _tokens(v: float) -> str:
    """A tick's token count: whole above 100, else two significant digits (a handful of
    tokens would otherwise read 4, 4, 4)."""
    return f"{v:,.0f}" if v >= 100 else f"{v:.2g}"


def _token_ticks(ax: Axes, ratio: float) -> None:
    """Plain token counts on the log axis: evenly spaced ticks within a decade, 1-2-5 steps
    across decades (the default 10^n labels say little about a narrow range)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator

    if ratio < 10:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    else:
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _tokens(v)))


def cost_figure(points: Sequence[CostPoint], metric_label: str) -> CostFigure:
    """The plot of ``points``, each named where its name fits (see module doc)."""
    fig, ax, canvas = _figure()
    (x0, x1), (y0, y1) = _limits(points)
    ax.set_xscale("log")
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_autoscale_on(False)  # leader lines drawn later must not move the placed labels
    ax.set_xlabel(
        "tokens the evaluated model processed per sample, cache reads included (log scale)",
        fontsize=FONT + 1,
    )
    ax.set_ylabel(f"{metric_label} (95 % CI)", fontsize=FONT + 1)
    ax.tick_params(labelsize=FONT)
    _token_ticks(ax, x1 / x0)
    ax.grid(alpha=0.25)
    markers, bars = [], []
    for i, p in enumerate(points):
        low, high = _bounds(p.interval)
        [bar] = ax.plot(
            [p.tokens, p.tokens], [low, high], color="#9ca3af", linewidth=1, gid=f"lf-ci-{i}"
        )
        [marker] = ax.plot(
            [p.tokens],
            [p.interval.value],
            "o",
            color="#2563eb",
            ms=6,
            zorder=3,
            gid=f"lf-point-{i}",
        )
        bars.append(bar)
        markers.append(marker)
    placement = place_labels(
        ax,
        canvas.get_renderer(),  # type: ignore[no-untyped-call]  # unannotated in matplotlib
        [(p.tokens, p.interval.value) for p in points],
        [p.name for p in points],
        markers,
        soft=bars,
        fontsize=FONT,
    )
    legend = [
        f"{number}: {points[i].name}, {_describe(points[i])}"
        for i, (number, _) in sorted(placement.numbered.items(), key=lambda kv: kv[1][0])
    ]
    legend += [
        f"not marked (no room): {points[i].name}, {_describe(points[i])}"
        for i in placement.unmarked
    ]
    if legend:
        _add_legend(fig, ax, legend)
    return CostFigure(fig, ax, markers, placement, legend)


def _svg(fig: Figure, salt: str) -> str:
    """The figure as an SVG element to inline (no XML prologue), the same bytes each time."""
    import matplotlib

    buffer = io.StringIO()
    # The salt keeps the element ids of two plots on one page apart.
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def cost_plot_svg(rows: Sequence[Row], metric: Headline, key: str) -> str:
    """The plot for the page: inline SVG, each point titled with its name, value and tokens;
    a note instead when nothing can be plotted or matplotlib is missing.

    Args:
        rows: The variant's rows.
        metric: The metric on the y axis.
        key: Unique on the page (the variant's anchor), to keep element ids apart.
    """
    points = cost_points(rows, metric)
    if not points:
        return f'<p class="noplot">No {html.escape(metric.label)} with token counts to plot.</p>'
    try:
        made = cost_figure(points, metric.label)
    except ImportError:
        return (
            '<p class="noplot">The cost plot needs matplotlib: '
            'pip install "longform-evals[leaderboard]"</p>'
        )
    svg = _svg(made.figure, key)
    about = f"{html.escape(metric.label)} against tokens per sample"
    svg = svg.replace("<svg ", f'<svg class="frontier" role="img" aria-label="{about}" ', 1)

    def titled(match: re.Match[str]) -> str:
        p = points[int(match.group(1))]
        return (
            f'<g id="lf-point-{match.group(1)}" class="point">'
            f"<title>{html.escape(p.name)}: {_describe(p)}</title>"
        )

    return re.sub(r'<g id="lf-point-(\d+)">', titled, svg)
