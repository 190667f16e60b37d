"""Sentence splitting: tricky English cases and offset invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longform_evals.text import sentence_spans, split_sentences

CASES = [
    ('"Stop!" he said.', ['"Stop!" he said.']),
    ('"Stop!" He ran.', ['"Stop!"', "He ran."]),
    ("Mr. Smith met Dr. Jones. They talked.", ["Mr. Smith met Dr. Jones.", "They talked."]),
    (
        "J. R. R. Tolkien wrote it. He was English.",
        ["J. R. R. Tolkien wrote it.", "He was English."],
    ),
    ("Pi is 3.14 or so. Yes.", ["Pi is 3.14 or so.", "Yes."]),
    ("Fruit, e.g., apples. The end.", ["Fruit, e.g., apples.", "The end."]),
    ("Use e.g. this one. Fine.", ["Use e.g. this one.", "Fine."]),
    ("The U.S. Army came. It won.", ["The U.S. Army came.", "It won."]),
    ("He lives in the U.S. He likes it.", ["He lives in the U.S.", "He likes it."]),
    ("Wait... what? No.", ["Wait... what?", "No."]),
    ("It rained... Then it stopped.", ["It rained...", "Then it stopped."]),
    ('He said "I am here." Then he left.', ['He said "I am here."', "Then he left."]),
    ("“Go,” she said. “Now!” He went.", ["“Go,” she said.", "“Now!”", "He went."]),
    ("(This is aside.) Next one.", ["(This is aside.)", "Next one."]),
    ("See No. 5 and p. 12 for more. Thanks.", ["See No. 5 and p. 12 for more.", "Thanks."]),
    ("The answer is no. Then he left.", ["The answer is no.", "Then he left."]),
    ("1. Buy milk. 2. Buy eggs.", ["1. Buy milk.", "2. Buy eggs."]),
    ("Apples, pears, etc. The end.", ["Apples, pears, etc.", "The end."]),
    ("Really?! Yes!! ok then", ["Really?!", "Yes!! ok then"]),
    ("no final punctuation", ["no final punctuation"]),
    ("line one\nline two", ["line one", "line two"]),
    ("Para one.\n\n  Para two.  \r\nThree", ["Para one.", "Para two.", "Three"]),
    ("He said\nMr.\nSmith", ["He said", "Mr.", "Smith"]),
    ("这是一句。这是第二句\uff01", ["这是一句。", "这是第二句\uff01"]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_tricky_cases(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_empty_and_blank() -> None:
    assert sentence_spans("") == []
    assert sentence_spans(" \n\t\n ") == []


def test_spans_are_offsets() -> None:
    text = "  Hi there.  Bye now.\n"
    assert sentence_spans(text) == [(2, 11), (13, 21)]


def test_range_arguments() -> None:
    text = "Skip this. Take this. And this.\nNot this."
    spans = sentence_spans(text, 11, 31)
    assert [text[a:b] for a, b in spans] == ["Take this.", "And this."]


def test_non_str_rejected() -> None:
    with pytest.raises(TypeError, match="list"):
        sentence_spans(["a"])  # type: ignore[arg-type]


def _check_cover(text: str) -> None:
    spans = sentence_spans(text)
    prev = 0
    for a, b in spans:
        assert prev <= a < b <= len(text)
        piece = text[a:b]
        assert piece == piece.strip() and piece
        assert not text[prev:a].strip()  # only whitespace between sentences
        prev = b
    assert not text[prev:].strip()


PIECES = st.sampled_from(
    ["Mr.", "Dr.", "e.g.", "U.S.", "J.", "3.14", "...", "…", "!", "?", '"', "“", "”", "'",
     "(", ")", "Hello", "world", "he", "The", "said.", " ", "  ", "\n", "\n\n", "\r\n", "\t",
     "1.", "a", "。", "é", "😀"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_cover_structured(text: str) -> None:
    _check_cover(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_cover_arbitrary(text: str) -> None:
    _check_cover(text)


def test_book_sized_input() -> None:
    # Speed is measured by benchmarks/text_layer.py, not asserted here.
    sentence = 'Mr. Holmes said "Stop!" and the U.S. agent, e.g. Dr. Watson, paid 3.14 pounds. '
    text = "\n\n".join(sentence * 8 for _ in range(1000))  # 1000 paragraphs, ~104k words
    spans = sentence_spans(text)
    assert len(spans) == 8000
