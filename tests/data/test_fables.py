"""FABLES: claims per (book, model) in the published shape, labels, evidence, zip, book texts."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.fables import fables_flag, load_fables
from longform_evals.data.labels.schema import METADATA_KEYS


def claim(text: str, label: Any, evidence: Any = None, reason: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"claim": text, "label": label}
    if evidence is not None:
        out["evidence"] = evidence
    if reason is not None:
        out["reason"] = reason
    return out


def fables() -> dict[str, Any]:
    """Two books, two models for the first: the layout of the repository's README."""
    return {
        "Wildfire": {
            "CLAUDE-3-OPUS": {
                "general_comment": "Chronological and factual.",
                "summary": "Wildfire follows Aurora and Russ at a summer camp.",
                "claims": {
                    # Keys are numbers as strings; "10" comes after "2".
                    "10": claim("Russ plays hockey.", "Yes", ["'He skated.'"], []),
                    "0": claim(
                        "Wildfire is the first book of its series.",
                        "No",
                        ["n/a"],
                        ["It is the second, after Icebreaker."],
                    ),
                    "2": claim("Aurora's father owns an F1 team.", "PartialSupport", [], None),
                    "1": claim("The camp is in California.", "Inapplicable", ["N/A", " "]),
                },
            },
            "GPT-4": {
                "general_comment": "",
                "summary": "",
                "claims": {"0": claim("Aurora works at a camp.", "Yes")},
            },
        },
        "Flawless": {
            "MIXTRAL": {
                "general_comment": "Vague.",
                "summary": "Flawless is a sports romance.",
                "claims": {"0": claim("Flawless is a romance.", "Yes", "'A love story.'")},
            }
        },
    }


def write(tmp_path: Path, data: Any, name: str = "FABLES.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def metas(labels: Any) -> dict[str, dict[str, Any]]:
    return {str(s.id): s.metadata for s in labels.samples}


def test_schema_labels_and_notes(tmp_path: Path) -> None:
    path = write(tmp_path, fables())
    labels = load_fables(path)
    assert (labels.kind, labels.format, labels.source) == ("faithfulness", "fables", str(path))
    assert labels.annotators == ["annotators"] and labels.skipped == []
    assert [s.id for s in labels.samples] == [
        "fables/Wildfire/CLAUDE-3-OPUS",
        "fables/Wildfire/GPT-4",
        "fables/Flawless/MIXTRAL",
    ]
    meta = metas(labels)["fables/Wildfire/CLAUDE-3-OPUS"]
    assert tuple(meta) == METADATA_KEYS
    assert meta["summary"] == "Wildfire follows Aurora and Russ at a summer camp."
    assert meta["summary_sentences"] == [
        "Wildfire is the first book of its series.",
        "The camp is in California.",
        "Aurora's father owns an F1 team.",
        "Russ plays hockey.",
    ]
    assert meta["unit"] == "claim" and meta["group"] == "Wildfire"
    assert meta["system"] == "CLAUDE-3-OPUS" and meta["document"] is None
    # No -> 1, Inapplicable -> None, PartialSupport -> 1, Yes -> 0.
    assert meta["flags"] == {"annotators": [1, None, 1, 0]}
    assert meta["unit_types"] == [["No"], ["Inapplicable"], ["PartialSupport"], ["Yes"]]
    assert meta["unit_notes"] == [
        ["reason: It is the second, after Icebreaker."],
        [],
        [],
        ["evidence: 'He skated.'"],
    ]
    assert meta["summary_flags"] == {} and meta["human_scores"] == {}
    assert meta["source"] == f"{path}#Wildfire/CLAUDE-3-OPUS"
    # A blank summary falls back to the claims; evidence given as one string is kept.
    assert metas(labels)["fables/Wildfire/GPT-4"]["summary"] == "Aurora works at a camp."
    assert metas(labels)["fables/Flawless/MIXTRAL"]["unit_notes"] == [["evidence: 'A love story.'"]]


@pytest.mark.parametrize(
    ("label", "flag"),
    [("Yes", 0), ("No", 1), ("PartialSupport", 1), ("Partial Support", 1), ("inapplicable", None)],
)
def test_label_flags(label: str, flag: int | None) -> None:
    assert fables_flag(label) == flag


def test_unlabelled_claim_is_none_and_listed(tmp_path: Path) -> None:
    data = fables()
    data["Flawless"]["MIXTRAL"]["claims"]["1"] = claim("It has a sequel.", None)
    path = write(tmp_path, data)
    labels = load_fables(path)
    assert metas(labels)["fables/Flawless/MIXTRAL"]["flags"]["annotators"] == [0, None]
    assert [(s.where, s.reason) for s in labels.skipped] == [
        (f"{path}#Flawless/MIXTRAL claim 1", "claim without a label: not rated")
    ]


def test_summary_without_claims_is_listed(tmp_path: Path) -> None:
    data = fables()
    data["Flawless"]["MIXTRAL"]["claims"] = {}
    labels = load_fables(write(tmp_path, data))
    assert len(labels.samples) == 2
    assert labels.skipped[0].reason == "no claims: nothing to judge"


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda c: c.update({"0": claim("X.", "Maybe")}), "claim 0: unknown label 'Maybe'"),
        (lambda c: c.update({"0": claim("X.", 1)}), "claim 0: 'label' must be a string"),
        (lambda c: c.update({"0": claim("", "Yes")}), "claim 0: missing or empty 'claim'"),
        (lambda c: c.update({"first": claim("X.", "Yes")}), "claim key 'first' is not a number"),
        (lambda c: c.update({"0": claim("X.", "No", 5)}), "'evidence' must be a list"),
    ],
)
def test_malformed_claims_name_book_model_and_claim(
    tmp_path: Path, change: Any, needle: str
) -> None:
    data = fables()
    change(data["Flawless"]["MIXTRAL"]["claims"])
    path = write(tmp_path, data)
    with pytest.raises(DataError) as info:
        load_fables(path)
    assert f"{path}#Flawless/MIXTRAL" in str(info.value) and needle in str(info.value)


