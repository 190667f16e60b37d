"""`fan_out` (models/fan_out.py): results in order, and the first failure cancels the rest and
is raised itself."""

from __future__ import annotations

import warnings

import anyio
import pytest

from longform_evals.models.fan_out import fan_out


async def _answer(value: int, delay: float) -> int:
    await anyio.sleep(delay)
    return value


def test_results_keep_the_order_of_the_calls() -> None:
    # The first call finishes last: order is that of the calls, not of completion.
    calls = [_answer(0, 0.03), _answer(1, 0.0), _answer(2, 0.01)]
    assert anyio.run(lambda: fan_out(*calls)) == [0, 1, 2]
    assert anyio.run(fan_out) == []


def test_the_first_failure_cancels_the_others_and_is_raised_itself() -> None:
    finished: list[str] = []
    original = ConnectionError("server went away")

    async def slow() -> str:
        await anyio.sleep(0.2)
        finished.append("slow")
        return "slow"

    async def failing() -> str:
        await anyio.sleep(0)
        raise original

    async def later_failure() -> str:
        await anyio.sleep(0.05)
        raise ValueError("never reached: cancelled first")

    async def main() -> None:
        with pytest.raises(ConnectionError) as caught:
            await fan_out(slow(), failing(), later_failure(), slow())
        assert caught.value is original  # not wrapped in an ExceptionGroup
        # Past the time the slow calls would have finished: cancelled, not left running.
        await anyio.sleep(0.3)

    anyio.run(main)
    assert finished == []


def test_cancelled_calls_leave_no_never_awaited_warning() -> None:
    async def failing() -> int:
        raise RuntimeError("first")

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match="first"):
            anyio.run(lambda: fan_out(failing(), *[_answer(i, 0.1) for i in range(50)]))
