"""The plan budget's parts without a run: grants in a local store that several processes
share, and a ledger's reservations under concurrent calls."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import ModelUsage

from longform_evals.log_store import join, write_text
from longform_evals.models.spend_gate import BudgetExhausted, CallCost
from longform_evals.runs.budget import BUDGET_FOLDER, GrantBook, Ledger, Spend
from longform_evals.runs.claims import Owner

LIMIT = Spend(10_000, math.inf)


def _owner(i: int) -> Owner:
    return Owner(f"{i:032d}", "host", "host/boot", 1000 + i)


def test_grants_never_add_up_to_more_than_the_budget_across_processes(tmp_path: Path) -> None:
    books = [GrantBook(str(tmp_path), LIMIT, _owner(i)) for i in range(6)]
    taken: list[float] = []
    barrier = threading.Barrier(len(books))

    def take(book: GrantBook) -> None:
        barrier.wait()
        while (grant := book.take(Spend(700, 0))) is not None:
            taken.append(grant.tokens)

    threads = [threading.Thread(target=take, args=(b,)) for b in books]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(taken) == LIMIT.tokens  # all of it granted, and never more
    number, committed = books[0].committed()
    assert committed.tokens == sum(taken) and number == len(taken)


def test_closing_gives_back_what_was_not_spent(tmp_path: Path) -> None:
    book = GrantBook(str(tmp_path), LIMIT, _owner(0))
    first, second = book.take(Spend(600, 0)), book.take(Spend(600, 0))
    assert first is not None and second is not None
    assert first.tokens == 600  # at least what was needed ...
    assert book.committed()[1].tokens == first.tokens + second.tokens
    book.close(Spend(700, 0))
    assert book.committed()[1].tokens == 700  # ... and what was spent counts once closed
    later = GrantBook(str(tmp_path), LIMIT, _owner(1))
    rest = later.take(Spend(20_000, 0))  # more than is left: what is left
    assert rest is not None and rest.tokens == 9_300
    assert later.take(Spend(1, 0)) is None


def test_an_unreadable_grant_counts_as_the_whole_budget(tmp_path: Path) -> None:
    write_text(join(str(tmp_path), *BUDGET_FOLDER.split("/"), "000000.grant"), "garbage")
    book = GrantBook(str(tmp_path), LIMIT, _owner(0))
    assert book.take(Spend(1, 0)) is None


def _call(tokens: int) -> CallCost:
    return CallCost("scripted/x", tokens - 100, 100)


def test_a_call_starts_while_room_is_left_and_is_refused_after() -> None:
    ledger = Ledger(max_tokens=1_000)

    async def scenario() -> None:
        for _ in range(2):  # 600 spent, then 1,200: the second call went past, once
            reservation = await ledger.reserve(_call(600))
            ledger.add("scripted/x", ModelUsage(input_tokens=500, output_tokens=100))
            ledger.release(reservation)
        with pytest.raises(BudgetExhausted, match="no room left for a call of scripted/x"):
            await ledger.reserve(_call(10))

    anyio.run(scenario)
    assert ledger.refused == 1 and ledger.spent.tokens == 1_200


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(50, 900), min_size=1, max_size=30),
    st.integers(1, 12),
    st.floats(0.3, 1.0),
)
def test_concurrent_calls_never_spend_past_the_budget(
    sizes: list[int], concurrency: int, used: float
) -> None:
    """Each call reserves its most and spends a share of it; however many run at once, the
    spending passes the budget by less than one call's most, and a call is refused only once
    the budget is spent."""
    budget = 2_000
    ledger = Ledger(max_tokens=budget)
    refused: list[int] = []

    async def one(size: int, limiter: anyio.CapacityLimiter) -> None:
        async with limiter:
            try:
                reservation = await ledger.reserve(_call(size))
            except BudgetExhausted:
                refused.append(size)
                return
            await anyio.sleep(0)
            spent = int(size * used)
            ledger.add("scripted/x", ModelUsage(input_tokens=spent, output_tokens=0))
            ledger.release(reservation)

    async def scenario() -> None:
        limiter = anyio.CapacityLimiter(concurrency)
        async with anyio.create_task_group() as group:
            for size in sizes:
                group.start_soon(one, size, limiter)

    anyio.run(scenario)
    assert ledger.spent.tokens < budget + max(sizes)
    assert ledger.reserved.tokens == 0
    assert not refused or ledger.spent.tokens >= budget


def test_only_one_process_ever_takes_the_overdraft(tmp_path: Path) -> None:
    books = [GrantBook(str(tmp_path), LIMIT, _owner(i)) for i in range(4)]
    assert [b.overdraft() for b in books] == [True, False, False, False]
    assert books[0].overdraft()  # it keeps it
    later = GrantBook(str(tmp_path), LIMIT, _owner(9))  # a later run of the same plan too
    assert not later.overdraft()


def test_two_processes_pass_the_budget_by_one_call_at_most(tmp_path: Path) -> None:
    # each process holds half of the budget; both have 300 tokens of room left when the
    # store runs dry, and each wants a call of 500: the first to ask may go past (the
    # overdraft), the other is refused with its room left, which it gives back on closing
    budget = 2_000
    ledgers = [
        Ledger(max_tokens=budget, book=GrantBook(str(tmp_path), Spend(budget, math.inf), _owner(i)))
        for i in range(2)
    ]

    async def spend(ledger: Ledger, tokens: int) -> None:
        reservation = await ledger.reserve(_call(tokens))
        ledger.add("scripted/x", ModelUsage(input_tokens=tokens, output_tokens=0))
        ledger.release(reservation)

    async def scenario() -> None:
        for ledger in ledgers:
            assert ledger.book is not None
            ledger.granted += ledger.book.take(Spend(1_000, 0)) or Spend()
            await spend(ledger, 700)
        await spend(ledgers[0], 500)  # past its grants by 200: the overdraft
        with pytest.raises(BudgetExhausted):
            await spend(ledgers[1], 500)

    anyio.run(scenario)
    assert ledgers[0].overdraft and not ledgers[1].overdraft
    total = sum(ledger.spent.tokens for ledger in ledgers)
    assert total == 1_900 and total < budget + 500
    for ledger in ledgers:
        ledger.finish()
    assert ledgers[1].book is not None
    assert ledgers[1].book.committed()[1].tokens == 1_900  # the 300 left is free again
