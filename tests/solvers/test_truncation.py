"""Truncation policies of the full-context baseline."""

from __future__ import annotations

import pytest

from longform_evals.solvers import truncate_to_budget
from longform_evals.solvers.truncation import OMISSION_MARK
from longform_evals.text import count_tokens

DOC = "\n".join(f"Line {i:03d} of the book. Émile paid 5 €." for i in range(200))


def test_short_document_is_kept_whole() -> None:
    cut = truncate_to_budget("A short book.", 100, "middle")
    assert cut.text == "A short book." and not cut.truncated
    assert cut.as_metadata() == {
        "truncated": False,
        "kept_tokens": count_tokens("A short book."),
        "dropped_tokens": 0,
        "policy": "middle",
    }


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
