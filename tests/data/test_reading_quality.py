"""QuALITY loaders: local JSONL, the Hugging Face row mapping, errors, the shared excerpt."""

from __future__ import annotations

import hashlib
import json
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.data.jsonl import DataError
from longform_evals.data.quality import (
    load_quality,
    load_quality_hf,
    quality_samples_from_rows,
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
    "hard",
    "gold_index",
}
ARTICLE = "The lighthouse keeper counted ships.\n\nShe wrote each one in a ledger."


def question(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "question": "What did the keeper count?",
        "options": ["Ships", "Birds", "Waves", "Stars"],
        "gold_label": 1,
    }
    record.update(overrides)
    return record


def article(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "article_id": "a1",
        "title": "The Keeper",
        "source": "hand-made",
        "article": ARTICLE,
        "questions": [question(), question(question="Where did she write?", gold_label=4)],
    }
    record.update(overrides)
    return record


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_fixture_samples_follow_the_schema() -> None:
    samples = load_quality(reading_fixture("quality"))
    assert [s.id for s in samples] == [
        "fixture-ferry:0",
        "fixture-ferry:1",
        "fixture-ferry:2",
        "fixture-swifts:0",
        "fixture-swifts:1",
        "fixture-swifts:2",
    ]
    for sample in samples:
        meta = sample.metadata
        assert meta is not None and set(meta) == KEYS
        assert meta["dataset"] == "quality" and meta["doc_kind"] == "article"
        assert sample.input == meta["question"]
        assert sample.choices is not None and len(sample.choices) == 4
        assert sample.target == "ABCD"[meta["gold_index"]]
        assert meta["references"] == [sample.choices[meta["gold_index"]]]
        assert meta["doc_questions"] == 3
        assert meta["doc_words"] == len(meta["document"].split())
        assert 400 <= meta["doc_words"] <= 700
        assert meta["document"].count("\n\n") >= 3
    first = samples[0]
    assert first.metadata is not None and first.metadata["title"] == "The Ferry at Callow Reach"
    assert [s.metadata["hard"] for s in samples if s.metadata] == [
        False,
        True,
        False,
        False,
        False,
        True,
    ]


def test_hard_only_keeps_ids_and_recounts_documents() -> None:
    samples = load_quality(reading_fixture("quality"), hard_only=True)
    assert [s.id for s in samples] == ["fixture-ferry:1", "fixture-swifts:2"]
    assert all(
        s.metadata and s.metadata["hard"] and s.metadata["doc_questions"] == 1 for s in samples
    )


def test_hard_field_maps_like_difficult(tmp_path: Path) -> None:
    record = article(questions=[question(hard=True), question(difficult=0), question()])
    path = write_jsonl(tmp_path / "q.jsonl", [record])
    assert [s.metadata["hard"] for s in load_quality(path) if s.metadata] == [True, False, False]
    assert [s.id for s in load_quality(path, hard_only=True)] == ["a1:0"]


def test_same_article_on_two_lines_continues_the_document(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [article(), article(questions=[question()])])
    samples = load_quality(path)
    assert [s.id for s in samples] == ["a1:0", "a1:1", "a1:2"]
    assert {s.metadata["doc_questions"] for s in samples if s.metadata} == {3}


def test_missing_article_id_uses_a_hash_of_the_text(tmp_path: Path) -> None:
    record = article()
    del record["article_id"], record["title"]
    samples = load_quality(write_jsonl(tmp_path / "q.jsonl", [record]))
    digest = hashlib.sha256(ARTICLE.encode()).hexdigest()[:12]
    assert samples[0].id == f"{digest}:0"
    assert samples[0].metadata is not None and samples[0].metadata["title"] == ""


