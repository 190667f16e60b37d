"""The shared greedy sentence packer and the joining of rewritten pieces."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.text import get_tokenizer, split_sentences
from longform_evals.text.packing import greedy_groups, join_pieces, pack_sentence_spans


@given(lengths=st.lists(st.integers(0, 30), max_size=40), limit=st.integers(1, 50))
def test_greedy_groups_tile_in_order_and_respect_the_limit(lengths: list[int], limit: int) -> None:
    groups = greedy_groups(lengths, limit)
    # The groups tile 0..n in order with no gap or overlap.
    assert [i for start, end in groups for i in range(start, end)] == list(range(len(lengths)))
    assert all(end > start for start, end in groups)
    for start, end in groups:
        total = sum(lengths[start:end])
        assert total <= limit or end - start == 1  # only a lone item may exceed the limit
    # Greedy: the next item would not have fitted in the previous group.
    for (s1, e1), (_, e2) in pairwise(groups):
        assert e2 > e1 and sum(lengths[s1:e1]) + lengths[e1] > limit


def test_greedy_groups_rejects_a_non_positive_limit() -> None:
    with pytest.raises(ValueError, match="packing limit must be positive, got 0"):
        greedy_groups([1, 2], 0)


def test_pack_sentence_spans_and_join() -> None:
    tok = get_tokenizer("cl100k_base")
    text = "One two three. Four five six.\n\nSeven eight nine ten eleven twelve. End."
    runs = pack_sentence_spans(text, 8, tok)
    assert all(tok.count(text[a:b]) <= 8 or len(split_sentences(text[a:b])) == 1 for a, b in runs)
    assert [text[a:b] for a, b in runs] == [
        "One two three. Four five six.",
        "Seven eight nine ten eleven twelve.",
        "End.",
    ]
    assert join_pieces(text, runs, ["A.", "B. ", " C."]) == "A.\n\nB. C."
    assert pack_sentence_spans("", 8, tok) == []
