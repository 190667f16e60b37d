"""How many CPU threads a local llama.cpp engine gets by default: the cores not already busy.

On a shared machine a thread per core is the slowest choice: measured on 2 cores
(`benchmarks/throughput.py --parts d`, qwen2.5-coder-0.5b, six judge-style calls), 2 threads
took 4.2 s idle against 8.0 s on 1 thread, but beside one other CPU-bound process 18.9 s
against 8.0 s: llama.cpp's threads wait for each other at every step, so one thread that
shares a core stalls them all. The default is therefore the cores other processes leave
free, measured from CPU time over a short pause when the engine loads (`models.free_cores`;
at least 1), not the 1-minute load average, which still counts a job that ended a minute ago.
The in-process engine measures again between calls and reloads when the count changed
(`models.gguf.Engine`); `n_threads` sets a fixed count.
"""

from __future__ import annotations

from longform_evals.models.free_cores import FreeCores

DEFAULT_THREADS_HELP = "the cores other processes leave free when it starts, at least 1"
"""What the default is, in the words of a command's help (`longform serve --threads`)."""


def default_threads() -> int:
    """The engine's default thread count (see the module docstring)."""
    return FreeCores().now()