@pytest.mark.parametrize(
    ("record", "fragments"),
    [
        (article(article=" "), ["'article'"]),
        (article(article_id=["x"]), ["'article_id'"]),
        (article(questions=[]), ["'questions'"]),
        (article(questions="many"), ["'questions'"]),
        (article(questions=["not an object"]), ["questions[0]", "expected an object"]),
        (article(questions=[question(question="")]), ["questions[0]", "'question'"]),
        (article(questions=[question(options=None)]), ["no choices", "What did the keeper"]),
        (article(questions=[question(options=["Ships"])]), ["no choices"]),
        (article(questions=[question(options=["a", "", "c", "d"])]), ["'options'"]),
        (article(questions=[question(options=list("abcdefghijklmnopqrstuvwxyz!"))]), ["27"]),
        (article(questions=[question(gold_label=0)]), ["'gold_label' = 0", "1..4"]),
        (article(questions=[question(), question(gold_label=5)]), ["questions[1]", "= 5"]),
        (article(questions=[question(gold_label="first")]), ["'gold_label'"]),
        (article(questions=[question(gold_label=True)]), ["'gold_label'"]),
        (article(questions=[question(gold_label=None)]), ["no gold label"]),
        (article(questions=[question(difficult="yes")]), ["'difficult'"]),
        (article(questions=[question(hard=True, difficult=False)]), ["disagree"]),
    ],
)
def test_malformed_lines_name_file_line_and_field(
    tmp_path: Path, record: dict[str, Any], fragments: list[str]
) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [article(article_id="ok"), record])
    with pytest.raises(DataError) as info:
        load_quality(path)
    assert f"{path}:2" in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_same_article_id_with_another_text_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [article(), article(article="Another text.")])
    with pytest.raises(DataError, match=r":2: article_id 'a1' was seen before"):
        load_quality(path)


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        load_quality(tmp_path / "absent.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="holds no questions"):
        load_quality(empty)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"broken.jsonl:1: not valid JSON"):
        load_quality(broken)


def test_hard_only_needs_flags(tmp_path: Path) -> None:
    unflagged = write_jsonl(tmp_path / "a.jsonl", [article()])
    with pytest.raises(DataError, match="no question has a 'hard' or 'difficult' flag"):
        load_quality(unflagged, hard_only=True)
    easy = write_jsonl(tmp_path / "b.jsonl", [article(questions=[question(difficult=False)])])
    with pytest.raises(DataError, match="no question is marked hard"):
        load_quality(easy, hard_only=True)


@given(
    options=st.lists(st.text(min_size=1).filter(str.strip), min_size=2, max_size=8),
    data=st.data(),
)
def test_gold_label_is_one_based_and_checked(options: list[str], data: st.DataObject) -> None:
    gold = data.draw(st.integers(min_value=-2, max_value=len(options) + 2))
    row = {"article": ARTICLE, "question": "Which?", "options": options, "gold_label": gold}
    if 1 <= gold <= len(options):
        (sample,) = quality_samples_from_rows([row])
        assert sample.target == "ABCDEFGH"[gold - 1]
        assert sample.metadata is not None
        assert sample.metadata["references"] == [options[gold - 1]]
        assert sample.metadata["gold_index"] == gold - 1
    else:
        with pytest.raises(DataError, match="out of range"):
            quality_samples_from_rows([row])


# Hand-made rows in the layouts of emozilla/quality (answer 0-based, hard) and
# tasksource/QuALITY (gold_label 1-based, difficult, article_id, title).
OTHER = "A second, unrelated article about tides."


def emozilla_row(text: str, answer: int, hard: bool, q: str = "Q?") -> dict[str, Any]:
    return {
        "article": text,
        "question": q,
        "options": ["w", "x", "y", "z"],
        "answer": answer,
        "hard": hard,
    }


