"""NarrativeQA loaders: local JSONL, the Hugging Face row mapping, errors, the shared excerpt."""

from __future__ import annotations

import hashlib
import json
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.narrativeqa import (
    load_narrativeqa,
    load_narrativeqa_hf,
    narrativeqa_samples_from_rows,
)
from longform_evals.data.reading import reading_fixture

KEYS = {
    "dataset",
    "doc_id",
    "title",
    "document",
    "doc_kind",
    "doc_words",
    "doc_questions",
    "question",
    "references",
    "story_kind",
}
PASSAGE = "A miller hides a letter in a sack of flour. His daughter finds it at the market."
OTHER = "Two sisters run a ferry. One of them sells it to pay a debt."


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def line(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "question": "Where is the letter hidden?",
        "answer": ["In a sack of flour.", "In the flour."],
        "passage": PASSAGE,
    }
    record.update(overrides)
    return record


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_fixture_samples_follow_the_schema() -> None:
    samples = load_narrativeqa(reading_fixture("narrativeqa"))
    assert len(samples) == 4
    doc_ids = list(dict.fromkeys(s.metadata["doc_id"] for s in samples if s.metadata))
    assert len(doc_ids) == 2
    assert [s.id for s in samples] == [f"{d}:{n}" for d in doc_ids for n in (0, 1)]
    for sample in samples:
        meta = sample.metadata
        assert meta is not None and set(meta) == KEYS
        assert meta["dataset"] == "narrativeqa" and meta["doc_kind"] == "summary"
        assert meta["doc_id"] == digest(meta["document"])
        assert sample.input == meta["question"]
        assert sample.choices is None
        assert isinstance(sample.target, list) and len(sample.target) == 2
        assert meta["references"] == sample.target
        assert meta["doc_questions"] == 2
        assert meta["doc_words"] == len(meta["document"].split())
        assert meta["title"]
    assert [s.metadata["story_kind"] for s in samples if s.metadata] == [
        "gutenberg",
        "gutenberg",
        "movie",
        "movie",
    ]


@pytest.mark.parametrize("kind", ["gutenberg", "movie"])
def test_kind_filter(kind: str) -> None:
    samples = load_narrativeqa(reading_fixture("narrativeqa"), kind=kind)
    assert len(samples) == 2
    assert all(s.metadata and s.metadata["story_kind"] == kind for s in samples)
    assert all(str(s.id).endswith((":0", ":1")) for s in samples)


def test_questions_are_grouped_by_identical_passage(tmp_path: Path) -> None:
    records = [
        line(),
        line(passage=OTHER, question="Who sells it?"),
        line(question="Who finds it?"),
    ]
    samples = load_narrativeqa(write_jsonl(tmp_path / "n.jsonl", records))
    assert [s.id for s in samples] == [
        f"{digest(PASSAGE)}:0",
        f"{digest(PASSAGE)}:1",
        f"{digest(OTHER)}:0",
    ]
    assert [s.input for s in samples] == [
        "Where is the letter hidden?",
        "Who finds it?",
        "Who sells it?",
    ]
    assert [s.metadata["doc_questions"] for s in samples if s.metadata] == [2, 2, 1]
    assert all(
        s.metadata and s.metadata["story_kind"] is None and s.metadata["title"] == ""
        for s in samples
    )


def test_a_single_answer_string_is_accepted(tmp_path: Path) -> None:
    samples = load_narrativeqa(write_jsonl(tmp_path / "n.jsonl", [line(answer="Flour.")]))
    assert samples[0].target == ["Flour."]


