"""Per-position faithfulness curves from `positional_bias` logs, as a PNG.

The curve of a log is its `position_profile` metric (the mean, over samples, of each document
position's attribution-based faithfulness) with the metric's bootstrap interval per position
(`position_profile_pos_<i>_ci_low` / `_ci_high`, from
`longform_evals.analysis.intervals.bootstrap_interval`), read from the log's results: no
recomputation. One line per log, labelled by the log's `strategy` task argument, with the
intervals as error bars, so running the task once per strategy and plotting the logs together
shows the paper's U-curves side by side and whether their differences exceed the noise.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from inspect_ai.log import EvalLog

from longform_evals.log_store import resolve, write_bytes

_POSITION_KEY = re.compile(r"position_profile_pos_(\d+)(?:_ci_(low|high))?$")


class PositionCurve(list[float]):
    """Mean faithfulness per position (the list itself) with its interval bounds.

    A list, so callers that only want the means (the `longform plot-positions` command) take
    it as one; ``low``/``high`` are NaN where the log has no interval (a single sample, no
    attributed sentence, or a log written before intervals were reported).
    """

    def __init__(
        self, values: Iterable[float], low: Iterable[float], high: Iterable[float]
    ) -> None:
        super().__init__(values)
        self.low = list(low)
        self.high = list(high)
        if not len(self.low) == len(self.high) == len(self):
            raise ValueError("a curve needs one low and one high bound per position")


def position_curve(log: EvalLog, scorer: str = "faithfulness") -> PositionCurve:
    """Mean faithfulness per document position (NaN where no sentence was attributed), with
    its bootstrap interval."""
    if log.results is None:
        raise ValueError(f"log {log.location} has no results (did the eval finish?)")
    points: dict[str | None, dict[int, float]] = {None: {}, "low": {}, "high": {}}
    for score in log.results.scores:
        if score.name != scorer:
            continue
        for key, metric in score.metrics.items():
            match = _POSITION_KEY.search(key)
            if match:
                points[match.group(2)][int(match.group(1))] = metric.value
    if not points[None]:
        raise ValueError(
            f"log {log.location} has no position_profile metric for {scorer!r} "
            "(is it a positional_bias log?)"
        )
    positions = range(1, max(points[None]) + 1)
    means, low, high = ([part.get(i, math.nan) for i in positions] for part in points.values())
    return PositionCurve(means, low, high)


def curve_label(log: EvalLog) -> str:
    """The log's strategy (task argument), else its task name."""
    strategy = (log.eval.task_args or {}).get("strategy")
    return str(strategy) if strategy else log.eval.task


def _error_bars(values: Sequence[float]) -> tuple[list[float], list[float]] | None:
    """Distances from each mean down to its low and up to its high bound (0 where the
    interval is undefined: no bar); None for a curve without intervals."""
    if not isinstance(values, PositionCurve) or all(math.isnan(x) for x in values.low):
        return None

    def gap(a: float, b: float) -> float:
        return 0.0 if math.isnan(a) or math.isnan(b) else max(a - b, 0.0)

    return (
        [gap(v, lo) for v, lo in zip(values, values.low, strict=True)],
        [gap(hi, v) for v, hi in zip(values, values.high, strict=True)],
    )


def plot_position_curves(curves: Mapping[str, Sequence[float]], path: str | Path) -> str:
    """Write a PNG with one faithfulness-by-position line per label, a
    :class:`PositionCurve` with its intervals as error bars, to ``path`` (a file or a store
    URL); returns where it went."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plotting needs matplotlib: pip install 'longform-evals[plot]'") from exc
    out = resolve(str(path))
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, (label, values) in enumerate(curves.items()):
        # Shift each line a little sideways so that error bars at one position do not overlap.
        dodge = (k - (len(curves) - 1) / 2) * 0.05
        positions = [p + dodge for p in range(1, len(values) + 1)]
        # NaN leaves a gap, as in the paper.
        ax.errorbar(positions, values, yerr=_error_bars(values), marker="o", capsize=3, label=label)
    longest = max((len(v) for v in curves.values()), default=0)
    ax.set_xticks(list(range(1, longest + 1)))
    ax.set_xlabel("document position")
    ax.set_ylabel("faithfulness (attributed sentences, 95 % CI)")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=120)
    plt.close(fig)
    write_bytes(out, image.getvalue())
    return out
