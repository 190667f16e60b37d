"""The LongFormFact loader: schema, validation, sentence alignment, folders, remote cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.books import DataError
from longform_evals.data.longformfact import (
    INSTRUCTION,
    LONGFORMFACT_SUBSETS,
    load_longformfact,
    load_longformfact_remote,
    load_longformfact_with_report,
)

DOCS = ["The council met on Monday. It approved the budget.", "The mayor spoke last."]


def summary_record(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "subset": "qmsum",
        "id": None,
        "documents": DOCS,
        "document": " ".join(DOCS),
        "summary": "The council approved the budget. The mayor spoke first.",
        "model": "gpt3",
        "faithfulness": 0,
    }
    record.update(overrides)
    return record


def sentence_record(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "subset": "longeval_pubmed",
        "documents": DOCS,
        "document": " ".join(DOCS),
        "summary": "The council met. It approved the budget. The mayor spoke.",
        "faithfulness": [1, None, 0],
        "ranking": [1, 0],
    }
    record.update(overrides)
    return record


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_summary_level_sample(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", [summary_record(), summary_record(faithfulness=1)])
    samples = load_longformfact(path)
    assert [s.id for s in samples] == ["qmsum-0", "qmsum-1"]
    sample = samples[0]
    assert sample.input == INSTRUCTION
    meta = sample.metadata
    assert meta is not None
    assert meta["subset"] == "qmsum"
    assert meta["documents"] == DOCS
    assert meta["summary"] == "The council approved the budget. The mayor spoke first."
    assert meta["summary_sentences"] == [
        "The council approved the budget.",
        "The mayor spoke first.",
    ]
    assert meta["label_level"] == "summary"
    assert meta["labels"] == 0
    assert meta["ranking"] is None
    assert meta["model"] == "gpt3"
    assert meta["source_id"] is None
    assert meta["source"] == f"{path}:1"
    assert samples[1].metadata is not None and samples[1].metadata["labels"] == 1


def test_sentence_level_aligned_with_split_sentences(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", [sentence_record()])
    samples, report = load_longformfact_with_report(path)
    meta = samples[0].metadata
    assert meta is not None
    assert samples[0].id == "longeval_pubmed-0"
    assert meta["label_level"] == "sentence"
    assert meta["labels"] == [1, None, 0]
    assert meta["summary_sentences"] == [
        "The council met.",
        "It approved the budget.",
        "The mayor spoke.",
    ]
    assert meta["ranking"] == [1, 0]
    assert meta["model"] is None
    assert report.loaded == {"longeval_pubmed": 1}
    assert report.n_skipped == 0


def test_lower_case_summary_is_split_as_the_labels_were(tmp_path: Path) -> None:
    # NLTK's Punkt (the labels' splitter) ends sentences before lower-case words too.
    record = sentence_record(
        summary="pet / ct stages lymphoma. however, its role is limited. we report a case.",
        faithfulness=[0, 1, 1],
    )
    samples, report = load_longformfact_with_report(write_jsonl(tmp_path / "x.jsonl", [record]))
    meta = samples[0].metadata
    assert meta is not None
    assert meta["summary_sentences"] == [
        "pet / ct stages lymphoma.",
        "however, its role is limited.",
        "we report a case.",
    ]
    assert report.n_skipped == 0


def test_misaligned_sentences_raise_naming_file_line_and_counts(tmp_path: Path) -> None:
    records = [sentence_record(), sentence_record(faithfulness=[1, 0])]
    path = write_jsonl(tmp_path / "x.jsonl", records)
    with pytest.raises(DataError) as info:
        load_longformfact(path)
    message = str(info.value)
    assert f"{path}:2" in message
    assert "2 sentence labels, but the summary has 3 sentences" in message
    assert "sent_tokenize" in message


def test_misaligned_sentences_skipped_and_counted(tmp_path: Path) -> None:
    records = [sentence_record(faithfulness=[1, 0]), sentence_record(), summary_record()]
    path = write_jsonl(tmp_path / "x.jsonl", records)
    samples, report = load_longformfact_with_report(path, on_mismatch="skip")
    # Ids count every record of the subset, so they do not depend on what was skipped.
    assert [s.id for s in samples] == ["longeval_pubmed-1", "qmsum-0"]
    assert report.n_skipped == 1 and report.skipped[0].startswith(f"{path}:1:")
    assert report.loaded == {"longeval_pubmed": 1, "qmsum": 1}
    assert report.n_loaded == 2
    assert len(load_longformfact(path, on_mismatch="skip")) == 2


def test_invalid_on_mismatch(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", [summary_record()])
    with pytest.raises(ValueError, match="on_mismatch"):
        load_longformfact(path, on_mismatch="ignore")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        ({"documents": []}, "'documents' is empty"),
        ({"documents": ["", "  "]}, "'documents' is empty"),
        ({"documents": "text"}, "list of strings"),
        ({"documents": None, "document": None}, "missing field 'documents'"),
        ({"summary": ""}, "'summary'"),
        ({"summary": None}, "'summary'"),
        ({"faithfulness": 2}, "'faithfulness'"),
        ({"faithfulness": 0.5}, "'faithfulness'"),
        ({"faithfulness": True}, "'faithfulness'"),
        ({"faithfulness": "1"}, "'faithfulness'"),
        ({"faithfulness": []}, "'faithfulness'"),
        ({"faithfulness": [1, "0"]}, "'faithfulness'"),
        ({"ranking": [0, "1"]}, "'ranking'"),
    ],
)
def test_bad_records_name_file_and_line(
    tmp_path: Path, overrides: dict[str, Any], needle: str
) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", [summary_record(), summary_record(**overrides)])
    with pytest.raises(DataError) as info:
        load_longformfact(path)
    assert f"{path}:2" in str(info.value)
    assert needle in str(info.value)


def test_missing_labels_and_bad_json(tmp_path: Path) -> None:
    record = summary_record()
    del record["faithfulness"]
    with pytest.raises(DataError, match=r"x\.jsonl:1: missing field 'faithfulness'"):
        load_longformfact(write_jsonl(tmp_path / "x.jsonl", [record]))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(summary_record()) + "\n\n{oops\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.jsonl:3: not valid JSON"):
        load_longformfact(bad)


def test_missing_documents_fall_back_to_document(tmp_path: Path) -> None:
    record = summary_record()
    del record["documents"]
    samples = load_longformfact(write_jsonl(tmp_path / "x.jsonl", [record]))
    assert samples[0].metadata is not None
    assert samples[0].metadata["documents"] == [" ".join(DOCS)]


def test_empty_documents_are_kept_for_ranking(tmp_path: Path) -> None:
    record = summary_record(documents=[*DOCS, ""], ranking=[2, 0, 1])
    samples = load_longformfact(write_jsonl(tmp_path / "x.jsonl", [record]))
    assert samples[0].metadata is not None
    assert samples[0].metadata["documents"] == [*DOCS, ""]
    assert samples[0].metadata["ranking"] == [2, 0, 1]


def test_folder_subsets_from_file_names_and_filter(tmp_path: Path) -> None:
    # The published files carry no `subset` field: the file name gives it.
    folder = tmp_path / "metric_benchmark"
    folder.mkdir()
    plain = summary_record()
    del plain["subset"]
    write_jsonl(folder / "qmsum.jsonl", [plain, {**plain, "model": "gpt4"}])
    sent = sentence_record()
    del sent["subset"]
    write_jsonl(folder / "longeval_squality.jsonl", [sent])
    (folder / "notes.txt").write_text("not data", encoding="utf-8")
    samples = load_longformfact(folder)
    assert [s.id for s in samples] == ["longeval_squality-0", "qmsum-0", "qmsum-1"]
    only = load_longformfact(folder, subsets=["qmsum"])
    assert [s.id for s in only] == ["qmsum-0", "qmsum-1"]
    with pytest.raises(DataError, match="multinews"):
        load_longformfact(folder, subsets=["qmsum", "multinews"])


def test_filtered_out_records_are_not_validated(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "x.jsonl", [summary_record(subset="multinews", summary=""), summary_record()]
    )
    assert [s.id for s in load_longformfact(path, subsets=["qmsum"])] == ["qmsum-0"]


def test_missing_source(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        load_longformfact(tmp_path / "absent.jsonl")
    with pytest.raises(DataError, match=r"no \.jsonl"):
        load_longformfact(tmp_path)


def test_remote_loader_downloads_once_into_the_cache(tmp_path: Path) -> None:
    # A file:// template exercises the download and cache without any network access.
    published = tmp_path / "published"
    published.mkdir()
    plain = summary_record()
    del plain["subset"]
    write_jsonl(published / "qmsum.jsonl", [plain])
    cache = tmp_path / "cache"
    template = published.as_uri() + "/{subset}.jsonl"
    samples = load_longformfact_remote(["qmsum"], cache, url_template=template)
    assert [s.id for s in samples] == ["qmsum-0"]
    assert (cache / "main" / "qmsum.jsonl").is_file()  # under the pinned revision
    (published / "qmsum.jsonl").unlink()  # the cached copy is used from now on
    assert len(load_longformfact_remote(["qmsum"], cache, url_template=template)) == 1
    with pytest.raises(ConnectionError, match="multinews"):
        load_longformfact_remote(["multinews"], cache, url_template=template)
    assert not (cache / "main" / "multinews.jsonl").exists()
    with pytest.raises(ValueError, match="invalid subset"):
        load_longformfact_remote(["../qmsum"], cache, url_template=template)


def test_published_subsets_constant() -> None:
    assert set(LONGFORMFACT_SUBSETS) == {
        "qmsum",
        "multinews",
        "longeval_pubmed",
        "longeval_squality",
    }


def test_shared_examples_all_align(shared_data: Path) -> None:
    path = shared_data / "longformfact" / "longformfact_12_examples.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    samples, report = load_longformfact_with_report(path)
    assert report.n_skipped == 0
    assert report.loaded == {
        "qmsum": 4,
        "multinews": 4,
        "longeval_squality": 2,
        "longeval_pubmed": 2,
    }
    for sample in samples:
        meta = sample.metadata
        assert meta is not None
        assert meta["documents"] and isinstance(meta["summary"], str)
        if meta["label_level"] == "sentence":
            assert len(meta["summary_sentences"]) == len(meta["labels"])
        else:
            assert meta["subset"] in {"qmsum", "multinews"}
            assert meta["labels"] in (0, 1)


@pytest.mark.parametrize("name", ["longeval_pubmed", "longeval_squality"])
def test_every_published_sentence_labelled_record_loads(shared_data: Path, name: str) -> None:
    # The two files in full, as published (40 records each): no record dropped by the
    # strict default, each with one sentence per label.
    path = shared_data / "longformfact" / "published" / f"{name}.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    samples, report = load_longformfact_with_report(path)
    assert report.loaded == {name: 40} and report.n_skipped == 0
    metas = [s.metadata for s in samples if s.metadata is not None]
    assert all(len(m["summary_sentences"]) == len(m["labels"]) for m in metas)
    # Unfaithful sentences are labelled in both: the records that the old splitter dropped held
    # most of PubMed's.
    assert sum(label == 0 for m in metas for label in m["labels"]) > 40


def test_published_raw_files_load_byte_for_byte(shared_data: Path) -> None:
    # The files as users download them: no `subset`, "id": NaN in qmsum and multinews, no
    # `id` in the longeval files, HTML in the SQuALITY documents.
    folder = shared_data / "longformfact" / "metric_benchmark"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present")
    assert b'"id": NaN' in (folder / "qmsum.jsonl").read_bytes()
    samples, report = load_longformfact_with_report(folder)
    assert [s.id for s in samples] == [
        *(f"longeval_pubmed-{n}" for n in range(2)),
        *(f"longeval_squality-{n}" for n in range(2)),
        *(f"multinews-{n}" for n in range(4)),
        *(f"qmsum-{n}" for n in range(4)),
    ]
    assert report.loaded == {
        "longeval_pubmed": 2,
        "longeval_squality": 2,
        "multinews": 4,
        "qmsum": 4,
    }
    assert report.n_skipped == 0
    metas = [s.metadata for s in samples if s.metadata is not None]
    assert len(metas) == 12
    assert all(m["source_id"] is None for m in metas)
    assert {m["model"] for m in metas if m["subset"] == "multinews"} == {
        "gpt3",
        "pegasus",
        "unisumm",
    }
    squality = [m for m in metas if m["subset"] == "longeval_squality"]
    assert all(m["documents"][0].startswith("<!DOCTYPE html") for m in squality)
    # Multinews clusters end with an empty document, kept so that `ranking` stays valid.
    multinews = [m for m in metas if m["subset"] == "multinews"]
    assert all(m["documents"][-1] == "" and len(m["ranking"]) == 3 for m in multinews)
    again = load_longformfact(folder, subsets=["multinews"])
    assert [s.id for s in again] == [f"multinews-{n}" for n in range(4)]


def test_nan_and_missing_ids_are_no_source_id(tmp_path: Path) -> None:
    nan = summary_record(id=float("nan"), model=float("nan"))
    absent = summary_record()
    del absent["id"]
    path = write_jsonl(tmp_path / "x.jsonl", [nan, absent, summary_record(id=17)])
    assert '"id": NaN' in path.read_text(encoding="utf-8")
    samples = load_longformfact(path)
    assert [s.id for s in samples] == ["qmsum-0", "qmsum-1", "qmsum-2"]
    metas = [s.metadata or {} for s in samples]
    assert [m["source_id"] for m in metas] == [None, None, "17"]
    assert metas[0]["model"] is None
    with pytest.raises(DataError, match=r"x\.jsonl:1: 'id' must be a string"):
        load_longformfact(write_jsonl(tmp_path / "x.jsonl", [summary_record(id=1.5)]))


def test_a_subset_whose_records_are_all_skipped_is_an_error(tmp_path: Path) -> None:
    records = [
        summary_record(),
        sentence_record(faithfulness=[1, 0]),
        sentence_record(faithfulness=[1, 0, 1, 1]),
    ]
    path = write_jsonl(tmp_path / "x.jsonl", records)
    with pytest.raises(DataError) as info:
        load_longformfact_with_report(path, on_mismatch="skip")
    message = str(info.value)
    assert message.startswith(f"{path}: all 2 record(s) of subset 'longeval_pubmed' were skipped")
    assert "2 with sentence labels that do not align" in message
    # Only the subset that lost everything counts: one aligned record is enough.
    path = write_jsonl(tmp_path / "x.jsonl", [*records, sentence_record()])
    samples, report = load_longformfact_with_report(path, on_mismatch="skip")
    assert [s.id for s in samples] == ["qmsum-0", "longeval_pubmed-2"]
    assert report.n_skipped == 2


def test_ranking_indices_must_name_documents(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", [sentence_record(ranking=[0, 2])])
    with pytest.raises(DataError, match=r"x\.jsonl:1: 'ranking' holds 2, not a document index"):
        load_longformfact(path)


def test_blank_single_document_and_bad_bytes(tmp_path: Path) -> None:
    record = summary_record(document="  \n")
    del record["documents"]
    path = write_jsonl(tmp_path / "x.jsonl", [summary_record(), record])
    with pytest.raises(DataError, match=r"x\.jsonl:2: 'document' must be text with words"):
        load_longformfact(path)
    data = "".join(json.dumps(summary_record(model=m)) + "\n" for m in ("a", "b")).encode()
    data += b'{"summary": "\x93"}\n'
    path.write_bytes(data)
    offset = data.index(b"\x93")
    with pytest.raises(DataError, match=rf"x\.jsonl: line 3, byte {offset}: not valid UTF-8"):
        load_longformfact(path)
    path.write_bytes(b"\xef\xbb\xbf" + data[: data.index(b'{"summary"')])
    assert len(load_longformfact(path)) == 2
