"""Many model calls at once, stopped together at the first failure.

A judge asks dozens of questions of one summary concurrently. With `asyncio.gather` a failed
call leaves its siblings running: the sample ends with the error while they go on calling the
model, and Inspect warns, with a traceback each, of model events arriving after the sample
completed. :func:`fan_out` runs the calls in an anyio task group instead: the first failure
cancels the others, and that failure itself (not an exception group) is raised.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar, cast

import anyio
from anyio.abc import TaskGroup

__all__ = ["fan_out"]

T = TypeVar("T")


async def fan_out(*calls: Awaitable[T]) -> list[T]:
    """Await `calls` concurrently; their results in the order given.

    Raises:
        Exception: The first exception a call raised, after every other call was cancelled
            (later failures, cancellations included, are dropped).
    """
    results: list[T | None] = [None] * len(calls)
    failures: list[Exception] = []

    async def run(index: int, call: Awaitable[T], group: TaskGroup) -> None:
        try:
            results[index] = await call
        except Exception as exc:
            if not failures:
                failures.append(exc)
            group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run, index, call, group)
    if failures:
        raise failures[0]
    return cast(list[T], results)
