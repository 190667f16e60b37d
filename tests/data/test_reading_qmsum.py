"""QMSum loader: .jsonl, .json and folders in QMSum's own schema, filters, errors, shared data."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.qmsum import load_qmsum, meeting_document
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
    "query_type",
    "relevant_text_span",
}


def meeting(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "meeting_id": "m1",
        "topic_list": [{"topic": "Budget", "relevant_text_span": [["0", "2"]]}],
        "general_query_list": [{"query": "Summarize the whole meeting.", "answer": "They met."}],
        "specific_query_list": [
            {
                "query": "What about the budget?",
                "answer": "It grew.",
                "relevant_text_span": [["0", "1"]],
            },
            {
                "query": "What did B say?",
                "answer": "Yes.",
                "relevant_text_span": [[2, 2], ["0", "0"]],
            },
        ],
        "meeting_transcripts": [
            {"speaker": "A", "content": "The budget {vocalsound} grew ."},
            {"speaker": "B", "content": "Um {disfmarker} by how much ?"},
            {"speaker": "B", "content": ""},
        ],
    }
    record.update(overrides)
    return record


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_fixture_samples_follow_the_schema() -> None:
    samples = load_qmsum(reading_fixture("qmsum"))
    meeting_id = "fixture_library_committee"
    assert [s.id for s in samples] == [
        f"{meeting_id}:general:0",
        f"{meeting_id}:specific:0",
        f"{meeting_id}:specific:1",
    ]
    for sample in samples:
        meta = sample.metadata
        assert meta is not None and set(meta) == KEYS
        assert meta["dataset"] == "qmsum" and meta["doc_kind"] == "meeting"
        assert meta["doc_id"] == meeting_id and meta["title"] == ""
        assert meta["doc_questions"] == 3
        assert meta["doc_words"] == len(meta["document"].split())
        assert sample.input == meta["question"] and sample.choices is None
        assert isinstance(sample.target, list) and len(sample.target) == 1
        assert meta["references"] == sample.target
    lines = samples[0].metadata["document"].split("\n") if samples[0].metadata else []
    assert len(lines) == 40
    assert lines[0].startswith("Chair: ")
    assert "{vocalsound}" in samples[0].metadata["document"]  # type: ignore[index]
    assert [s.metadata["query_type"] for s in samples if s.metadata] == [
        "general",
        "specific",
        "specific",
    ]
    spans = [s.metadata["relevant_text_span"] for s in samples if s.metadata]
    assert spans == [None, [[3, 18]], [[20, 25], [27, 27]]]
    # The span of the Volunteer Coordinator's proposal covers that speaker's turns.
    assert lines[21].startswith("Volunteer Coordinator: ") and "three-hour" in lines[21]


@pytest.mark.parametrize(
    ("query_types", "ids"),
    [
        ("general", ["m1:general:0"]),
        (("specific",), ["m1:specific:0", "m1:specific:1"]),
        (["specific", "general"], ["m1:general:0", "m1:specific:0", "m1:specific:1"]),
    ],
)
def test_query_type_filter(tmp_path: Path, query_types: Any, ids: list[str]) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [meeting()])
    samples = load_qmsum(path, query_types=query_types)
    assert [s.id for s in samples] == ids
    assert {s.metadata["doc_questions"] for s in samples if s.metadata} == {len(ids)}


def test_invalid_query_types(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [meeting()])
    for bad in ((), ("topic",), "all"):
        with pytest.raises(ValueError, match="query_types"):
            load_qmsum(path, query_types=bad)


def test_document_is_one_line_per_turn_text_kept() -> None:
    turns = [
        {"speaker": "A", "content": "The budget {vocalsound} grew ."},
        {"speaker": "B", "content": ""},
        {"speaker": "C", "content": "two\nlines"},
    ]
    assert meeting_document(turns) == "A: The budget {vocalsound} grew .\nB: \nC: two lines"


def test_json_file_and_folder(tmp_path: Path) -> None:
    folder = tmp_path / "val"
    folder.mkdir()
    first = meeting()
    del first["meeting_id"]
    (folder / "Bed002.json").write_text(json.dumps(first), encoding="utf-8")
    (folder / "Abc001.json").write_text(json.dumps(meeting(meeting_id="own_id")), encoding="utf-8")
    (folder / "notes.txt").write_text("ignored", encoding="utf-8")
    samples = load_qmsum(folder)
    assert [s.id for s in samples][::3] == ["own_id:general:0", "Bed002:general:0"]
    assert len(samples) == 6
    single = load_qmsum(folder / "Bed002.json", query_types="general")
    assert [s.id for s in single] == ["Bed002:general:0"]


@pytest.mark.parametrize(
    ("overrides", "fragments"),
    [
        ({"meeting_id": None}, ["'meeting_id'"]),
        ({"meeting_transcripts": []}, ["'meeting_transcripts'"]),
        (
            {"meeting_transcripts": [{"speaker": "", "content": "x"}]},
            ["meeting_transcripts[0]", "'speaker'"],
        ),
        (
            {"meeting_transcripts": [{"speaker": "A", "content": 3}]},
            ["meeting_transcripts[0]", "'content'"],
        ),
        ({"meeting_transcripts": ["A: hello"]}, ["meeting_transcripts[0]", "expected an object"]),
        ({"general_query_list": [{"answer": "x"}]}, ["general_query_list[0]", "'query'"]),
        (
            {"general_query_list": [{"query": "Summarize.", "answer": ""}]},
            ["general_query_list[0]", "'Summarize.'", "'answer'"],
        ),
        ({"general_query_list": "Summarize."}, ["'general_query_list' must be a list"]),
        ({"general_query_list": [], "specific_query_list": []}, ["no general or specific queries"]),
        (
            {
                "specific_query_list": [
                    {"query": "Q?", "answer": "A.", "relevant_text_span": [["0", "3"]]}
                ]
            },
            ["specific_query_list[0]", "relevant_text_span[0]", "0..2"],
        ),
        (
            {
                "specific_query_list": [
                    {"query": "Q?", "answer": "A.", "relevant_text_span": [["2", "1"]]}
                ]
            },
            ["relevant_text_span[0]"],
        ),
        (
            {
                "specific_query_list": [
                    {"query": "Q?", "answer": "A.", "relevant_text_span": [["one", "2"]]}
                ]
            },
            ["is not [start, end]"],
        ),
        (
            {
                "specific_query_list": [
                    {"query": "Q?", "answer": "A.", "relevant_text_span": [["1"]]}
                ]
            },
            ["is not [start, end]"],
        ),
        (
            {"specific_query_list": [{"query": "Q?", "answer": "A.", "relevant_text_span": "0-2"}]},
            ["'relevant_text_span' must be a list"],
        ),
    ],
)
def test_malformed_meetings_name_file_line_and_field(
    tmp_path: Path, overrides: dict[str, Any], fragments: list[str]
) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [meeting(meeting_id="ok"), meeting(**overrides)])
    with pytest.raises(DataError) as info:
        load_qmsum(path)
    assert f"{path}:2" in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_malformed_specific_queries_fail_even_when_filtered_out(tmp_path: Path) -> None:
    bad = meeting(specific_query_list=[{"query": "Q?", "answer": ""}])
    with pytest.raises(DataError, match="'answer'"):
        load_qmsum(write_jsonl(tmp_path / "q.jsonl", [bad]), query_types="general")


def test_source_level_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        load_qmsum(tmp_path / "absent.jsonl")
    with pytest.raises(DataError, match=r"holds no \.json meeting files"):
        load_qmsum(tmp_path)
    other = tmp_path / "meeting.txt"
    other.write_text("x", encoding="utf-8")
    with pytest.raises(DataError, match="unsupported QMSum source"):
        load_qmsum(other)
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "meeting_transcripts": [\n  oops', encoding="utf-8")
    with pytest.raises(DataError, match=r"broken.json:3: not valid JSON"):
        load_qmsum(broken)
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match="expected an object"):
        load_qmsum(listed)
    twice = write_jsonl(tmp_path / "twice.jsonl", [meeting(), {**meeting(), "topic_list": ["x"]}])
    with pytest.raises(DataError, match=r"twice.jsonl:2: meeting id 'm1' already used at .*:1"):
        load_qmsum(twice)
    general_only = write_jsonl(tmp_path / "g.jsonl", [meeting(specific_query_list=[])])
    with pytest.raises(DataError, match="holds no queries of type specific"):
        load_qmsum(general_only, query_types="specific")


def test_shared_qmsum_meetings(shared_data: Path) -> None:
    samples = load_qmsum(shared_data / "qmsum" / "qmsum_3_meetings.jsonl")
    per_doc = Counter(s.metadata["doc_id"] for s in samples if s.metadata)
    assert len(per_doc) == 3
    general = load_qmsum(shared_data / "qmsum" / "qmsum_3_meetings.jsonl", query_types="general")
    assert len(general) == 3
    for sample in samples:
        meta = sample.metadata
        assert meta is not None
        assert meta["doc_questions"] == per_doc[meta["doc_id"]]
        n_lines = meta["document"].count("\n") + 1
        for start, end in meta["relevant_text_span"] or []:
            assert 0 <= start <= end < n_lines


def test_shared_qmsum_validation_folder(shared_data: Path) -> None:
    samples = load_qmsum(shared_data / "qmsum" / "val")
    assert len({s.metadata["doc_id"] for s in samples if s.metadata}) == 35
    assert len(samples) == 272
    assert len({s.id for s in samples}) == 272
