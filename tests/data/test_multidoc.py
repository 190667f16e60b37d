"""The multi-document loader of the positional-bias task: schema, published files, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.multidoc import INSTRUCTION, load_multidoc, sample_documents

DOCS = ["The council met on Monday.", "The bridge will reopen in May.", ""]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_samples_keep_blank_documents_among_others(tmp_path: Path) -> None:
    path = write(
        tmp_path / "docs.jsonl",
        [
            {"id": "a", "documents": DOCS, "ranking": [1, 2, 0], "summary": "not carried"},
            {"documents": DOCS[:2], "reference": "The bridge reopens."},
        ],
    )
    first, second = load_multidoc(path)
    assert (first.id, second.id) == ("a", "2")
    assert first.input == INSTRUCTION
    assert first.metadata == {
        "documents": DOCS,
        "ranking": [1, 2, 0],
        "reference": None,
        "source": f"{path}:1",
    }
    assert second.metadata is not None and second.metadata["reference"] == "The bridge reopens."


def test_nan_ids_of_the_published_files_fall_back_to_line_numbers(tmp_path: Path) -> None:
    # json.dumps writes NaN as the published multinews lines do: "id": NaN.
    records = [
        {"id": float("nan"), "documents": DOCS, "ranking": r} for r in ([1, 2, 0], [0, 1, 2])
    ]
    path = write(tmp_path / "multinews.jsonl", records)
    assert '"id": NaN' in path.read_text(encoding="utf-8")
    assert [s.id for s in load_multidoc(path)] == ["1", "2"]


def test_published_multinews_file_loads(shared_data: Path) -> None:
    path = shared_data / "longformfact" / "metric_benchmark" / "multinews.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    samples = load_multidoc(path)
    assert [s.id for s in samples] == ["1", "2", "3", "4"]
    for sample in samples:
        assert sample.metadata is not None
        documents = sample.metadata["documents"]
        assert len(documents) == 3 and documents[2] == ""  # kept: ranking refers to positions
        assert sorted(sample.metadata["ranking"]) == [0, 1, 2]


@pytest.mark.parametrize(
    ("record", "needle"),
    [
        ({"documents": ["", " \n "]}, "'documents' have no words"),
        ({"documents": []}, "'documents' must be a non-empty list of strings"),
        ({"documents": "text"}, "'documents' must be a non-empty list of strings"),
        ({"documents": ["a", 3]}, "'documents' must be a non-empty list of strings"),
        ({"documents": DOCS, "ranking": [0, 3]}, "'ranking' holds 3, not a document index (0..2)"),
        ({"documents": DOCS, "ranking": [-1]}, "'ranking' holds -1"),
        ({"documents": DOCS, "ranking": [1, 1]}, "'ranking' lists a document twice"),
        ({"documents": DOCS, "ranking": [True]}, "'ranking' must be a list of document indices"),
        ({"documents": DOCS, "ranking": [int("9" * 99)]}, "'ranking' holds 999"),
        ({"documents": DOCS, "reference": 3}, "'reference' must be a string"),
        ({"documents": DOCS, "id": [1]}, "'id' must be a non-empty string or an integer"),
        ({"documents": DOCS, "id": "1"}, "id '1' already used at"),
    ],
)
def test_bad_records_name_file_and_line(
    tmp_path: Path, record: dict[str, Any], needle: str
) -> None:
    path = write(tmp_path / "docs.jsonl", [{"documents": DOCS}, record])
    with pytest.raises(DataError) as info:
        load_multidoc(path)
    assert str(info.value).startswith(f"{path}:2: ")
    assert needle in str(info.value)


def test_missing_or_empty_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        load_multidoc(tmp_path / "absent.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="no samples"):
        load_multidoc(empty)
    huge = tmp_path / "huge.jsonl"
    huge.write_text('{"documents": ["a"], "ranking": [' + "9" * 5000 + "]}\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"huge\.jsonl:1: a JSON integer has 5000 digits"):
        load_multidoc(huge)


def test_sample_documents_reads_either_metadata_field() -> None:
    assert sample_documents({"documents": ["a", "b"]}, "s") == ["a", "b"]
    assert sample_documents({"document": "a"}, "s") == ["a"]
    assert sample_documents({}, "s", default="the input") == ["the input"]
    with pytest.raises(ValueError, match="sample 's' has no source documents"):
        sample_documents(None, "s")
    with pytest.raises(ValueError, match="must be a non-empty list of texts"):
        sample_documents({"documents": ["a", 3]}, "s")
    with pytest.raises(ValueError, match="must be a string, not int"):
        sample_documents({"document": 3}, "s")
