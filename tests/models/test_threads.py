"""The local engine's default thread count: the cores not already busy."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from longform_evals.models.free_cores import idle_cores
from longform_evals.models.threads import default_threads


@given(st.integers(1, 256), st.floats(0.0, 1000.0))
def test_between_one_and_every_core(cores: int, load: float) -> None:
    assert 1 <= idle_cores(cores, load) <= cores


def test_the_measured_cases() -> None:
    # benchmarks/throughput.py part D on 2 cores: 2 threads when idle, 1 beside a busy process
    assert idle_cores(2, 0.0) == 2
    assert idle_cores(2, 1.1) == 1
    assert idle_cores(2, 7.0) == 1
    assert idle_cores(16, 3.4) == 13


def test_the_default_reads_this_machine() -> None:
    assert 1 <= default_threads() <= (os.cpu_count() or 1)
