"""The cores other processes leave free, measured over a stretch of time rather than read from
the load average.

The 1-minute load average lags: read just after another job ends it still counts that job
(a run started then kept 1 thread on an idle 2-core machine for 13 minutes), and read once at
load it never sees a job that starts later. Here the machine's busy CPU time (``/proc/stat``)
less this process's own (``os.times``) over a stretch of wall time gives how many cores the
other processes kept busy during it; the rest are free. Where ``/proc/stat`` is missing (not
Linux) the load average stands in.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CpuSample", "FreeCores", "free_between", "idle_cores", "read_sample"]

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class CpuSample:
    """CPU time spent so far: by every process on the machine, and by this one (seconds)."""

    at: float
    """`time.monotonic()` when read."""
    busy: float
    """Busy CPU-seconds of the whole machine since boot (every core summed)."""
    own: float
    """CPU-seconds this process has used (every thread, user and system)."""


def read_sample() -> CpuSample | None:
    """The machine's and this process's CPU time now; None where ``/proc/stat`` is missing."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal (guest time is inside user)
    ticks = [int(x) for x in fields[1:9]]
    busy = sum(ticks) - ticks[3] - ticks[4]
    own = os.times()
    return CpuSample(time.monotonic(), busy / _TICKS, own.user + own.system)


def free_between(before: CpuSample, after: CpuSample, cores: int) -> int:
    """Cores the other processes left free between two samples, at least 1 and at most
    ``cores``: each core another process kept busy for most of the time counts as taken."""
    wall = after.at - before.at
    if wall <= 0:
        return cores
    others = max(0.0, (after.busy - before.busy) - (after.own - before.own)) / wall
    return max(1, min(cores, cores - round(others)))


def idle_cores(cores: int | None = None, load: float | None = None) -> int:
    """Cores not busy with other work: ``cores`` (default: this machine's) less the rounded
    1-minute load average (default: the current one; 0 where the platform has none), at
    least 1."""
    total = cores if cores is not None else os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # not on this platform
            load = 0.0
    return max(1, min(total, total - round(load)))


class FreeCores:
    """Watches the cores other processes leave free, for an engine that sizes its threads.

    `now()` measures over a short pause (before the engine loads); `since_last()` measures
    over the time since the previous measurement once at least ``window`` seconds have passed
    (between calls, at no cost: no pause), and is None before that.
    """

    def __init__(
        self,
        cores: int | None = None,
        window: float = 15.0,
        reader: Callable[[], CpuSample | None] = read_sample,
        pause: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cores = cores if cores is not None else os.cpu_count() or 1
        self.window = window
        self._read = reader
        self._pause = pause
        self._last: CpuSample | None = None

    def now(self, pause: float = 0.3) -> int:
        """Free cores over the next ``pause`` seconds (the load average where nothing can be
        measured)."""
        before = self._read()
        if before is None:
            return idle_cores(self.cores)
        self._pause(pause)
        after = self._read()
        if after is None:
            return idle_cores(self.cores)
        self._last = after
        return free_between(before, after, self.cores)

    def since_last(self) -> int | None:
        """Free cores since the last measurement, once ``window`` seconds have passed; None
        before then or where nothing can be measured."""
        after = self._read()
        if after is None or self._last is None:
            self._last = after
            return None
        if after.at - self._last.at < self.window:
            return None
        free = free_between(self._last, after, self.cores)
        self._last = after
        return free
