"""Progress of long runs: model calls made, per phase (summarizing, judging), and tokens.

A book takes dozens of summarizer calls and hundreds of judge calls, minutes apart on a CPU,
and Inspect's progress counts whole samples, so with one book nothing would move until the
end. Solvers and judges report here as they announce and finish calls; the counts show in
Inspect's task display (as counters, where the display has them) and as progress lines.

A run's total is not known in advance (a strategy learns its merge levels as it goes, a judge
retries unreadable answers, samples start one after another), so no count is shown as a
fraction of a total: a phase shows the calls it made (a running count) and, apart, the calls
announced and not yet made (`queued`), which goes up and down.

One printer writes the lines, in one format, at most one per interval::

    [0:05:00] longform: 14 model calls, 52,310 tokens; summarizer 14 calls (17 queued)
    [0:09:40] longform: done, 33 model calls, 14,417 tokens; summarizer 31 calls, judge 2 calls

A `longform` command starts it for its whole run (:func:`printing_progress`); otherwise the
package's Inspect hook (:class:`PlainProgress`) starts it for a run whose display draws no
live progress. Never both.
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

LINE_PREFIX = "longform: "
"""What every progress line says after its elapsed time (`[0:05:00] longform: ...`)."""
DONE = "done, "
"""What the last line of a command's run says first, after :data:`LINE_PREFIX`."""


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


@dataclass
class _Phase:
    done: int = 0
    planned: int = 0

    def text(self) -> str:
        """`13 calls (3 queued)`; `13 calls` when nothing announced is left."""
        queued = self.planned - self.done
        return _count(self.done, "call") + (f" ({queued:,} queued)" if queued > 0 else "")


class ProgressBoard:
    """Calls made and announced per phase, safe to update from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._phases: dict[str, _Phase] = {}
        self.changes = 0
        """Bumped on every update, so a printer can tell whether anything moved."""

    def plan(self, phase: str, calls: int) -> None:
        """Announce `calls` more calls of `phase` (shown as queued until made)."""
        self._update(phase, planned=calls)

    def done(self, phase: str, calls: int = 1) -> None:
        """Count `calls` finished calls of `phase`."""
        self._update(phase, done=calls)

    def _update(self, phase: str, done: int = 0, planned: int = 0) -> None:
        with self._lock:
            counts = self._phases.setdefault(phase, _Phase())
            counts.done += done
            # a call made without being announced (a retry) uses up no later announcement
            counts.planned = max(counts.planned + planned, counts.done)
            self.changes += 1
            value = counts.text()
        with contextlib.suppress(Exception):  # no display outside an eval: nothing to show
            display_counter(f"{phase} calls", value)

    def line(self) -> str:
        """`summarizer 12 calls (19 queued), judge 0 calls (4 queued)` (phases in order of
        first report); empty before any phase reports."""
        with self._lock:
            return ", ".join(f"{name} {c.text()}" for name, c in self._phases.items())

    def reset(self) -> None:
        """Forget every count (a new run in the same process)."""
        with self._lock:
            self._phases.clear()
            self.changes += 1


SUMMARIZER_PHASE = "summarizer"
JUDGE_PHASE = "judge"

BOARD = ProgressBoard()
"""The process's progress board."""


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
            return f"{_count(self.calls, 'model call')}, {_count(self.tokens, 'token')}"

    def reset(self) -> None:
        with self._lock:
            self.calls = self.tokens = 0


USAGE = _Usage()
"""Every model call of the process while progress is printed (fed by :class:`PlainProgress`),
so a phase that announces no calls (a faithfulness judge, a rater) still shows it is working."""


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def progress_line(elapsed: float, done: bool = False) -> str:
    """The progress line after `elapsed` seconds: model calls and tokens, then the phases;
    the last line of a run (`done`) says so first."""
    counts = "; ".join(part for part in (USAGE.line(), BOARD.line()) if part)
    return f"[{_elapsed(elapsed)}] {LINE_PREFIX}{DONE if done else ''}{counts}"


