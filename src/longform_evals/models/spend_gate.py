"""A gate in front of every model call, for a budget over a whole run.

Inspect's own ``token_limit`` and ``cost_limit`` cap one sample (or one scope inside it): a
plan's budget caps every call of every sample of every cell, across processes. Checking it
before a sample starts is not enough, since a sample makes many calls and many samples run at
once. So the call path (:func:`longform_evals.models.calls.generate`) asks the installed gate
for a *reservation* before each call: the most the call can cost (its prompt's tokens, counted
with a margin, plus its output cap). The gate refuses the call when that would not fit in what
is left, and the reservation is given back when the call returns, its real cost having been
counted from Inspect's usage. Reservations that are upper bounds keep the spending within the
budget at any concurrency. Outside a budgeted run no gate is installed and calls pass freely.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from inspect_ai.model import ChatMessage, GenerateConfig, Model

from longform_evals.text.tokens import count_tokens

__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "INPUT_MARGIN",
    "MESSAGE_OVERHEAD",
    "BudgetExhausted",
    "CallCost",
    "SpendGate",
    "call_cost",
    "install",
    "reserved",
]

DEFAULT_OUTPUT_CAP = 4096
"""Output tokens reserved for a call that sets no ``max_tokens`` (every call of the package's
strategies and judges sets one)."""
INPUT_MARGIN = 1.25
"""Prompt tokens reserved per counted one: providers' tokenizers and chat templates count
more than the cl100k count of the text."""
MESSAGE_OVERHEAD = 16
"""Prompt tokens reserved per message for its role and template markers."""


class BudgetExhausted(RuntimeError):
    """A call or sample was refused because the run's budget is spent."""


@dataclass(frozen=True)
class CallCost:
    """The most one call may cost: its model and tokens in and out."""

    model: str
    input_tokens: int
    output_tokens: int


class SpendGate(Protocol):
    """What a budget offers the call path."""

    async def reserve(self, cost: CallCost) -> object:
        """Set ``cost`` aside before the call; raises when it does not fit."""
        ...

    def release(self, reservation: object) -> None:
        """Give a reservation back once its call returned (or failed)."""
        ...


_GATE: SpendGate | None = None


def install(gate: SpendGate | None) -> None:
    """Put ``gate`` in front of every call of this process (None: remove it)."""
    global _GATE
    _GATE = gate


def _texts(input: str | list[ChatMessage]) -> list[str]:
    if isinstance(input, str):
        return [input]
    return [m.text for m in input]


def call_cost(model: Model, input: str | list[ChatMessage], config: GenerateConfig) -> CallCost:
    """The most a call of ``model`` with ``input`` and ``config`` may cost (module docstring)."""
    texts = _texts(input)
    counted = sum(count_tokens(t) for t in texts)
    prompt = math.ceil(counted * INPUT_MARGIN) + MESSAGE_OVERHEAD * len(texts)
    cap = config.max_tokens or model.config.max_tokens or DEFAULT_OUTPUT_CAP
    return CallCost(str(model), prompt, cap)


@contextlib.asynccontextmanager
async def reserved(
    model: Model, input: str | list[ChatMessage], config: GenerateConfig
) -> AsyncIterator[None]:
    """Hold a reservation for one call while it runs (nothing when no gate is installed)."""
    gate = _GATE
    if gate is None:
        yield
        return
    reservation = await gate.reserve(call_cost(model, input, config))
    try:
        yield
    finally:
        gate.release(reservation)
