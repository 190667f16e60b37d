"""Trigram novelty and repetition statistics."""

from __future__ import annotations

import pytest

from longform_evals.text import novel_trigram_pct, repeated_trigram_pct, trigrams, words


def test_words_and_trigrams() -> None:
    assert words("The cat, the CAT!") == ["the", "cat", "the", "cat"]
    assert trigrams(["a", "b", "c", "d"]) == [("a", "b", "c"), ("b", "c", "d")]
    assert trigrams(["a", "b"]) == []


def test_novel_trigrams() -> None:
    source = "the cat sat on the mat"
    assert novel_trigram_pct("The cat sat.", source) == 0.0
    assert novel_trigram_pct("the cat ran away", source) == 100.0
    # distinct trigrams: (the cat sat) old, (cat sat down) new
    assert novel_trigram_pct("the cat sat down", source) == pytest.approx(50.0)
    assert novel_trigram_pct("too short", source) == 0.0


def test_repeated_trigrams() -> None:
    assert repeated_trigram_pct("a b c d e") == 0.0
    # trigrams: abc bca cab abc -> one of four repeats an earlier one
    assert repeated_trigram_pct("a b c a b c") == pytest.approx(25.0)
    assert repeated_trigram_pct("") == 0.0
