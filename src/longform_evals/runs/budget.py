"""A spending cap for a whole plan that holds at any concurrency and across processes.

Inspect's ``token_limit`` and ``cost_limit`` cap one sample; a plan's budget is over every call
of every cell, on every machine sharing the plan's log folder, so it is kept here:

- **Grants in the store.** The budget is handed out in grants, each a file
  ``<log_dir>/.longform/budget/<n>.grant`` created with an exclusive write. A process takes a
  grant only after reading every earlier one and only out of what they leave, and of two
  processes reaching for number ``n`` one wins (the other reads again), so the grants never add
  up to more than the budget. When a process stops it writes what it really spent of its grants
  (``<n>.used``); a grant without one (its process was killed) counts as spent whole.
- **Reservations per call.** Inside a process, every model call reserves the most it may cost
  (:mod:`longform_evals.models.spend_gate`) before it is made, and may start only while the
  process's grants have room left after what its calls in flight reserved, taking a new grant
  when they have none. The call's real cost, from Inspect's usage (calls answered from
  Inspect's cache cost nothing), replaces the reservation when it returns. A call must fit
  whole in the room its process's grants leave, except in one process: the first to find the
  store empty while it still has room creates ``<log_dir>/.longform/budget/overdraft`` (an
  exclusive write, so one process for the plan's life) and may then admit one call into its
  last room, past its grants by at most that call's most. So a plan spends at most its budget
  and one call's maximum, at any concurrency, on any number of machines; another process stops
  with less than a call's room left in its grants, which it gives back when it stops.

A refused call raises :class:`BudgetExhausted`: its sample ends with that error and is counted
as not run, its cell is partial, ``longform run`` exits 1, and a later run with a larger budget
runs what is left. A solver in front of every task's solver also refuses to start a sample once
nothing is left, so no sample starts only to be refused at its first call.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NoReturn

import anyio
import anyio.to_thread
from inspect_ai.hooks import Hooks, ModelUsageData, hooks
from inspect_ai.model import ModelUsage
from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.log_keys import BUDGET_ERROR
from longform_evals.log_store import create_exclusive, join, list_names, read_text, write_text
from longform_evals.models.spend_gate import BudgetExhausted, CallCost
from longform_evals.runs.claims import OWNER_FIELDS, Owner, this_process
from longform_evals.runs.plan_file import Price
from longform_evals.runs.store_records import (
    BadFile,
    Field,
    finite,
    numbered,
    parse_record,
    record,
    say_once,
)

__all__ = [
    "BUDGET_FOLDER",
    "LEDGER",
    "BudgetExhausted",
    "GrantBook",
    "Ledger",
    "Spend",
    "budget_gate",
    "usage_cost",
]

BUDGET_FOLDER = ".longform/budget"
"""Where a plan's budget grants live, below its log folder."""
GRANT_SHARE = 0.05
"""A grant is this share of the budget (or one call's reservation, when that is more), so a
process holds little that others could use, and a killed process loses little."""


@dataclass(frozen=True)
class Spend:
    """Tokens and money: spent, granted or reserved."""

    tokens: float = 0.0
    money: float = 0.0

    def __add__(self, other: Spend) -> Spend:
        return Spend(self.tokens + other.tokens, self.money + other.money)

    def __sub__(self, other: Spend) -> Spend:
        return Spend(self.tokens - other.tokens, self.money - other.money)


def usage_cost(model: str, usage: ModelUsage, prices: Mapping[str, Price]) -> float | None:
    """Money for ``usage`` of ``model`` at the plan's prices (None when it has none)."""
    price = _price(model, prices)
    if price is None:
        return None
    cached = usage.input_tokens_cache_read or 0
    fresh = max(0, usage.input_tokens - cached)
    cache_price = price.input if price.cache_read is None else price.cache_read
    return (fresh * price.input + cached * cache_price + usage.output_tokens * price.output) / 1e6


def _price(model: str, prices: Mapping[str, Price]) -> Price | None:
    return prices.get(model) or prices.get(model.split("/", 1)[-1])


def _positive(left: Spend, limit: Spend) -> bool:
    """Whether something is left on every dimension the budget limits."""
    return (left.tokens > 0 or math.isinf(limit.tokens)) and (
        left.money > 0 or math.isinf(limit.money)
    )


def _within(amount: Spend, room: Spend, limit: Spend) -> bool:
    """Whether ``amount`` fits in ``room`` on every dimension the budget limits."""
    return (amount.tokens <= room.tokens or math.isinf(limit.tokens)) and (
        amount.money <= room.money or math.isinf(limit.money)
    )


_AMOUNT = {"tokens": Field(finite(0.0, 1e18)), "money": Field(finite(0.0, 1e18))}
_GRANT = {**_AMOUNT, "owner": Field(record(OWNER_FIELDS), optional=True)}


def _amount(location: str, content: str | None, fields: dict[str, Field]) -> Spend | BadFile:
    data = parse_record(location, content, fields)
    if isinstance(data, BadFile):
        return data
    return Spend(float(data["tokens"]), float(data["money"]))


