"""The common judge-label schema, the format dispatcher and the LongFormFact adapter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.dataset import Sample

from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.load import detect_judge_label_format, load_judge_labels
from longform_evals.data.labels.longformfact import longformfact_label_set
from longform_evals.data.labels.schema import (
    METADATA_KEYS,
    JudgeLabelSet,
    PeoplesLabels,
    Skipped,
    SummaryOrigin,
    judge_sample,
)
from longform_evals.data.longformfact import load_longformfact

DOCS = ["The council met on Monday. It approved the budget.", "The mayor spoke last."]


def booookscore_file(folder: Path) -> Path:
    path = folder / "summary-gpt4-4096-inc.json"
    record = {"summary": "Mara keeps a lamp. Tom returns.", "singles": [], "relations": []}
    path.write_text(json.dumps({"keeper.epub": record}), encoding="utf-8")
    return path


def fables_file(folder: Path) -> Path:
    path = folder / "FABLES.json"
    claims = {"0": {"claim": "Mara keeps a lamp.", "label": "Yes", "evidence": [], "reason": []}}
    data = {"Keeper": {"GPT-4": {"summary": "S.", "general_comment": "", "claims": claims}}}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def longsciverify_folder(folder: Path) -> Path:
    folder.mkdir()
    header = ["id", "gencomparesumabs", "dancersum", "section_conditional"]
    cells = ["0806.4325", "a b. c d.", "e f.", "g h."]
    for k in (1, 2, 3):
        header += [f"model_{k}_coherence", f"model_{k}_fluency"]
        header += [f"model_{k}_sent_{j}_factuality" for j in (1, 2, 3)]
        cells += [str(k), str(k), "1", "0", ""]
    text = ",".join(header) + "\r\n" + ",".join(cells) + "\r\n"
    (folder / "arxiv_reviewer_1.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    articles = [{"article_id": "0806.4325", "article_text": ["x y ."], "abstract_text": []}]
    (folder / "arxiv_test.json").write_text(json.dumps(articles), encoding="utf-8")
    return folder


def longformfact_file(folder: Path) -> Path:
    path = folder / "longeval_pubmed.jsonl"
    records = [
        {
            "documents": DOCS,
            "document": " ".join(DOCS),
            "summary": "The council met. It approved the budget. The mayor spoke.",
            "faithfulness": [1, None, 0],
            "model": "gpt3",
        },
        {
            "id": float("nan"),
            "documents": DOCS,
            "document": " ".join(DOCS),
            "summary": "The council approved the budget. The mayor spoke first.",
            "faithfulness": 0,
            "model": "bart",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


MAKERS = {
    "booookscore": booookscore_file,
    "fables": fables_file,
    "longformfact": longformfact_file,
}


@pytest.mark.parametrize("fmt", [*MAKERS, "longsciverify"])
def test_every_format_is_detected_and_loaded_in_the_schema(tmp_path: Path, fmt: str) -> None:
    path = (
        longsciverify_folder(tmp_path / "lsv") if fmt == "longsciverify" else MAKERS[fmt](tmp_path)
    )
    assert detect_judge_label_format(path) == fmt
    labels = load_judge_labels(path)
    assert labels.format == fmt and labels.source == str(path) and labels.samples
    assert labels.kind == ("coherence" if fmt == "booookscore" else "faithfulness")
    for sample in labels.samples:
        meta = sample.metadata
        assert meta is not None and tuple(meta) == METADATA_KEYS
        assert str(sample.id).startswith(f"{fmt}/")
        assert set(meta["flags"]) <= set(labels.annotators)
        n = len(meta["summary_sentences"])
        assert all(len(v) == n for v in meta["flags"].values())
        assert len(meta["unit_types"]) == n == len(meta["unit_notes"])
    # A folder of one format is recognized too.
    folder = path if path.is_dir() else path.parent
    assert detect_judge_label_format(folder) == fmt


def test_longformfact_adapter_converts_labels(tmp_path: Path) -> None:
    path = longformfact_file(tmp_path)
    labels = load_judge_labels(path, kind="faithfulness")
    assert labels.annotators == ["annotators"] and labels.skipped == []
    sentence, summary = labels.samples
    assert sentence.id == "longformfact/longeval_pubmed-0"
    meta = sentence.metadata
    assert meta is not None
    assert meta["unit"] == "sentence" and meta["summary_flags"] == {}
    assert meta["flags"] == {"annotators": [0, None, 1]}  # 1 = faithful in the file
    assert meta["document"] == "\n\n".join(DOCS) and meta["system"] == "gpt3"
    assert meta["source"] == f"{path}:1"
    other = summary.metadata
    assert other is not None
    # A summary-level label: the whole summary is the one unit.
    assert other["unit"] == "summary" and other["summary_flags"] == {"annotators": 1}
    assert other["flags"] == {"annotators": [1]}
    assert other["summary_sentences"] == [other["summary"]]
    # Summaries of the same documents share a group.
    assert meta["group"] == other["group"] and meta["group"].startswith("longeval_pubmed/")
    direct = longformfact_label_set(load_longformfact(path), str(path))
    assert [s.metadata for s in direct.samples] == [s.metadata for s in labels.samples]


def test_longformfact_skips_are_carried(tmp_path: Path) -> None:
    path = longformfact_file(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[0]) | {"faithfulness": [1, 0]}
    path.write_text(lines[1] + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"longeval_pubmed\.jsonl:2: 2 sentence labels"):
        load_judge_labels(path)
    labels = load_judge_labels(path, on_mismatch="skip")
    assert len(labels.samples) == 1
    [skip] = labels.skipped
    assert skip.where == f"{path}:2" and skip.reason.startswith("2 sentence labels")


def test_wrong_kind_is_refused_naming_path_and_kinds(tmp_path: Path) -> None:
    path = longformfact_file(tmp_path)
    with pytest.raises(DataError) as info:
        load_judge_labels(path, kind="coherence")
    assert str(info.value) == (
        f"{path}: holds longformfact labels, which are faithfulness labels, but coherence "
        "labels are required"
    )
    with pytest.raises(DataError, match="booookscore labels, which are coherence labels"):
        load_judge_labels(booookscore_file(tmp_path), kind="faithfulness")
    with pytest.raises(ValueError, match="kind must be"):
        load_judge_labels(path, kind="style")  # type: ignore[arg-type]


def test_quality_jsonl_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "quality.jsonl"
    record = {"article_id": "1", "article": "Text.", "questions": [{"question": "Q?"}]}
    path.write_text("\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_judge_labels(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: not a LongFormFact record")
    assert "'summary' and 'faithfulness'" in message and "article_id" in message


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("x.json", '{"a": {"b": 1}}', "not a human-label file of a known format; expected"),
        ("x.json", "[1, 2]", "not a human-label file of a known format"),
        ("x.json", "{}", "the JSON value is empty"),
        ("x.json", "", "file is empty"),
        ("x.jsonl", "", "file is empty"),
        ("x.jsonl", "\n\n", "holds no records"),
        ("arxiv_reviewer_1.csv", "", "file is empty"),
        ("notes.csv", "a,b\n", "read only as a LongSciVerify reviewer file"),
        ("x.txt", "text", "unknown file type '.txt'"),
        (
            "annotations-gpt4-4096-inc.json",
            '{"b.epub": {"summary": "S.", "annotations": []}}',
            "agreement annotations",
        ),
    ],
)
def test_unknown_and_empty_files_name_the_path(
    tmp_path: Path, name: str, content: str, needle: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_judge_labels(path)
    assert str(info.value).startswith(str(path)) and needle in str(info.value)


def test_folders_without_one_format(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="folder holds no human-label files"):
        load_judge_labels(tmp_path)
    booookscore_file(tmp_path)
    fables_file(tmp_path)
    with pytest.raises(DataError, match=r"several formats \(booookscore, fables\)"):
        load_judge_labels(tmp_path)
    with pytest.raises(DataError, match="no such file or folder"):
        load_judge_labels(tmp_path / "missing")


def test_options_reach_the_format_loader(tmp_path: Path) -> None:
    path = booookscore_file(tmp_path)
    labels = load_judge_labels(path, exclude_books=["keeper.epub"])
    assert labels.samples == [] and labels.skipped[0].where.endswith("#keeper.epub")
    with pytest.raises(TypeError, match="books"):
        load_judge_labels(path, books={})


def test_judge_sample_checks_its_shape() -> None:
    common: dict[str, Any] = {
        "summary": "A. B.",
        "summary_sentences": ["A.", "B."],
        "unit": "sentence",
        "origin": SummaryOrigin("g", None, None, "f:1"),
    }
    sample = judge_sample("x/1", "d", labels=PeoplesLabels({"a": [1, None]}), **common)
    assert sample.metadata is not None and sample.metadata["unit_types"] == [[], []]
    assert sample.metadata["group"] == "g" and sample.metadata["source"] == "f:1"
    with pytest.raises(ValueError, match=r"flags\['a'\] has 1 entries for 2 units"):
        judge_sample("x/1", "d", labels=PeoplesLabels({"a": [1]}), **common)
    with pytest.raises(ValueError, match="a flag must be 0, 1 or None"):
        judge_sample("x/1", "d", labels=PeoplesLabels({"a": [1, 2]}), **common)
    with pytest.raises(ValueError, match="a flag must be 0, 1 or None"):
        judge_sample("x/1", "d", labels=PeoplesLabels({"a": [True, 0]}), **common)
    with pytest.raises(ValueError, match="unit_notes has 1 entries"):
        judge_sample("x/1", "d", labels=PeoplesLabels({}, unit_notes=[[]]), **common)
    with pytest.raises(ValueError, match="unit must be"):
        judge_sample("x/1", "d", labels=PeoplesLabels({}), **(common | {"unit": "word"}))


def test_label_set_refuses_duplicate_ids() -> None:
    twice = [Sample(id="a/1", input="d"), Sample(id="a/1", input="d")]
    with pytest.raises(ValueError, match="'a/1' already used at"):
        JudgeLabelSet("coherence", "booookscore", "f", twice, [], ["annotators"])
    with pytest.raises(ValueError, match="kind must be"):
        JudgeLabelSet("style", "x", "f", [], [Skipped("f", "r")], [])  # type: ignore[arg-type]


def test_shared_files_through_the_dispatcher(shared_data: Path) -> None:
    root = shared_data / "human_labels"
    coherence = load_judge_labels(root / "booookscore", kind="coherence")
    assert coherence.format == "booookscore" and len(coherence.samples) == 98
    faithfulness = load_judge_labels(root / "longsciverify", kind="faithfulness")
    assert faithfulness.format == "longsciverify" and len(faithfulness.samples) == 45
    with pytest.raises(DataError, match="which are faithfulness labels"):
        load_judge_labels(root / "longsciverify" / "arxiv_test.json", kind="coherence")
