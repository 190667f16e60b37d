"""Free cores measured from CPU time over a stretch, not the lagging load average."""

from __future__ import annotations

import threading
import time

from hypothesis import given
from hypothesis import strategies as st

from longform_evals.models.free_cores import CpuSample, FreeCores, free_between, read_sample


def test_other_processes_busy_time_less_our_own_takes_cores() -> None:
    start = CpuSample(at=0.0, busy=100.0, own=5.0)
    # 10 s: the machine busy 14 CPU-seconds, 4 of them ours: others kept one core busy
    assert free_between(start, CpuSample(10.0, 114.0, 9.0), cores=2) == 1
    # all the busy time was ours: both cores are free for us
    assert free_between(start, CpuSample(10.0, 118.0, 23.0), cores=2) == 2
    # others busy on 3.6 cores of 4: still one core for us
    assert free_between(start, CpuSample(10.0, 136.0, 5.0), cores=4) == 1


@given(
    cores=st.integers(1, 64),
    wall=st.floats(0.01, 1e4),
    busy=st.floats(0, 1e6),
    own=st.floats(0, 1e6),
)
def test_the_count_is_between_one_and_every_core(
    cores: int, wall: float, busy: float, own: float
) -> None:
    free = free_between(CpuSample(0, 0, 0), CpuSample(wall, busy, own), cores)
    assert 1 <= free <= cores


def test_a_new_measure_waits_for_the_window_and_then_sees_the_change() -> None:
    readings = iter(
        [
            CpuSample(0.0, 0.0, 0.0),
            CpuSample(0.3, 0.6, 0.0),  # `now`: another process on 2 of 2 cores
            CpuSample(5.0, 10.0, 0.0),  # too soon to measure again
            CpuSample(20.3, 20.6, 19.0),  # since 0.3 s: only our own work ran
        ]
    )
    watch = FreeCores(cores=2, window=15.0, reader=lambda: next(readings), pause=lambda _: None)
    assert watch.now() == 1
    assert watch.since_last() is None
    assert watch.since_last() == 2


def test_where_nothing_can_be_read_the_load_average_stands_in() -> None:
    watch = FreeCores(cores=2, reader=lambda: None, pause=lambda _: None)
    assert 1 <= watch.now() <= 2 and watch.since_last() is None


def test_this_machine_is_read_and_our_own_threads_time_counted_as_ours() -> None:
    before = read_sample()
    if before is None:
        return  # no /proc/stat here: the load average is used instead (tested above)
    stop = time.monotonic() + 0.5
    spin = threading.Thread(target=lambda: [0 for _ in iter(lambda: time.monotonic() > stop, True)])
    spin.start()
    spin.join()
    after = read_sample()
    assert after is not None and after.at > before.at and after.own > before.own


def test_an_engine_reloads_with_the_free_cores_between_calls(monkeypatch) -> None:
    from longform_evals.models import gguf

    loads: list[int] = []

    class Server:
        def __init__(self, threads: int) -> None:
            self.threads = threads

        def handle_chat_completions(self, request: dict) -> dict:
            return {"threads": self.threads}

    def load(self: gguf.Engine, threads: int) -> Server:
        loads.append(threads)
        return Server(threads)

    readings = iter(
        [
            CpuSample(0.0, 0.0, 0.0),
            CpuSample(0.3, 0.3, 0.0),  # before loading: another job on one of two cores
            CpuSample(10.0, 10.0, 0.0),  # first call: too soon to look again
            CpuSample(30.3, 30.3, 20.0),  # the other job ended: only our own work since
            CpuSample(31.0, 31.0, 20.7),  # too soon again
        ]
    )
    monkeypatch.setattr(gguf.Engine, "_load", load)
    monkeypatch.setattr(
        gguf,
        "FreeCores",
        lambda: FreeCores(cores=2, reader=lambda: next(readings), pause=lambda _: None),
    )
    engine = gguf.Engine(gguf.EngineKey("model.gguf", 1024, gguf.AUTO_THREADS, 1), False)
    answers = [engine.chat({})["threads"] for _ in range(3)]
    assert answers == [1, 2, 2] and loads == [1, 2]
    # a thread count the user set is kept whatever the machine does
    fixed = gguf.Engine(gguf.EngineKey("model.gguf", 1024, 1, 1), False)
    assert fixed.watch is None and fixed.chat({})["threads"] == 1