class GrantBook:
    """The budget's grants in the store (module docstring)."""

    def __init__(self, log_dir: str, limit: Spend, owner: Owner | None = None) -> None:
        self.folder = join(log_dir, *BUDGET_FOLDER.split("/"))
        self.limit = limit
        self.owner = owner or this_process()
        self.mine: dict[int, Spend] = {}
        """This process's grants, by number."""
        self.has_overdraft = False
        """Whether this process holds the plan's one overdraft (:meth:`overdraft`)."""

    def committed(self) -> tuple[int, Spend]:
        """The next grant's number, and what the grants so far take from the budget: what
        closed grants spent, and open ones whole. A grant that cannot be read takes all that
        is left (it may be any size, and the budget must hold); a record of what a grant
        spent that cannot be read leaves its grant counted whole. Each is said once, naming
        the file; files named otherwise are said once and ignored."""
        names = list_names(self.folder)
        grants, strays = numbered(names, ".grant")
        used, stray_used = numbered(names, ".used")
        for name in [*strays, *stray_used]:
            say_once(
                BadFile(join(self.folder, name), "is no budget file (its name is not a number)"),
                "it is ignored; remove it",
            )
        total = Spend()
        for number in sorted(grants):
            grant = join(self.folder, grants[number])
            size = _amount(grant, read_text(grant), _GRANT)
            if isinstance(size, BadFile):
                say_once(
                    size,
                    "it is counted as all that is left of the budget; if no process of the plan "
                    "is running, remove it and run again",
                )
                return max(grants) + 1, self.limit
            if number in used:
                location = join(self.folder, used[number])
                spent = _amount(location, read_text(location), _AMOUNT)
                if isinstance(spent, BadFile):
                    say_once(spent, "its grant is counted as spent whole")
                else:
                    size = spent
            total += size
        return (max(grants) + 1 if grants else 0), total

    def take(self, need: Spend) -> Spend | None:
        """A new grant for this process: ``need`` (or a share of the budget when that is more),
        or what is left when that is less; None when nothing is left."""
        while True:
            number, committed = self.committed()
            left = self.limit - committed
            if not _positive(left, self.limit):
                return None
            share = Spend(
                self.limit.tokens * GRANT_SHARE if math.isfinite(self.limit.tokens) else 0.0,
                self.limit.money * GRANT_SHARE if math.isfinite(self.limit.money) else 0.0,
            )
            size = Spend(
                min(left.tokens, max(need.tokens, share.tokens)),
                min(left.money, max(need.money, share.money)),
            )
            text = json.dumps(
                {"tokens": size.tokens, "money": size.money, "owner": self.owner.__dict__}
            )
            if create_exclusive(join(self.folder, f"{number:06d}.grant"), text):
                self.mine[number] = size
                return size
            # another process took this number first: read again

    def overdraft(self) -> bool:
        """Whether this process may admit one call past its grants: the first process to ask
        creates the store's overdraft file and may; every other, ever, may not."""
        if not self.has_overdraft:
            text = json.dumps({"owner": self.owner.__dict__})
            self.has_overdraft = create_exclusive(join(self.folder, "overdraft"), text)
        return self.has_overdraft

    def close(self, spent: Spend) -> None:
        """Write what this process spent of its grants, filling them in order (any spending
        past them goes on the last), so others may use the rest."""
        left = spent
        numbers = sorted(self.mine)
        for i, number in enumerate(numbers):
            size = self.mine[number]
            last = i == len(numbers) - 1
            used = (
                left if last else Spend(min(left.tokens, size.tokens), min(left.money, size.money))
            )
            used = Spend(max(0.0, used.tokens), max(0.0, used.money))
            left = left - used
            write_text(
                join(self.folder, f"{number:06d}.used"),
                json.dumps({"tokens": used.tokens, "money": used.money}),
            )
        self.mine.clear()


@dataclass
class _Reservation:
    amount: Spend


