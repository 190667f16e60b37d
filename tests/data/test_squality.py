"""SQuALITY loading: the bundled fixture, hand-made rows, errors, and the shared dev excerpt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.squality import (
    load_squality,
    load_squality_hf,
    squality_samples_from_rows,
)


def _row(doc_id: str = "s1", responses: list[str] | None = None) -> dict[str, Any]:
    refs = ["First summary.", "Second summary."] if responses is None else responses
    return {
        "metadata": {"passage_id": doc_id, "uid": "u", "license": "x"},
        "document": "A Title\n\n Body text of the story here.",
        "questions": [
            {
                "question_text": "What happens?",
                "question_number": 1,
                "responses": [{"worker_id": "w", "uid": "r", "response_text": t} for t in refs],
            },
            {"question_text": "Who is A?", "responses": [{"response_text": "A is a person."}]},
        ],
    }


def test_rows_map_to_samples() -> None:
    samples = squality_samples_from_rows([_row()], "hand")
    assert [s.id for s in samples] == ["s1:0", "s1:1"]
    first = samples[0]
    assert first.input == "What happens?"
    assert first.target == ["First summary.", "Second summary."]
    assert first.metadata == {
        "dataset": "squality",
        "doc_id": "s1",
        "title": "A Title",
        "document": "A Title\n\n Body text of the story here.",
        "doc_words": 8,
        "doc_questions": 2,
        "question": "What happens?",
        "question_number": 1,
        "references": ["First summary.", "Second summary."],
    }
    assert samples[1].metadata and samples[1].metadata["question_number"] is None


def test_bundled_fixture() -> None:
    samples = load_squality()
    assert len(samples) == 2
    for sample in samples:
        meta = sample.metadata or {}
        assert len(sample.target) == 4 and meta["references"] == sample.target
        assert 1400 <= meta["doc_words"] <= 1600
        assert meta["title"] == "The Lamplighter of Corran Quay"


def test_empty_reference_list_names_the_sample() -> None:
    with pytest.raises(DataError, match=r"hand row 0.*sample 's1:0' has no reference summaries"):
        squality_samples_from_rows([_row(responses=[])], "hand")


def test_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bad = _row("s2")
    bad["questions"][1]["responses"][0]["response_text"] = "  "
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(_row()) + "\n\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.jsonl:3 .*responses\[0\].*'response_text'"):
        load_squality(path)
    no_doc = _row()
    del no_doc["document"]
    with pytest.raises(DataError, match=r"row 0 \(story s1\).*'document'"):
        squality_samples_from_rows([no_doc])
    with pytest.raises(DataError, match="already used"):
        squality_samples_from_rows([_row(), _row()])
    with pytest.raises(DataError, match="metadata"):
        squality_samples_from_rows([{"document": "x", "questions": []}])
    with pytest.raises(DataError, match="not found"):
        load_squality(tmp_path / "missing.jsonl")


def test_hf_without_datasets_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"longform-evals\[hf\]"):
        load_squality_hf()


def test_shared_dev_excerpt(shared_data: Path) -> None:
    samples = load_squality(shared_data / "squality" / "squality_3_dev_stories.jsonl")
    assert len(samples) == 15
    assert all(len(s.target) == 4 for s in samples)
    meta = samples[0].metadata or {}
    assert meta["doc_id"] == "63041" and meta["title"] == "Morgue Ship"
    assert meta["doc_questions"] == 5 and meta["doc_words"] > 3000
