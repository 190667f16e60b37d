"""The judge the judged checks call: a replay of the shipped recording by default, a real model
with `--live`, or a real model recorded into a replay file with `--record`.

The checks of LLM-judged metrics call the shipped scorers with this judge bound to the `grader`
role, exactly as `inspect eval --model-role grader=...` would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from inspect_ai.model import Model, get_model
from inspect_ai.model._model import init_model_roles

from longform_evals.judges.calibration_files import calibration_name
from longform_evals.models.replay import stands_for

RECORDED_JUDGE = "gguf/qwen2.5-coder-1.5b"
"""The model whose answers the package's recording holds."""

T = TypeVar("T")


@dataclass(frozen=True)
class JudgeChoice:
    """Which judge the judged checks use.

    Attributes:
        live: A real judge model (`gguf/qwen2.5-coder-1.5b`, `openai/gpt-4o`): every call is
            asked of it. None: replay `recording` (default: the packaged recording of
            :data:`RECORDED_JUDGE`).
        record: With `live`, also append every call the recording lacks to `recording`.
        recording: The replay file; None for the packaged one.
    """

    live: str | None = None
    record: bool = False
    recording: str | None = None

    def __post_init__(self) -> None:
        if self.record and self.live is None:
            raise ValueError("recording needs the real model to record (--record MODEL)")

    @property
    def label(self) -> str:
        if self.live is None:
            return f"replay/{calibration_name(RECORDED_JUDGE)}"
        return f"{self.live} (recording)" if self.record else self.live


_CHOICE = JudgeChoice()


@contextmanager
def using_judge(choice: JudgeChoice) -> Iterator[None]:
    """Run the checks inside the block with `choice` as their judge."""
    global _CHOICE
    previous, _CHOICE = _CHOICE, choice
    try:
        yield
    finally:
        _CHOICE = previous


def current_judge() -> JudgeChoice:
    return _CHOICE


@cache
def _model(choice: JudgeChoice) -> Model:
    args: dict[str, Any] = {}
    if choice.recording is not None:
        args["path"] = choice.recording
    if choice.live is None:
        return get_model(f"replay/{calibration_name(RECORDED_JUDGE)}", **args)
    if not choice.record:
        return get_model(choice.live)
    return get_model(f"replay/{calibration_name(choice.live)}", record=choice.live, **args)


def judge_model() -> Model:
    """The judge the current choice names (built once per choice)."""
    return _model(_CHOICE)


def judge_name() -> str:
    """The model the judge's answers come from (the recorded model for a replay)."""
    return stands_for(judge_model())


def with_judge(work: Callable[[], Awaitable[T]]) -> T:
    """Run `work()` to completion with the judge bound to the `grader` role."""

    async def bound() -> T:
        init_model_roles({"grader": judge_model()})
        return await work()

    return asyncio.run(bound())
