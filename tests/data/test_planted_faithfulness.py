"""The bundled planted-error faithfulness set: schema, sizes, kinds and sentence splitting.

See src/longform_evals/data/faithfulness/README.md for what the file is and how it is used.
"""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from longform_evals.text import split_sentences

KINDS = {
    "contradiction_number",
    "contradiction_entity",
    "contradiction_relation",
    "unsupported_addition",
    "unsupported_claim",
    "subtle",
}
GENRES = {"news", "science", "meeting", "story"}
KEYS = {"id", "split", "genre", "title", "documents", "sentences", "planted"}
DOC_WORDS = (180, 320)
SUMMARY_WORDS = (130, 220)
SUMMARY_SENTENCES = (7, 9)


def _load() -> list[dict[str, Any]]:
    text = (
        resources.files("longform_evals.data")
        .joinpath("faithfulness/planted_support.jsonl")
        .read_text(encoding="utf-8")
    )
    return [json.loads(line) for line in text.splitlines() if line.strip()]


CLUSTERS = _load()


def _words(text: str) -> int:
    return len(text.split())


def _clean_texts(cluster: dict[str, Any]) -> list[str]:
    return [s["text"] for s in cluster["sentences"]]


def _ids(cluster: dict[str, Any]) -> str:
    return str(cluster["id"])


def test_ids_splits_and_genres() -> None:
    ids = [c["id"] for c in CLUSTERS]
    assert ids == [f"c{i:02d}" for i in range(1, 13)]
    assert len(set(ids)) == len(ids)
    splits = Counter(c["split"] for c in CLUSTERS)
    assert splits == {"calibration": 6, "test": 6}
    assert all(c["split"] == "calibration" for c in CLUSTERS[:6])
    assert all(c["split"] == "test" for c in CLUSTERS[6:])
    genres = Counter(c["genre"] for c in CLUSTERS)
    assert genres == {"news": 4, "science": 3, "meeting": 3, "story": 2}
    for split in ("calibration", "test"):
        per = Counter(c["genre"] for c in CLUSTERS if c["split"] == split)
        assert per["news"] == 2
        assert per["story"] == 1
        assert 1 <= per["science"] <= 2
        assert 1 <= per["meeting"] <= 2


@pytest.mark.parametrize("cluster", CLUSTERS, ids=_ids)
def test_schema(cluster: dict[str, Any]) -> None:
    assert set(cluster) == KEYS
    assert cluster["genre"] in GENRES
    assert isinstance(cluster["title"], str) and cluster["title"].strip() == cluster["title"]
    assert cluster["title"]
    for sentence in cluster["sentences"]:
        assert set(sentence) == {"text", "supported_by"}
    for planted in cluster["planted"]:
        assert set(planted) == {"kind", "replaces", "text", "note"}
        assert isinstance(planted["note"], str) and planted["note"].strip()


@pytest.mark.parametrize("cluster", CLUSTERS, ids=_ids)
def test_documents(cluster: dict[str, Any]) -> None:
    docs = cluster["documents"]
    assert len(docs) == 3
    assert len(set(docs)) == 3
    for doc in docs:
        assert isinstance(doc, str) and doc.strip() == doc
        assert DOC_WORDS[0] <= _words(doc) <= DOC_WORDS[1], (_words(doc), doc[:60])


@pytest.mark.parametrize("cluster", CLUSTERS, ids=_ids)
def test_clean_summary(cluster: dict[str, Any]) -> None:
    texts = _clean_texts(cluster)
    assert SUMMARY_SENTENCES[0] <= len(texts) <= SUMMARY_SENTENCES[1]
    assert len(set(texts)) == len(texts)
    assert SUMMARY_WORDS[0] <= _words(" ".join(texts)) <= SUMMARY_WORDS[1]
    used: set[int] = set()
    for sentence in cluster["sentences"]:
        support = sentence["supported_by"]
        assert isinstance(support, list) and 1 <= len(support) <= 2, sentence["text"]
        assert support == sorted(set(support))
        assert all(isinstance(i, int) and 0 <= i < 3 for i in support)
        used.update(support)
    # Different documents carry different facts: the summary needs all three.
    assert used == {0, 1, 2}


@pytest.mark.parametrize("cluster", CLUSTERS, ids=_ids)
def test_planted(cluster: dict[str, Any]) -> None:
    texts = _clean_texts(cluster)
    planted = cluster["planted"]
    assert len(planted) == 6
    assert Counter(p["kind"] for p in planted) == Counter(KINDS)
    replaces = [p["replaces"] for p in planted]
    assert all(isinstance(i, int) and 0 <= i < len(texts) for i in replaces)
    assert len(set(replaces)) == len(replaces)
    for p in planted:
        assert p["text"] != texts[p["replaces"]], p["kind"]
        assert p["text"] not in texts, p["kind"]


@pytest.mark.parametrize("cluster", CLUSTERS, ids=_ids)
def test_every_sentence_is_one_sentence(cluster: dict[str, Any]) -> None:
    texts = _clean_texts(cluster)
    for text in texts + [p["text"] for p in cluster["planted"]]:
        assert isinstance(text, str) and text
        assert text.strip() == text
        assert split_sentences(text) == [text]
    assert split_sentences(" ".join(texts)) == texts
    # Each summary-level copy (one sentence replaced) splits back into the same sentences.
    for p in cluster["planted"]:
        copy = list(texts)
        copy[p["replaces"]] = p["text"]
        assert split_sentences(" ".join(copy)) == copy, p["kind"]


def test_loader_reads_every_cluster() -> None:
    from longform_evals.data.planted.support import PLANTED_KINDS, load_planted_support

    clusters = load_planted_support()
    assert [c.id for c in clusters] == [r["id"] for r in _load()]
    assert {c.split for c in clusters} == {"calibration", "test"}
    assert all(sorted(p.kind for p in c.planted) == sorted(PLANTED_KINDS) for c in clusters)
    assert all(len(c.supported_by) == len(c.sentences) for c in clusters)


def test_loader_names_a_malformed_record(tmp_path: Path) -> None:
    from longform_evals.data.jsonl import DataError
    from longform_evals.data.planted.support import load_planted_support

    record = _load()[0]
    bad = dict(record, planted=[dict(record["planted"][0], replaces=40)])
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.jsonl:2: planted\[0\].replaces: 40 names no"):
        load_planted_support(path)
    path.write_text(json.dumps({"id": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.jsonl:1: field 'documents' must be a non-empty"):
        load_planted_support(path)
