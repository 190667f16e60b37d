"""Per-position faithfulness curves from `positional_bias` logs, as a PNG.

The curve of a log is its `position_profile` metric (the mean, over samples, of each document
position's attribution-based faithfulness), read from the log's results: no recomputation.
One line per log, labelled by the log's `strategy` task argument, so running the task once per
strategy and plotting the logs together shows the paper's U-curves side by side.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from inspect_ai.log import EvalLog

_POSITION_KEY = re.compile(r"position_profile_pos_(\d+)$")


def position_curve(log: EvalLog, scorer: str = "faithfulness") -> list[float]:
    """Mean faithfulness per document position (NaN where no sentence was attributed)."""
    if log.results is None:
        raise ValueError(f"log {log.location} has no results (did the eval finish?)")
    points: dict[int, float] = {}
    for score in log.results.scores:
        if score.name != scorer:
            continue
        for key, metric in score.metrics.items():
            match = _POSITION_KEY.search(key)
            if match:
                points[int(match.group(1))] = metric.value
    if not points:
        raise ValueError(
            f"log {log.location} has no position_profile metric for {scorer!r} "
            "(is it a positional_bias log?)"
        )
    return [points.get(i, math.nan) for i in range(1, max(points) + 1)]


def curve_label(log: EvalLog) -> str:
    """The log's strategy (task argument), else its task name."""
    strategy = (log.eval.task_args or {}).get("strategy")
    return str(strategy) if strategy else log.eval.task


def plot_position_curves(curves: dict[str, list[float]], path: str | Path) -> Path:
    """Write a PNG with one faithfulness-by-position line per label; returns the path."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plotting needs matplotlib: pip install 'longform-evals[plot]'") from exc
    out = Path(path)
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, values in curves.items():
        positions = list(range(1, len(values) + 1))
        ax.plot(positions, values, marker="o", label=label)  # NaN leaves a gap, as in the paper
    longest = max((len(v) for v in curves.values()), default=0)
    ax.set_xticks(list(range(1, longest + 1)))
    ax.set_xlabel("document position")
    ax.set_ylabel("faithfulness (attributed sentences)")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
