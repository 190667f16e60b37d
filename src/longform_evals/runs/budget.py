"""A spending cap for a whole plan: once its tokens (or money) are spent, no new sample starts.

Inspect's own limits are per sample; a plan's budget is over every call of the run. An Inspect
hook adds up each call's usage (calls read from Inspect's cache cost nothing and are not
counted), and a solver put in front of every task's solver refuses to start a sample once the
budget is spent. The refused sample ends with a :class:`BudgetExhausted` error, so it is
counted as not run (the leaderboard marks its cell partial) and a later ``longform run`` with a
larger budget runs it. Spending already in the plan's log folder counts against the budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from inspect_ai.hooks import Hooks, ModelUsageData, hooks
from inspect_ai.model import ModelUsage
from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.log_keys import BUDGET_ERROR
from longform_evals.runs.plan_file import Price


class BudgetExhausted(RuntimeError):
    """A sample was not started because the plan's budget is spent."""


def usage_cost(model: str, usage: ModelUsage, prices: Mapping[str, Price]) -> float | None:
    """Money for ``usage`` of ``model`` at the plan's prices (None when it has none)."""
    price = prices.get(model) or prices.get(model.split("/", 1)[-1])
    if price is None:
        return None
    cached = usage.input_tokens_cache_read or 0
    fresh = max(0, usage.input_tokens - cached)
    cache_price = price.input if price.cache_read is None else price.cache_read
    return (fresh * price.input + cached * cache_price + usage.output_tokens * price.output) / 1e6


@dataclass
class Ledger:
    """What the running plan may spend and has spent."""

    max_tokens: int | None = None
    max_money: float | None = None
    prices: Mapping[str, Price] = field(default_factory=dict)
    tokens: int = 0
    money: float = 0.0

    @property
    def active(self) -> bool:
        return self.max_tokens is not None or self.max_money is not None

    def add(self, model: str, usage: ModelUsage) -> None:
        self.tokens += usage.input_tokens + usage.output_tokens
        self.money += usage_cost(model, usage, self.prices) or 0.0

    def exhausted(self) -> str | None:
        """Why no new sample may start, or None."""
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"{self.tokens:,} tokens spent of a budget of {self.max_tokens:,}"
        if self.max_money is not None and self.money >= self.max_money:
            return f"{self.money:.4f} spent of a budget of {self.max_money:.4f}"
        return None


LEDGER = Ledger()
"""The ledger of the plan running in this process (inactive outside ``longform run``)."""


@hooks(name="longform_budget", description="Adds up model usage against a longform plan budget")
class BudgetHooks(Hooks):
    def enabled(self) -> bool:
        return LEDGER.active

    async def on_model_usage(self, data: ModelUsageData) -> None:
        LEDGER.add(data.model_name, data.usage)


@solver
def budget_gate() -> Solver:
    """Refuse to start a sample once the plan's budget is spent."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        reason = LEDGER.exhausted()
        if reason:
            raise BudgetExhausted(f"{BUDGET_ERROR}: {reason}; the sample was not started")
        return state

    return solve
