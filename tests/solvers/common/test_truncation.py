"""Truncation policies of the full-context baseline."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.solvers.common.truncation import (
    OMISSION_MARK,
    document_shares,
    fit_documents,
    truncate_to_budget,
)
from longform_evals.text import count_tokens

DOC = "\n".join(f"Line {i:03d} of the book. Émile paid 5 €." for i in range(200))


def test_short_document_is_kept_whole() -> None:
    cut = truncate_to_budget("A short book.", 100, "middle")
    assert cut.text == "A short book." and not cut.truncated
    record = cut.as_metadata()
    assert record == {
        "truncated": False,
        "kept_tokens": count_tokens("A short book."),
        "dropped_tokens": 0,
        "policy": "middle",
    }
    assert list(record) == ["truncated", "kept_tokens", "dropped_tokens", "policy"]


def test_first_keeps_the_beginning() -> None:
    cut = truncate_to_budget(DOC, 100, "first")
    assert cut.truncated and DOC.startswith(cut.text)
    assert count_tokens(cut.text) <= 100 and cut.kept_tokens <= 100
    assert cut.kept_tokens + cut.dropped_tokens == count_tokens(DOC)
    assert "Line 000" in cut.text and "Line 199" not in cut.text


def test_last_keeps_the_end() -> None:
    cut = truncate_to_budget(DOC, 100, "last")
    assert cut.truncated and DOC.endswith(cut.text)
    assert count_tokens(cut.text) <= 100
    assert "Line 199" in cut.text and "Line 000" not in cut.text


def test_middle_keeps_both_ends_and_marks_the_gap() -> None:
    cut = truncate_to_budget(DOC, 100, "middle")
    head, tail = cut.text.split(OMISSION_MARK)
    assert DOC.startswith(head) and DOC.endswith(tail)
    assert "Line 000" in head and "Line 199" in tail and "Line 100" not in cut.text
    assert count_tokens(cut.text) <= 100
    assert abs(count_tokens(head) - count_tokens(tail)) <= 2
    assert cut.kept_tokens + cut.dropped_tokens == count_tokens(DOC)


def test_multibyte_characters_are_not_split() -> None:
    text = "日本語のテキスト。" * 300
    for policy in ("first", "last", "middle"):
        cut = truncate_to_budget(text, 51, policy)  # type: ignore[arg-type]
        assert "\ufffd" not in cut.text
        assert count_tokens(cut.text) <= 51


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="policy"):
        truncate_to_budget(DOC, 10, "start")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="budget"):
        truncate_to_budget(DOC, -1)


@given(
    st.lists(st.integers(min_value=0, max_value=500), min_size=1, max_size=8),
    st.integers(min_value=0, max_value=1500),
)
def test_document_shares_are_fair_and_within_budget(lengths: list[int], budget: int) -> None:
    shares = document_shares(lengths, budget)
    assert sum(shares) <= budget
    assert all(0 <= s <= n for s, n in zip(shares, lengths, strict=True))
    if sum(lengths) <= budget:
        assert shares == lengths
    else:
        # Every cut document gets at least as much as any other document gets (within 1).
        cut = [s for s, n in zip(shares, lengths, strict=True) if s < n]
        assert cut and max(shares) - min(cut) <= 1
        assert sum(shares) >= budget - len(lengths)


def test_fit_documents_cuts_long_documents_only() -> None:
    short, long_a, long_b = "A short note.", "alpha " * 300, "beta " * 300
    kept, dropped = fit_documents([long_a, short, long_b], 200)
    assert kept[1] == short and dropped[1] == 0
    assert dropped[0] > 0 and dropped[2] > 0
    assert sum(count_tokens(k) for k in kept) <= 200
    assert long_a.startswith(kept[0]) and long_b.startswith(kept[2])
    assert fit_documents([short], 100) == ([short], [0])
    with pytest.raises(ValueError, match="budget"):
        document_shares([1, 2], -1)