@dataclass
class Ledger:
    """What the running plan may spend and has spent, in this process."""

    max_tokens: int | None = None
    max_money: float | None = None
    prices: Mapping[str, Price] = field(default_factory=dict)
    book: GrantBook | None = None
    granted: Spend = field(default_factory=Spend)
    spent: Spend = field(default_factory=Spend)
    reserved: Spend = field(default_factory=Spend)
    refused: int = 0
    """Calls and samples refused so far."""
    overdraft: bool = False
    """This process may admit one call past its grants (the store had nothing left and no
    other process had taken the overdraft)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _taking: anyio.Lock | None = field(default=None, repr=False)
    _released: anyio.Event | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        return self.max_tokens is not None or self.max_money is not None

    def limit(self) -> Spend:
        return Spend(
            math.inf if self.max_tokens is None else float(self.max_tokens),
            math.inf if self.max_money is None else self.max_money,
        )

    def cost(self, call: CallCost) -> Spend:
        """What reserving ``call`` takes: its tokens, and its money at the plan's prices (only
        where the budget limits them; the plan check prices every model of a money budget)."""
        price = _price(call.model, self.prices)
        money = 0.0
        if self.max_money is not None:
            money = math.inf
            if price is not None:
                money = (call.input_tokens * price.input + call.output_tokens * price.output) / 1e6
        tokens = call.input_tokens + call.output_tokens if self.max_tokens is not None else 0
        return Spend(float(tokens), money)

    def add(self, model: str, usage: ModelUsage) -> None:
        """Count a call's real cost (from Inspect's usage hook): input and output tokens, and
        money at the plan's prices, each only where the budget limits it."""
        tokens = usage.input_tokens + usage.output_tokens if self.max_tokens is not None else 0
        money = 0.0
        if self.max_money is not None:
            cost = usage_cost(model, usage, self.prices)
            money = math.inf if cost is None else cost
        with self._lock:
            self.spent += Spend(float(tokens), money)

    def _fits(self, amount: Spend) -> bool:
        """Reserve ``amount`` when this process's grants have room for it whole, or, in the
        process holding the overdraft, when they have any room left (then this one call may
        go past them): so a plan spends at most its budget and one call's most."""
        limit = self.limit()
        with self._lock:
            room = self.granted - self.spent - self.reserved
            if _within(amount, room, limit) or (self.overdraft and _positive(room, limit)):
                self.reserved += amount
                return True
            return False

    async def reserve(self, call: CallCost) -> object:
        """Set ``call``'s most aside (SpendGate) while this process's grants have room, taking
        a new grant from the store when they have none; when the store has nothing left but
        calls of this process are in flight, wait for them to return (their reservations may
        free room); refuse when none are."""
        amount = self.cost(call)
        if self._fits(amount):
            return _Reservation(amount)
        if self._taking is None:
            self._taking = anyio.Lock()
        async with self._taking:
            while not self._fits(amount):
                with self._lock:
                    short = (self.spent + self.reserved + amount) - self.granted
                    released = self._released = anyio.Event()
                grant = await self._take(Spend(max(0.0, short.tokens), max(0.0, short.money)))
                if grant is not None:
                    with self._lock:
                        self.granted += grant
                    continue
                if not self.overdraft and await self._claim_overdraft():
                    self.overdraft = True
                    continue
                with self._lock:
                    in_flight = self.reserved.tokens > 0 or self.reserved.money > 0
                if in_flight:
                    await released.wait()
                    continue
                self._refuse(call, amount)
        return _Reservation(amount)

    def _refuse(self, call: CallCost, amount: Spend) -> NoReturn:
        with self._lock:
            self.refused += 1
            spent, limit = self.spent, self.limit()
        raise BudgetExhausted(
            f"{BUDGET_ERROR}: no room left for a call of {call.model} (up to "
            f"{amount.tokens:,.0f} tokens; {self._describe(spent, limit)}); the call was not made"
        )

    def new_event_loop(self) -> None:
        """Forget the event-loop primitives of an earlier eval (each cell runs in its own)."""
        self._taking = None
        self._released = None

    async def _claim_overdraft(self) -> bool:
        book = self.book
        if book is None:  # one process, no store: the overdraft is its own
            return True
        return await anyio.to_thread.run_sync(book.overdraft)

    async def _take(self, need: Spend) -> Spend | None:
        book = self.book
        if book is None:  # one process, no store: the whole budget is its own
            limit = self.limit()
            left = limit - self.granted
            if not _positive(left, limit):
                return None
            return Spend(*(0.0 if math.isinf(x) else x for x in (left.tokens, left.money)))
        return await anyio.to_thread.run_sync(book.take, need)

    def release(self, reservation: object) -> None:
        assert isinstance(reservation, _Reservation)
        with self._lock:
            self.reserved -= reservation.amount
            released = self._released
        if released is not None:
            released.set()

    def exhausted(self) -> str | None:
        """Why no new sample may start (nothing left unspent: not in this process's grants,
        nor in the store), or None. Reservations of calls in flight do not count: they are
        given back, and a call waits for them. Reads the store: call it from a worker thread."""
        limit = self.limit()
        with self._lock:
            spent, granted = self.spent, self.granted
        if _positive(granted - spent, limit):
            return None  # this process's grants have room: no need to read the store
        committed = granted if self.book is None else self.book.committed()[1]
        if _positive((limit - committed) + (granted - spent), limit):
            return None
        return self._describe(spent, limit)

    def _describe(self, spent: Spend, limit: Spend) -> str:
        parts = []
        if self.max_tokens is not None:
            parts.append(f"{spent.tokens:,.0f} tokens spent of {limit.tokens:,.0f}")
        if self.max_money is not None:
            parts.append(f"{spent.money:.4f} spent of {limit.money:.4f}")
        return ", ".join(parts)

    def finish(self) -> None:
        """Give back what this process did not spend of its grants."""
        if self.book is not None:
            with self._lock:
                spent = self.spent
            self.book.close(spent)


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
        reason = await anyio.to_thread.run_sync(LEDGER.exhausted) if LEDGER.active else None
        if reason:
            LEDGER.refused += 1
            raise BudgetExhausted(f"{BUDGET_ERROR}: {reason}; the sample was not started")
        return state

    return solve