def test_emozilla_rows_group_by_article_text() -> None:
    rows = [
        emozilla_row(ARTICLE, 0, False, "first"),
        emozilla_row(OTHER, 3, True, "other"),
        emozilla_row(ARTICLE, 2, True, "second"),
    ]
    samples = quality_samples_from_rows(rows)
    a, b = (hashlib.sha256(t.encode()).hexdigest()[:12] for t in (ARTICLE, OTHER))
    assert [s.id for s in samples] == [f"{a}:0", f"{a}:1", f"{b}:0"]
    assert [s.input for s in samples] == ["first", "second", "other"]
    assert [s.target for s in samples] == ["A", "C", "D"]
    assert [s.metadata["doc_questions"] for s in samples if s.metadata] == [2, 2, 1]
    assert all(s.metadata and set(s.metadata) == KEYS for s in samples)
    hard = quality_samples_from_rows(rows, hard_only=True)
    assert [s.id for s in hard] == [f"{a}:1", f"{b}:0"]


def test_tasksource_rows_use_article_id_title_and_one_based_labels() -> None:
    row = {
        "article_id": "20011",
        "title": "The Keeper",
        "article": ARTICLE,
        "question": "What did the keeper count?",
        "options": ["Ships", "Birds", "Waves", "Stars"],
        "gold_label": 1,
        "difficult": 1,
        "writer_id": "1021",
    }
    samples = quality_samples_from_rows([row, {**row, "gold_label": 2, "difficult": 0}])
    assert [s.id for s in samples] == ["20011:0", "20011:1"]
    assert [s.target for s in samples] == ["A", "B"]
    meta = samples[0].metadata
    assert meta is not None
    assert meta["title"] == "The Keeper" and meta["hard"] is True
    assert meta["references"] == ["Ships"]


def test_row_errors_name_the_row_and_field() -> None:
    good = emozilla_row(ARTICLE, 0, False)
    with pytest.raises(DataError, match=r"src row 1 'Q\?': gold label 'answer' = 4"):
        quality_samples_from_rows([good, {**good, "answer": 4}], origin="src")
    with pytest.raises(DataError, match=r"rows row 0: missing or empty field 'article'"):
        quality_samples_from_rows([{**good, "article": None}])
    with pytest.raises(DataError, match="row 1: article_id '7' was seen before"):
        quality_samples_from_rows(
            [{**good, "article_id": 7}, {**good, "article_id": 7, "article": OTHER}]
        )
    with pytest.raises(DataError, match="row 0: expected an object"):
        quality_samples_from_rows([["not", "a", "row"]])  # type: ignore[list-item]
    with pytest.raises(DataError, match="holds no questions"):
        quality_samples_from_rows([])


def test_load_quality_hf_needs_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"longform-evals\[hf\]"):
        load_quality_hf()


def test_load_quality_hf_maps_the_loaded_split(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str, str]] = []

    def load_dataset(dataset_id: str, split: str, revision: str) -> list[dict[str, Any]]:
        calls.append((dataset_id, split, revision))
        return [emozilla_row(ARTICLE, 1, True), emozilla_row(ARTICLE, 2, False)]

    fake = types.ModuleType("datasets")
    fake.load_dataset = load_dataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    samples = load_quality_hf(hard_only=True)
    assert calls == [("emozilla/quality", "validation", "main")]  # the pinned revision
    assert [s.target for s in samples] == ["B"]
    with pytest.raises(DataError, match=r"tasksource/QuALITY \[train\] row 0"):
        monkeypatch.setattr(fake, "load_dataset", lambda *_, **__: [{"article": ARTICLE}])
        load_quality_hf("tasksource/QuALITY", split="train")


def test_shared_quality_excerpt(shared_data: Path) -> None:
    path = shared_data / "quality" / "quality_5_articles.jsonl"
    samples = load_quality(path)
    per_doc = Counter(s.metadata["doc_id"] for s in samples if s.metadata)
    assert len(per_doc) == 5 and len(samples) == 70
    for sample in samples:
        assert sample.metadata is not None
        assert sample.metadata["doc_questions"] == per_doc[sample.metadata["doc_id"]]
        assert sample.choices is not None and len(sample.choices) == 4
        assert sample.metadata["doc_words"] > 2000
    assert len({s.id for s in samples}) == 70
    with pytest.raises(DataError, match="no question has a 'hard' or 'difficult' flag"):
        load_quality(path, hard_only=True)