@pytest.mark.parametrize(
    ("record", "fragments"),
    [
        (line(question=None), ["'question'"]),
        (line(answer=[]), ["'answer'", "Where is the letter"]),
        (line(answer=["ok", 3]), ["'answer'"]),
        (line(answer=None), ["'answer'"]),
        (line(passage=""), ["'passage'"]),
        (line(kind="novel"), ["'kind'", "'novel'"]),
        (line(title=5, kind="gutenberg"), ["'title'"]),
        (line(kind="movie"), ["'kind' differs"]),
    ],
)
def test_malformed_lines_name_file_line_and_field(
    tmp_path: Path, record: dict[str, Any], fragments: list[str]
) -> None:
    path = write_jsonl(tmp_path / "n.jsonl", [line(kind="gutenberg"), record])
    with pytest.raises(DataError) as info:
        load_narrativeqa(path)
    assert f"{path}:2" in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_kind_filter_needs_kind_fields(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "n.jsonl", [line(kind="movie"), line(passage=OTHER)])
    with pytest.raises(DataError, match=r"n.jsonl:2 .*no field 'kind'"):
        load_narrativeqa(path, kind="movie")
    with pytest.raises(ValueError, match="kind must be"):
        load_narrativeqa(path, kind="summary")
    only_movies = write_jsonl(tmp_path / "m.jsonl", [line(kind="movie")])
    with pytest.raises(DataError, match="holds no questions of kind 'gutenberg'"):
        load_narrativeqa(only_movies, kind="gutenberg")


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        load_narrativeqa(tmp_path / "absent.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(DataError, match=r"empty\.jsonl: file is empty"):
        load_narrativeqa(empty)


def hf_row(doc_id: str, kind: str, question: str, answers: list[str]) -> dict[str, Any]:
    """A row in the deepmind/narrativeqa layout (fields not read are left out)."""
    return {
        "document": {
            "id": doc_id,
            "kind": kind,
            "url": "",
            "text": f"<html>full story {doc_id}</html> and more words",
            "summary": {"text": f"Summary of {doc_id}.", "title": f"Title {doc_id}"},
        },
        "question": {"text": question, "tokens": question.split()},
        "answers": [{"text": a, "tokens": a.split()} for a in answers],
    }


ROWS = [
    hf_row("b1", "gutenberg", "Who?", ["A miller.", "The miller."]),
    hf_row("m1", "movie", "Where?", ["At sea.", "On a boat."]),
    hf_row("b1", "gutenberg", "Why?", ["For money.", "Debt."]),
]


def test_hf_rows_use_the_full_story_by_default() -> None:
    samples = narrativeqa_samples_from_rows(ROWS)
    assert [s.id for s in samples] == ["b1:0", "b1:1", "m1:0"]
    first = samples[0].metadata
    assert first is not None and set(first) == KEYS
    assert first["document"] == "<html>full story b1</html> and more words"
    assert first["doc_kind"] == "gutenberg" and first["story_kind"] == "gutenberg"
    assert first["title"] == "Title b1" and first["doc_questions"] == 2 and first["doc_words"] == 6
    assert samples[0].target == ["A miller.", "The miller."]
    assert samples[2].metadata is not None and samples[2].metadata["doc_kind"] == "movie"


def test_hf_rows_summaries_only_and_kind_filter() -> None:
    samples = narrativeqa_samples_from_rows(ROWS, summaries_only=True, kind="movie")
    assert [s.id for s in samples] == ["m1:0"]
    meta = samples[0].metadata
    assert meta is not None
    assert meta["document"] == "Summary of m1." and meta["doc_kind"] == "summary"
    assert meta["story_kind"] == "movie"


def test_hf_rows_of_other_kinds_are_not_read_beyond_their_kind() -> None:
    broken_movie = {"document": {"id": "m2", "kind": "movie"}, "question": None}
    samples = narrativeqa_samples_from_rows([*ROWS, broken_movie], kind="gutenberg")
    assert [s.id for s in samples] == ["b1:0", "b1:1"]


def test_hf_row_errors_name_row_document_and_field() -> None:
    no_answers = hf_row("b2", "gutenberg", "What?", [])
    with pytest.raises(DataError, match=r"row 0 \(document b2\) 'What\?': field 'answers'"):
        narrativeqa_samples_from_rows([no_answers])
    bad_answer = hf_row("b2", "gutenberg", "What?", ["ok"])
    bad_answer["answers"].append({"text": ""})
    with pytest.raises(DataError, match=r"'answers\[\].text'"):
        narrativeqa_samples_from_rows([bad_answer])
    no_id = hf_row("", "movie", "What?", ["x"])
    with pytest.raises(DataError, match=r"src row 0: document: missing or empty field 'id'"):
        narrativeqa_samples_from_rows([no_id], origin="src")
    no_question = {**hf_row("b3", "movie", "Q", ["x"]), "question": {"text": " "}}
    with pytest.raises(DataError, match=r"row 0 \(document b3\): question: .*'text'"):
        narrativeqa_samples_from_rows([no_question])
    changed = hf_row("b1", "gutenberg", "How?", ["x"])
    changed["document"]["text"] = "another text"
    with pytest.raises(DataError, match=r"row 3 \(document b1\): document 'b1' was seen before"):
        narrativeqa_samples_from_rows([*ROWS, changed])
    no_summary = hf_row("b4", "movie", "Q", ["x"])
    del no_summary["document"]["summary"]
    with pytest.raises(DataError, match=r"field 'document.summary'"):
        narrativeqa_samples_from_rows([no_summary])
    with pytest.raises(ValueError, match="kind must be"):
        narrativeqa_samples_from_rows(ROWS, kind="book")


def test_load_narrativeqa_hf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"longform-evals\[hf\]"):
        load_narrativeqa_hf()
    calls: list[tuple[str, str, str]] = []

    def load_dataset(dataset_id: str, split: str, revision: str) -> list[dict[str, Any]]:
        calls.append((dataset_id, split, revision))
        return ROWS

    fake = types.ModuleType("datasets")
    fake.load_dataset = load_dataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    samples = load_narrativeqa_hf("validation", kind="gutenberg", summaries_only=True)
    assert calls == [("deepmind/narrativeqa", "validation", "main")]  # the pinned revision
    assert [s.id for s in samples] == ["b1:0", "b1:1"]


def test_shared_narrativeqa_excerpt(shared_data: Path) -> None:
    samples = load_narrativeqa(shared_data / "narrativeqa" / "test-tiny.jsonl")
    assert len(samples) == 50
    per_doc = Counter(s.metadata["doc_id"] for s in samples if s.metadata)
    for sample in samples:
        assert sample.metadata is not None
        assert sample.metadata["doc_questions"] == per_doc[sample.metadata["doc_id"]]
        assert sample.metadata["doc_kind"] == "summary"
        assert isinstance(sample.target, list) and len(sample.target) == 2
    assert len({s.id for s in samples}) == 50