class _Printer:
    """Prints :func:`progress_line` to `stream` from a thread: at most every `interval`
    seconds while counts move, and at least every `quiet_interval` seconds (so a long single
    call still shows the run is alive)."""

    def __init__(self, stream: TextIO | None, interval: float, quiet_interval: float) -> None:
        self._stream = stream
        self._interval, self._quiet = interval, quiet_interval
        self._stop = threading.Event()
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="longform-progress", daemon=True)

    @property
    def out(self) -> TextIO:
        # looked up at each print: a test (or a command) may swap sys.stderr
        return self._stream or sys.stderr

    def _seen(self) -> tuple[int, int]:
        return BOARD.changes, USAGE.calls

    def _run(self) -> None:
        seen, last_print = self._seen(), time.monotonic()
        while not self._stop.wait(self._interval):
            now = time.monotonic()
            if self._seen() != seen or now - last_print >= self._quiet:
                seen, last_print = self._seen(), now
                print(progress_line(now - self._started), file=self.out, flush=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, final_line: bool) -> None:
        self._stop.set()
        self._thread.join()
        if final_line:
            print(progress_line(time.monotonic() - self._started, done=True), file=self.out)


_LOCK = threading.Lock()
_ACTIVE: _Printer | None = None
"""The one printer of the process, while one runs."""


def _claim(printer: _Printer) -> bool:
    """Make `printer` the process's printer, unless one already runs."""
    global _ACTIVE
    with _LOCK:
        if _ACTIVE is not None:
            return False
        _ACTIVE = printer
    printer.start()
    return True


def _release(printer: _Printer, final_line: bool) -> None:
    global _ACTIVE
    with _LOCK:
        if _ACTIVE is not printer:
            return
        _ACTIVE = None
    printer.stop(final_line)


def _printing() -> bool:
    with _LOCK:
        return _ACTIVE is not None


@contextlib.contextmanager
def printing_progress(
    interval: float = 5.0, quiet_interval: float = 60.0, stream: TextIO | None = None
) -> Iterator[ProgressBoard]:
    """Print progress lines while the block runs (a `longform` command's run), and a last
    `done` line after it.

    A line is printed at most every `interval` seconds when counts moved, and at least every
    `quiet_interval` seconds. The package's hook prints nothing meanwhile: one printer, one
    format.
    """
    global _ACTIVE
    with _LOCK:  # the command's printer takes over from a hook's, should one run
        previous, _ACTIVE = _ACTIVE, None
    if previous is not None:
        previous.stop(final_line=False)
    BOARD.reset()
    USAGE.reset()
    printer = _Printer(stream, interval, quiet_interval)
    _claim(printer)
    try:
        yield BOARD
    finally:
        _release(printer, final_line=True)


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


class PlainProgress(Hooks):
    """Progress lines for runs whose display shows none: every `PLAIN_INTERVAL` seconds, the
    elapsed time, model calls and tokens so far, and the phases' calls:

        [0:05:00] longform: 14 model calls, 52,310 tokens; summarizer 14 calls (17 queued)

    so a CI log or a `--display plain` run shows the book is being read, not hung. Under a
    `longform` command, which prints these lines itself, it only counts the calls."""

    def __init__(self) -> None:
        self.usage = USAGE
        self._printer: _Printer | None = None

    def enabled(self) -> bool:
        # off where Inspect's display shows progress itself (and so unlisted in its banner),
        # unless a `longform` command prints progress lines itself
        return _printing() or (_interval() > 0 and _plain_display())

    async def on_run_start(self, data: RunStart) -> None:
        if self._printer is not None or _printing():
            return  # a command's printer (or this hook's, for an earlier run) prints already
        if not (_interval() > 0 and _plain_display()):
            return
        BOARD.reset()
        self.usage.reset()
        printer = _Printer(None, _interval(), _interval())
        if _claim(printer):
            self._printer = printer

    async def on_model_usage(self, data: ModelUsageData) -> None:
        self.usage.add(data.usage.input_tokens + data.usage.output_tokens)

    async def on_run_end(self, data: RunEnd) -> None:
        if self._printer is not None:
            _release(self._printer, final_line=False)
            self._printer = None


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
