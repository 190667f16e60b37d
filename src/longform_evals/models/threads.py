"""How many CPU threads a local llama.cpp engine gets by default: the cores not already busy.

On a shared machine a thread per core is the slowest choice: measured on 2 cores
(`benchmarks/throughput.py --parts d`, qwen2.5-coder-0.5b, six judge-style calls), 2 threads
took 4.2 s idle against 8.0 s on 1 thread, but beside one other CPU-bound process 18.9 s
against 8.0 s: llama.cpp's threads wait for each other at every step, so one thread that
shares a core stalls them all. The default is therefore the cores minus the machine's
1-minute load average when the engine loads (at least 1); `n_threads` sets it.
"""

from __future__ import annotations

import os


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


def default_threads() -> int:
    """The engine's default thread count (see the module docstring)."""
    return idle_cores()
