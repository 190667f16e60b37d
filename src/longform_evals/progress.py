"""Progress of long runs: model calls done and planned per phase (summarizing, judging).

A book takes dozens of summarizer calls and hundreds of judge calls, minutes apart on a CPU,
and Inspect's progress counts whole samples, so with one book nothing would move until the
end. Solvers and judges report here as they plan and finish calls; the counts show in
Inspect's task display (as counters, where the display has them) and `longform` commands
print them as they change (:func:`printing_progress`).

Counts are totals over the process's running samples; a phase's planned count grows as a
strategy learns more (merge levels, retries) and is never below the calls done.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from inspect_ai.hooks import Hooks, ModelUsageData, RunEnd, RunStart, hooks
from inspect_ai.util import display_counter


@dataclass
class _Phase:
    done: int = 0
    planned: int = 0


class ProgressBoard:
    """Calls done and planned per phase, safe to update from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._phases: dict[str, _Phase] = {}
        self.changes = 0
        """Bumped on every update, so a printer can tell whether anything moved."""

    def plan(self, phase: str, calls: int) -> None:
        """Add `calls` planned calls to `phase`."""
        self._update(phase, planned=calls)

    def done(self, phase: str, calls: int = 1) -> None:
        """Count `calls` finished calls of `phase`."""
        self._update(phase, done=calls)

    def _update(self, phase: str, done: int = 0, planned: int = 0) -> None:
        with self._lock:
            counts = self._phases.setdefault(phase, _Phase())
            counts.done += done
            counts.planned = max(counts.planned + planned, counts.done)
            self.changes += 1
            value = f"{counts.done}/{counts.planned}"
        with contextlib.suppress(Exception):  # no display outside an eval: nothing to show
            display_counter(f"{phase} calls", value)

    def line(self) -> str:
        """`summarizer 12/31 calls, judge 0/0 calls` (phases in order of first report);
        empty before any phase reports."""
        with self._lock:
            parts = [f"{name} {c.done}/{c.planned} calls" for name, c in self._phases.items()]
        return ", ".join(parts)

    def reset(self) -> None:
        """Forget every count (a new run in the same process)."""
        with self._lock:
            self._phases.clear()
            self.changes += 1


SUMMARIZER_PHASE = "summarizer"
JUDGE_PHASE = "judge"

BOARD = ProgressBoard()
"""The process's progress board."""


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


@contextlib.contextmanager
def printing_progress(
    interval: float = 5.0, quiet_interval: float = 60.0, stream: TextIO | None = None
) -> Iterator[ProgressBoard]:
    """Print the board's line with the elapsed time while the block runs.

    A line is printed at most every `interval` seconds when counts moved, and at least every
    `quiet_interval` seconds (so a long single call still shows the run is alive).
    """
    out = stream or sys.stderr
    BOARD.reset()
    USAGE.reset()
    started = time.monotonic()
    stop = threading.Event()

    def line() -> str:
        # every model call (Inspect's usage hook), then the phases that report their plans
        return "; ".join(part for part in (USAGE.line(), BOARD.line()) if part)

    def report() -> None:
        seen, last_print = (BOARD.changes, USAGE.calls), time.monotonic()
        while not stop.wait(interval):
            now = time.monotonic()
            moved = (BOARD.changes, USAGE.calls) != seen
            if moved or now - last_print >= quiet_interval:
                seen, last_print = (BOARD.changes, USAGE.calls), now
                print(f"[{_elapsed(now - started)}] {line()}", file=out, flush=True)

    _PRINTING.set()
    thread = threading.Thread(target=report, name="longform-progress", daemon=True)
    thread.start()
    try:
        yield BOARD
    finally:
        stop.set()
        thread.join()
        _PRINTING.clear()
        print(f"[{_elapsed(time.monotonic() - started)}] done: {line()}", file=out)


PLAIN_INTERVAL = 30.0
"""Seconds between progress lines of an `inspect eval` whose display draws no live progress
(`--display plain`, `log`, or output that is not a terminal); `LONGFORM_PROGRESS_INTERVAL`
sets it, 0 turns the lines off."""


def _plain_display() -> bool:
    """Whether Inspect's display shows nothing while a sample runs (and is not silenced)."""
    from inspect_ai.util import display_type

    kind = display_type()
    if kind in ("none", "conversation"):
        return False
    return kind in ("plain", "log") or not sys.stderr.isatty()


class _Usage:
    """Calls and tokens of the process's model calls (Inspect's usage hook), thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.tokens = 0

    def add(self, tokens: int) -> None:
        with self._lock:
            self.calls += 1
            self.tokens += tokens

    def line(self) -> str:
        with self._lock:
            return f"{self.calls:,} model calls, {self.tokens:,} tokens"

    def reset(self) -> None:
        with self._lock:
            self.calls = self.tokens = 0


USAGE = _Usage()
"""Every model call of the process while progress is shown (fed by :class:`PlainProgress`),
so a phase that reports no plan (a faithfulness judge, a rater) still shows it is working."""

_PRINTING = threading.Event()
"""Set while :func:`printing_progress` runs, so the usage hook counts calls for it."""


class PlainProgress(Hooks):
    """Progress lines for runs whose display shows none: every `PLAIN_INTERVAL` seconds, the
    elapsed time, model calls and tokens so far, and the phases' calls done and planned:

        [0:05:00] longform: 14 model calls, 52,310 tokens; summarizer 14/31 calls

    so a CI log or a `--display plain` run shows the book is being read, not hung."""

    def __init__(self) -> None:
        self.usage = USAGE
        self._stop: threading.Event | None = None

    def enabled(self) -> bool:
        # off where Inspect's display shows progress itself (and so unlisted in its banner),
        # unless a `longform` command prints progress lines itself
        return _PRINTING.is_set() or (_interval() > 0 and _plain_display())

    async def on_run_start(self, data: RunStart) -> None:
        if self._stop is not None or not (_interval() > 0 and _plain_display()):
            return
        self.usage.reset()
        stop = self._stop = threading.Event()
        started = time.monotonic()
        interval = _interval()

        def report() -> None:
            while not stop.wait(interval):
                elapsed = _elapsed(time.monotonic() - started)
                counts = "; ".join(part for part in (self.usage.line(), BOARD.line()) if part)
                print(
                    f"[{elapsed}] longform: {counts}",
                    file=sys.stderr,
                    flush=True,
                )

        threading.Thread(target=report, name="longform-plain-progress", daemon=True).start()

    async def on_model_usage(self, data: ModelUsageData) -> None:
        self.usage.add(data.usage.input_tokens + data.usage.output_tokens)

    async def on_run_end(self, data: RunEnd) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None


def _interval() -> float:
    raw = os.environ.get("LONGFORM_PROGRESS_INTERVAL")
    try:
        return PLAIN_INTERVAL if raw is None else max(0.0, float(raw))
    except ValueError:
        return PLAIN_INTERVAL


def register_plain_progress() -> type[PlainProgress]:
    """Register :class:`PlainProgress` with Inspect (the package's entry point calls this)."""
    return hooks(
        name="longform_progress",
        description="longform-evals: progress lines when the display shows none",
    )(PlainProgress)
