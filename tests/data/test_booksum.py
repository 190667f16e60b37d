"""BookSum loading: local JSONL, kmfoda-layout and booksum-complete-layout rows, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.booksum import (
    booksum_complete_samples_from_rows,
    booksum_samples_from_rows,
    load_booksum,
    load_booksum_complete_hf,
    load_booksum_hf,
)
from longform_evals.data.jsonl import DataError


def test_bundled_fixture() -> None:
    samples = load_booksum()
    assert [s.id for s in samples] == ["tallow-lane:1", "tallow-lane:2"]
    meta = samples[0].metadata or {}
    assert samples[0].input == "Summarize this chapter of 'The Clocks of Tallow Lane'."
    assert samples[0].target == meta["references"] and len(meta["references"]) == 1
    assert meta["dataset"] == "booksum" and meta["level"] == "chapter"
    assert meta["question"] == "" and meta["title"] == "The Clocks of Tallow Lane"
    assert meta["doc_words"] == len(meta["document"].split()) > 250


def _write(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _local(doc_id: str = "b1", level: str = "book", summaries: Any = None) -> dict[str, Any]:
    return {
        "doc_id": doc_id,
        "title": "T",
        "text": "Some text.",
        "summaries": ["S."] if summaries is None else summaries,
        "level": level,
    }


def test_local_levels_and_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, [_local("b1"), _local("c1", "chapter")])
    [book] = load_booksum(path, level="book")
    assert book.input == "Summarize the book 'T'." and (book.metadata or {})["level"] == "book"
    with pytest.raises(ValueError, match="level"):
        load_booksum(path, level="paragraph")
    with pytest.raises(DataError, match=r"b\.jsonl:2: sample 'c1' has no reference summaries"):
        load_booksum(_write(tmp_path, [_local(), _local("c1", summaries=[])]))
    with pytest.raises(DataError, match=r"b\.jsonl:1: summaries\[0\]"):
        load_booksum(_write(tmp_path, [_local(summaries=[""])]))
    with pytest.raises(DataError, match=r"b\.jsonl:1: field 'level'"):
        load_booksum(_write(tmp_path, [_local(level="page")]))
    with pytest.raises(DataError, match=r"b\.jsonl:2: id 'b1' already used"):
        load_booksum(_write(tmp_path, [_local(), {**_local(), "title": "Another title"}]))
    with pytest.raises(DataError, match="holds no chapters or books"):
        load_booksum(_write(tmp_path, [_local()]), level="chapter")


def test_kmfoda_rows_merge_guides_per_chapter() -> None:
    rows = [
        {"book_id": "Dr. Jekyll.chapter 1", "chapter": "Text one.", "summary_text": "G1."},
        {"book_id": "Dr. Jekyll.chapter 2", "chapter": "Text two.", "summary_text": "G1 two."},
        {"book_id": "Dr. Jekyll.chapter 1", "chapter": "Text one.", "summary_text": "G2."},
        # Same id, another chapterization: kept apart.
        {"book_id": "Dr. Jekyll.chapter 1", "chapter": "Text one, longer.", "summary_text": "G3."},
    ]
    samples = booksum_samples_from_rows(rows, "hand")
    assert [len(s.target) for s in samples] == [2, 1, 1]
    assert samples[0].id == "Dr. Jekyll.chapter 1" and samples[0].target == ["G1.", "G2."]
    assert str(samples[2].id).startswith("Dr. Jekyll.chapter 1@")
    assert (samples[0].metadata or {})["title"] == "Dr. Jekyll"
    with pytest.raises(DataError, match=r"hand row 0: .*'summary_text'"):
        booksum_samples_from_rows([{"book_id": "x", "chapter": "t"}], "hand")


def test_complete_rows() -> None:
    rows = [
        {"bid": 7, "title": "Book", "text": "Whole.", "summary": [{"text": "A."}, {"text": "B."}]},
        {"bid": 8, "book_title": "Other", "text": "Whole 2.", "summary": ["C."]},
    ]
    samples = booksum_complete_samples_from_rows(rows, "book", "hand")
    assert [s.id for s in samples] == ["7", "8"]
    assert samples[0].target == ["A.", "B."]
    assert (samples[1].metadata or {})["title"] == "Other"
    with pytest.raises(DataError, match=r"hand row 0: sample '7' has no reference summaries"):
        booksum_complete_samples_from_rows([{**rows[0], "summary": []}], "book", "hand")


def test_hf_without_datasets_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"longform-evals\[hf\]"):
        load_booksum_hf()
    with pytest.raises(ImportError, match=r"longform-evals\[hf\]"):
        load_booksum_complete_hf("book")
