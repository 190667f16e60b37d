"""Document-boundary chunking of multi-document inputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.text import (
    DocChunk,
    chunk_documents,
    count_tokens,
    parse_chunk_mode,
    split_sentences,
)

DOCS = [
    "First document. It is short.",
    "\n\n".join(f"Second document, paragraph {i}. It goes on for a while." for i in range(40)),
    "Third.",
]


def test_natural_mode_one_chunk_per_document() -> None:
    chunks = chunk_documents(DOCS)
    assert [(c.doc_index, c.chunk_index) for c in chunks] == [(0, 0), (1, 0), (2, 0)]
    assert [c.text for c in chunks] == DOCS
    assert all(c.n_tokens == count_tokens(c.text) for c in chunks)
    assert chunks[1] == DocChunk(1, 0, DOCS[1], count_tokens(DOCS[1]), 0, len(DOCS[1]))


def test_token_mode_never_crosses_documents() -> None:
    chunks = chunk_documents(DOCS, mode="tokens:64")
    for i, doc in enumerate(DOCS):
        mine = [c for c in chunks if c.doc_index == i]
        assert "".join(c.text for c in mine) == doc
        assert [c.chunk_index for c in mine] == list(range(len(mine)))
        assert all(doc[c.start : c.end] == c.text and c.n_tokens <= 64 for c in mine)
    assert len([c for c in chunks if c.doc_index == 1]) > 1
    assert [c.doc_index for c in chunks] == sorted(c.doc_index for c in chunks)


def test_custom_tokenizer() -> None:
    chunks = chunk_documents(DOCS, mode="tokens:100", tokenizer=len)
    assert all(c.n_tokens == len(c.text) <= 100 for c in chunks)


@pytest.mark.parametrize(
    ("mode", "limit"),
    [("natural", None), ("tokens:1", 1), ("tokens:1024", 1024), ("words:400", 400)],
)
def test_parse_mode(mode: str, limit: int | None) -> None:
    assert parse_chunk_mode(mode) == limit


@pytest.mark.parametrize("mode", ["", "Natural", "tokens", "tokens:", "tokens:0", "tokens:-3",
                                  "tokens:1k", " tokens:10", "words:0", "words",
                                  "sentences:4"])  # fmt: skip
def test_bad_mode(mode: str) -> None:
    with pytest.raises(ValueError, match=r"natural.*tokens:N") as info:
        chunk_documents(DOCS, mode=mode)
    assert repr(mode) in str(info.value)


def test_empty_document_list() -> None:
    with pytest.raises(ValueError, match="documents is empty"):
        chunk_documents([])


def test_word_mode_packs_whole_sentences() -> None:
    chunks = chunk_documents(DOCS, mode="words:25")
    for i, doc in enumerate(DOCS):
        mine = [c for c in chunks if c.doc_index == i]
        assert "".join(c.text for c in mine) == doc
        assert all(doc[c.start : c.end] == c.text for c in mine)
        # Every sentence lies inside one chunk, and chunks keep to the word limit.
        assert sum(len(split_sentences(c.text)) for c in mine) == len(split_sentences(doc))
        assert all(len(c.text.split()) <= 25 for c in mine)
    # 40 paragraphs of 4 + 6 words: whole sentences up to 24 words per chunk.
    assert len([c for c in chunks if c.doc_index == 1]) == 20


def test_word_mode_long_sentence_is_its_own_chunk() -> None:
    doc = "Short one. Long" + " word" * 30 + ". Another short one."
    texts = [c.text for c in chunk_documents([doc], mode="words:10")]
    assert texts == ["Short one. ", "Long" + " word" * 30 + ". ", "Another short one."]


@given(
    st.lists(
        st.sampled_from(["Alpha beta.", "Gamma delta epsilon!", "Zeta?", "\n\n", " ", "eta theta"]),
        min_size=1,
        max_size=30,
    ),
    st.integers(min_value=1, max_value=12),
)
def test_word_mode_tiles_any_document(pieces: list[str], limit: int) -> None:
    doc = " ".join(pieces)
    if not doc.strip():
        return
    chunks = chunk_documents([doc], mode=f"words:{limit}")
    assert "".join(c.text for c in chunks) == doc
    assert [c.start for c in chunks[1:]] == [c.end for c in chunks[:-1]]
    assert all(c.text.strip() for c in chunks)


@pytest.mark.parametrize("mode", ["natural", "tokens:10", "words:10"])
def test_empty_document_named(mode: str) -> None:
    with pytest.raises(ValueError, match="document 2 is empty"):
        chunk_documents(["a", "b", "  \n", "d"], mode=mode)


def test_bad_document_types() -> None:
    with pytest.raises(TypeError, match="single str"):
        chunk_documents("just one string")
    with pytest.raises(TypeError, match="document 1 must be str, not int"):
        chunk_documents(["a", 5])  # type: ignore[list-item]
