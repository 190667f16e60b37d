"""Packing summaries into merge calls, level-0 limits and trimming of earlier context."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from longform_evals.solvers.summarize.merge_packing import (
    chunk_summary_tokens,
    group_overflows,
    pack_merge_groups,
    trim_prior_context,
)
from longform_evals.text import count_tokens

lengths_st = st.lists(st.integers(min_value=0, max_value=500), max_size=60)


@given(lengths_st, st.integers(min_value=0, max_value=2000))
def test_groups_cover_all_items_in_order(lengths: list[int], budget: int) -> None:
    groups = pack_merge_groups(lengths, budget)
    assert [i for g in groups for i in g] == list(range(len(lengths)))
    assert all(g for g in groups)


@given(lengths_st, st.integers(min_value=0, max_value=2000))
def test_every_level_makes_progress(lengths: list[int], budget: int) -> None:
    groups = pack_merge_groups(lengths, budget)
    if len(lengths) >= 2:
        assert len(groups) < len(lengths)
    else:
        assert len(groups) == len(lengths)


@given(lengths_st, st.integers(min_value=0, max_value=2000))
def test_groups_fit_unless_single_overflow_or_forced_pairs(lengths: list[int], budget: int) -> None:
    groups = pack_merge_groups(lengths, budget)
    singles, forced = group_overflows(groups, lengths, budget)
    over = [g for g in groups if sum(lengths[i] for i in g) > budget]
    assert singles + forced == len(over)
    if forced:
        # pairs are forced only when no two neighbours fit together
        assert all(a + b > budget for a, b in itertools.pairwise(lengths))
        assert all(len(g) <= 2 for g in groups)
    else:
        assert all(len(g) == 1 for g in over)


@given(lengths_st, st.integers(min_value=0, max_value=2000))
def test_packing_is_greedy(lengths: list[int], budget: int) -> None:
    groups = pack_merge_groups(lengths, budget)
    _, forced = group_overflows(groups, lengths, budget)
    if forced:
        return
    for g, nxt in itertools.pairwise(groups):
        # the next item would not have fitted into this group
        assert sum(lengths[i] for i in g) + lengths[nxt[0]] > budget


@given(st.lists(st.integers(min_value=1, max_value=900), min_size=1, max_size=40))
def test_repeated_levels_terminate(lengths: list[int]) -> None:
    levels = 0
    while len(lengths) > 1:
        groups = pack_merge_groups(lengths, 1000)
        lengths = [min(900, sum(lengths[i] for i in g)) for g in groups]
        levels += 1
        assert levels <= 40


def test_pack_examples() -> None:
    assert pack_merge_groups([], 10) == []
    assert pack_merge_groups([3, 3, 3, 3], 6) == [[0, 1], [2, 3]]
    assert pack_merge_groups([3, 20, 3, 3], 6) == [[0], [1], [2, 3]]
    assert pack_merge_groups([5, 5, 5], 6) == [[0, 1], [2]]  # forced pairs
    assert group_overflows([[0, 1], [2]], [5, 5, 5], 6) == (0, 1)
    assert group_overflows([[0], [1], [2, 3]], [3, 20, 3, 3], 6) == (1, 0)


def test_chunk_summary_tokens() -> None:
    assert chunk_summary_tokens(1, 100, 900) == 900
    assert chunk_summary_tokens(2, 5000, 900) == 900
    assert chunk_summary_tokens(10, 5000, 900) == 500
    assert chunk_summary_tokens(100, 5000, 900) == 225  # floor: a quarter of the limit
    assert chunk_summary_tokens(100, 5000, 900, min_ratio=0.0) == 50


def test_trim_prior_context_keeps_whole_sentences_from_the_end() -> None:
    text = " ".join(f"Sentence number {i} happened." for i in range(50))
    assert trim_prior_context(text, 10_000) == text
    assert trim_prior_context(text, 0) == ""
    trimmed = trim_prior_context(text, 30)
    assert text.endswith(trimmed)
    assert trimmed.startswith("Sentence number")
    assert count_tokens(trimmed) <= 30
    assert trimmed.endswith("Sentence number 49 happened.")


def test_trim_prior_context_cuts_tokens_when_one_sentence_is_too_long() -> None:
    text = "word " * 200 + "end."
    trimmed = trim_prior_context(text, 15)
    assert trimmed and count_tokens(trimmed) <= 15
    assert text.endswith(trimmed)