def test_zipped_file_and_folder(tmp_path: Path) -> None:
    archive = tmp_path / "FABLES.json.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("FABLES.json", json.dumps(fables()))
        z.writestr("__MACOSX/._FABLES.json", b"\x00")
    assert len(load_fables(archive).samples) == 3
    assert len(load_fables(tmp_path).samples) == 3
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("readme.txt", "no json")
    with pytest.raises(DataError, match=r"exactly one \.json file, found 0"):
        load_fables(archive)


def test_books_from_a_folder_or_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, fables())
    books = tmp_path / "books"
    books.mkdir()
    (books / "wildfire.txt").write_text("Aurora came to camp.", encoding="utf-8")
    labels = load_fables(path, books=books)
    assert [s.id for s in labels.samples] == [
        "fables/Wildfire/CLAUDE-3-OPUS",
        "fables/Wildfire/GPT-4",
    ]
    assert metas(labels)["fables/Wildfire/GPT-4"]["document"] == "Aurora came to camp."
    assert [(s.where, s.reason) for s in labels.skipped] == [
        (f"{path}#Flawless/MIXTRAL", f"book text not found in {books}")
    ]
    mapped = load_fables(path, books={"Flawless": "A season of hockey."})
    assert [s.id for s in mapped.samples] == ["fables/Flawless/MIXTRAL"]
    assert len(mapped.skipped) == 2
    (books / "Flawless.txt").write_text("  \n", encoding="utf-8")
    with pytest.raises(DataError, match=r"Flawless\.txt: book file is empty"):
        load_fables(path, books=books)
    with pytest.raises(DataError, match=r"nowhere: not found.*expected a folder of the books"):
        load_fables(path, books=tmp_path / "nowhere")
