"""Chunking: losslessness, the token bound, the BooookScore packing rule and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longform_evals.text import Chunk, chunk_text, count_tokens
from longform_evals.text.chunking import _fit


def _check(text: str, chunks: list[Chunk], limit: int, counter: object = "cl100k_base") -> None:
    assert "".join(c.text for c in chunks) == text
    pos = 0
    for i, c in enumerate(chunks):
        assert c.index == i
        assert c.start == pos and c.end > c.start and text[c.start : c.end] == c.text
        assert c.n_tokens == count_tokens(c.text, counter)  # type: ignore[arg-type]
        assert 0 < c.n_tokens <= limit
        if not c.text.strip():
            # A blank chunk only where its whitespace could join neither neighbour.
            for j, k in ((i - 1, i), (i, i + 1)):
                if j >= 0 and k < len(chunks):
                    joined = chunks[j].text + chunks[k].text
                    assert count_tokens(joined, counter) > limit  # type: ignore[arg-type]
        pos = c.end
    assert pos == len(text)


PARAGRAPH = (
    "Mr. Holmes looked up. “You have been in Afghanistan, I perceive,” he said. "
    "I was astonished. How on earth did he know that?"
)


def test_paragraphs_packed_whole() -> None:
    text = "\n\n".join(f"{i}: {PARAGRAPH}" for i in range(20))
    per_para = count_tokens(f"0: {PARAGRAPH}\n\n")
    chunks = chunk_text(text, max_tokens=3 * per_para + 5)
    _check(text, chunks, 3 * per_para + 5)
    assert len(chunks) == 7
    for c in chunks[:-1]:
        assert c.text.endswith(f"{PARAGRAPH}\n\n")  # cut only between paragraphs


def test_whitespace_goes_with_preceding_chunk() -> None:
    text = "  First para.\n\n\n   Second para.\n"
    chunks = chunk_text(text, max_tokens=5)
    assert [c.text for c in chunks] == ["  First para.\n\n\n   ", "Second para.\n"]


def test_long_paragraph_cut_at_sentences() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    assert "\n" not in text
    chunks = chunk_text(text, max_tokens=50)
    _check(text, chunks, 50)
    assert len(chunks) > 1
    assert all(c.text.rstrip().endswith(".") for c in chunks)


def test_ten_thousand_word_paragraph() -> None:
    words = [f"Word{i % 97}" for i in range(10_000)]
    text = " ".join(w + ("." if i % 13 == 12 else "") for i, w in enumerate(words))
    chunks = chunk_text(text, max_tokens=512)
    _check(text, chunks, 512)
    assert all(c.text.rstrip().endswith(".") for c in chunks[:-1])


def test_long_sentence_cut_at_words() -> None:
    text = " ".join(["alpha"] * 500)  # one sentence, no punctuation
    chunks = chunk_text(text, max_tokens=64)
    _check(text, chunks, 64)
    assert all(c.text.endswith(" ") for c in chunks[:-1])


def test_long_word_cut_by_characters() -> None:
    text = "x" * 5000 + " tail"
    chunks = chunk_text(text, max_tokens=16)
    _check(text, chunks, 16)


def test_no_blank_chunk_for_trailing_whitespace() -> None:
    chunks = chunk_text("Thesat. ", max_tokens=4)  # "Thesat." is 4 tokens, "Thesat. " is 5
    assert "".join(c.text for c in chunks) == "Thesat. "
    assert all(c.text.strip() and c.n_tokens <= 4 for c in chunks)


def test_single_character_too_big() -> None:
    with pytest.raises(ValueError, match="too small"):
        chunk_text("😀", max_tokens=1)  # the emoji alone is two cl100k tokens


def test_small_text_is_one_chunk() -> None:
    assert chunk_text("Hello.") == [Chunk("Hello.", 0, 6, 2, 0)]


def test_custom_counter() -> None:
    text = "\n".join(PARAGRAPH for _ in range(10))
    chunks = chunk_text(text, max_tokens=100, tokenizer=len)
    _check(text, chunks, 100, len)


@pytest.mark.parametrize("bad", [b"bytes", None, 3, ["a"]])
def test_non_str_rejected(bad: object) -> None:
    with pytest.raises(TypeError, match=type(bad).__name__):
        chunk_text(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t "])
def test_empty_text_rejected(text: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        chunk_text(text)


@pytest.mark.parametrize("limit", [0, -5])
def test_bad_max_tokens(limit: int) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        chunk_text("text", max_tokens=limit)
    with pytest.raises(TypeError, match="max_tokens"):
        chunk_text("text", max_tokens=2.5)  # type: ignore[arg-type]


def test_fit_finds_largest_on_monotone() -> None:
    for target in range(0, 40):
        for guess in (0, 5, 39):
            assert _fit(lambda k, t=target: k <= t, 0, 39, guess) == target  # type: ignore[misc]


def test_book_sized_input() -> None:
    # Speed is measured by benchmarks/text_layer.py, not asserted here.
    para = " ".join([PARAGRAPH] * 4)
    text = "\n\n".join(para for _ in range(1500))  # ~106k words
    chunks = chunk_text(text, max_tokens=2048)
    _check(text, chunks, 2048)
    assert len(chunks) > 50


FRAGMENTS = st.sampled_from(
    ["The", "cat", "sat.", "Mr.", "Hello!", '"Stop!"', "he", "said.", "3.14", "…", "é", "😀",
     "x" * 30, " ", "  ", "\n", "\n\n", "\r\n", "\t", "中文。", "<|endoftext|>"]
)  # fmt: skip
TEXTS = st.one_of(
    st.lists(FRAGMENTS, min_size=1, max_size=80).map("".join),
    st.text(min_size=1, max_size=300),
).filter(lambda t: t.strip() != "")


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.integers(min_value=4, max_value=40))
def test_properties_cl100k(text: str, limit: int) -> None:
    _check(text, chunk_text(text, max_tokens=limit), limit)


@settings(max_examples=100, deadline=None)
@given(TEXTS, st.integers(min_value=1, max_value=30))
def test_properties_char_counter(text: str, limit: int) -> None:
    _check(text, chunk_text(text, max_tokens=limit, tokenizer=len), limit, len)
