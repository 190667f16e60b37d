"""Every document loader on bad input: undecodable bytes, BOMs, huge numbers, blank documents.

Each loader gets hand-made files in its dataset's own published shape; the document text of
one record is then spoiled. The errors must be DataErrors naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.dataset import Sample

from longform_evals.data.books import load_books
from longform_evals.data.booksum import load_booksum
from longform_evals.data.jsonl import DataError
from longform_evals.data.longformfact import load_longformfact
from longform_evals.data.multidoc import load_multidoc
from longform_evals.data.narrativeqa import load_narrativeqa
from longform_evals.data.planted_support import load_planted_support
from longform_evals.data.qmsum import load_qmsum
from longform_evals.data.quality import load_quality, quality_samples_from_rows
from longform_evals.data.squality import load_squality

TEXT = "The keeper counted ships.\n\nShe wrote each one in a ledger."
BAD = "@@BAD@@"  # replaced by an undecodable byte in the file
HUGE = "9" * 5000

Record = Callable[[str], dict[str, Any]]


def _book(text: str) -> dict[str, Any]:
    return {"id": "b1", "title": "The Keeper", "text": text}


def _booksum(text: str) -> dict[str, Any]:
    return {"doc_id": "c1", "title": "T", "level": "chapter", "text": text, "summaries": ["S."]}


def _squality_question(**overrides: Any) -> dict[str, Any]:
    question: dict[str, Any] = {
        "question_text": "What is the plot of the story?",
        "question_number": 1,
        "responses": [{"worker_id": "w1", "uid": "r1", "response_text": "Ships are counted."}],
    }
    question.update(overrides)
    return question


def _squality(text: str, **question: Any) -> dict[str, Any]:
    return {
        "metadata": {"passage_id": "51201", "uid": "u1", "license": "PD"},
        "document": text,
        "questions": [_squality_question(**question)],
    }


def _quality(text: str, **question: Any) -> dict[str, Any]:
    q: dict[str, Any] = {
        "question": "What did the keeper count?",
        "options": ["Ships", "Birds", "Waves", "Stars"],
        "gold_label": 1,
        "difficult": 0,
    }
    q.update(question)
    return {"article_id": "20077", "title": "T", "source": "x", "article": text, "questions": [q]}


def _narrativeqa(text: str) -> dict[str, Any]:
    return {"question": "What did she count?", "answer": ["Ships.", "Ships"], "passage": text}


def _qmsum(text: str, **query: Any) -> dict[str, Any]:
    specific: dict[str, Any] = {
        "query": "What about the ships?",
        "answer": "They were counted.",
        "relevant_text_span": [["0", "1"]],
    }
    specific.update(query)
    return {
        "meeting_id": "m1",
        "topic_list": [],
        "general_query_list": [{"query": "Summarize the whole meeting.", "answer": "Ships."}],
        "specific_query_list": [specific],
        "meeting_transcripts": [
            {"speaker": "A", "content": text},
            {"speaker": "B", "content": text.replace("\n", " ")},
        ],
    }


def _longformfact(text: str) -> dict[str, Any]:
    # The published layout: NaN id, no subset field, a concatenated `document` as well.
    return {
        "id": float("nan"),
        "documents": [text],
        "document": text,
        "summary": "The keeper counted ships.",
        "model": "gpt3",
        "faithfulness": 1,
    }


def _multidoc(text: str) -> dict[str, Any]:
    return {"documents": [text, text], "ranking": [1, 0]}


LOADERS: dict[str, tuple[Callable[[Path], list[Sample]], Record]] = {
    "books": (load_books, _book),
    "booksum": (load_booksum, _booksum),
    "squality": (load_squality, _squality),
    "quality": (load_quality, _quality),
    "narrativeqa": (load_narrativeqa, _narrativeqa),
    "qmsum": (load_qmsum, _qmsum),
    "longformfact": (load_longformfact, _longformfact),
    "multidoc": (load_multidoc, _multidoc),
}


def _unique(name: str, record: dict[str, Any], n: int) -> dict[str, Any]:
    """A second record of the same loader that does not clash with the first (ids, texts)."""
    ids = {"books": "id", "booksum": "doc_id", "quality": "article_id", "qmsum": "meeting_id"}
    if name in ids:
        record[ids[name]] = f"{record[ids[name]]}-{n}"
    elif name == "squality":
        record["metadata"]["passage_id"] += f"-{n}"
    elif name == "multidoc":
        record["id"] = f"r{n}"
    return record


def _write(path: Path, name: str, texts: list[str], *, bad: bytes = b"\xff") -> bytes:
    record = LOADERS[name][1]
    lines = [
        json.dumps(_unique(name, record(t), n), ensure_ascii=False) + "\n"
        for n, t in enumerate(texts)
    ]
    data = "".join(lines).encode("utf-8").replace(BAD.encode(), bad)
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("name", LOADERS)
def test_bad_byte_names_file_line_and_byte(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    data = _write(path, name, [TEXT, f"The keeper {BAD} counted."])
    with pytest.raises(DataError) as info:
        LOADERS[name][0](path)
    offset = data.index(b"\xff")
    assert str(info.value) == f"{path}: line 2, byte {offset}: not valid UTF-8 (0xff)"


@pytest.mark.parametrize("name", LOADERS)
def test_bom_is_accepted(tmp_path: Path, name: str) -> None:
    plain, with_bom = tmp_path / "plain" / f"{name}.jsonl", tmp_path / "bom" / f"{name}.jsonl"
    plain.parent.mkdir()
    with_bom.parent.mkdir()
    data = _write(plain, name, [TEXT, "Another text, with é."])
    with_bom.write_bytes(b"\xef\xbb\xbf" + data)
    expected = [(s.id, s.metadata) for s in LOADERS[name][0](plain)]
    got = [(s.id, s.metadata) for s in LOADERS[name][0](with_bom)]
    for samples in (expected, got):  # the `source` fields name the two different files
        for _, meta in samples:
            if meta is not None:
                meta.pop("source", None)
    assert got == expected and got


@pytest.mark.parametrize("name", LOADERS)
@pytest.mark.parametrize("blank", ["", "  \n\t "])
def test_blank_document_is_rejected_at_load_naming_file_and_line(
    tmp_path: Path, name: str, blank: str
) -> None:
    path = tmp_path / f"{name}.jsonl"
    _write(path, name, [TEXT, blank])
    with pytest.raises(DataError, match=rf"{path.name}:2\b"):
        LOADERS[name][0](path)


def test_blank_txt_book_and_bom_title(tmp_path: Path) -> None:
    book = tmp_path / "keeper.txt"
    book.write_bytes(b"\xef\xbb\xbfTitle: The Keeper\r\n\r\n" + TEXT.encode())
    [sample] = load_books(book)
    assert sample.metadata is not None
    assert sample.metadata["title"] == "The Keeper" and sample.metadata["document"] == TEXT
    book.write_bytes(b"Title: The Keeper\n\n \n")
    with pytest.raises(DataError, match=rf"{book.name}: book 'keeper' is empty"):
        load_books(book)
    book.write_bytes(b"Title: The Keeper\n\nShe counted\n\x80ships.\n")  # byte 31
    with pytest.raises(DataError, match=rf"{book.name}: line 4, byte 31: not valid UTF-8 \(0x80\)"):
        load_books(tmp_path)


def test_qmsum_json_files_bom_and_bad_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "val"
    folder.mkdir()
    meeting = json.dumps(_qmsum(TEXT), indent=4).encode()
    (folder / "m1.json").write_bytes(b"\xef\xbb\xbf" + meeting)
    assert len(load_qmsum(folder)) == 2
    bad = meeting.replace(b"ledger", b"ledg\xfer")
    (folder / "m2.json").write_bytes(bad)
    offset = bad.index(b"\xfe")
    line = bad[:offset].count(b"\n") + 1
    with pytest.raises(DataError, match=rf"m2\.json: line {line}, byte {offset}:"):
        load_qmsum(folder)
    (folder / "m2.json").write_bytes(meeting.replace(b'"0"', HUGE.encode(), 1))
    with pytest.raises(DataError, match=r"m2\.json:\d+: a JSON integer has 5000 digits"):
        load_qmsum(folder)


def test_quality_huge_gold_label(tmp_path: Path) -> None:
    path = tmp_path / "quality.jsonl"
    lines = [json.dumps(_quality(TEXT)), json.dumps(_quality(TEXT, gold_label=HUGE))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_quality(path)
    message = str(info.value)
    assert f"{path}:2: questions[0]" in message and "'gold_label'" in message
    assert "out of range 1..4" in message and len(message) < 400
    # As a JSON number, the same label fails when the line is parsed.
    path.write_text(lines[0] + "\n" + lines[1].replace(f'"{HUGE}"', HUGE) + "\n", "utf-8")
    with pytest.raises(DataError, match=rf"{path.name}:2: a JSON integer has 5000 digits"):
        load_quality(path)


def test_quality_rows_with_huge_python_ints() -> None:
    row = {"article": TEXT, "question": "Q?", "options": ["a", "b"], "answer": 10**5000}
    with pytest.raises(DataError, match=r"row 0 'Q\?': gold label 'answer' = an integer of"):
        quality_samples_from_rows([row])
    row = {**row, "answer": 0, "hard": 10**5000}
    with pytest.raises(DataError, match=r"field 'hard' must be a boolean or 0/1, not an integer"):
        quality_samples_from_rows([row])


@pytest.mark.parametrize("number", [HUGE, -1, 1000, "x", 2.5, True])
def test_squality_question_number_is_bounded(tmp_path: Path, number: object) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(_squality(TEXT, question_number=number)) + "\n", "utf-8")
    with pytest.raises(DataError) as info:
        load_squality(path)
    message = str(info.value)
    assert message.startswith(f"{path}:1 (story 51201): questions[0]: field 'question_number'")
    assert "0..999" in message and len(message) < 300


def test_squality_question_number_as_digits_is_read(tmp_path: Path) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(_squality(TEXT, question_number="3")) + "\n", "utf-8")
    [sample] = load_squality(path)
    assert sample.metadata is not None and sample.metadata["question_number"] == 3


def test_qmsum_huge_span_bound(tmp_path: Path) -> None:
    path = tmp_path / "qmsum.jsonl"
    path.write_text(json.dumps(_qmsum(TEXT, relevant_text_span=[["0", HUGE]])) + "\n", "utf-8")
    with pytest.raises(DataError) as info:
        load_qmsum(path)
    message = str(info.value)
    assert f"{path}:1: specific_query_list[0]" in message
    assert "relevant_text_span[0]" in message and len(message) < 400


def test_planted_support_indices_are_bounded(tmp_path: Path) -> None:
    record = {
        "id": "c1",
        "split": "test",
        "genre": "news",
        "title": "T",
        "documents": [TEXT],
        "sentences": [{"text": "The keeper counted ships.", "supported_by": [0]}],
        "planted": [{"kind": "subtle", "replaces": 0, "text": "x", "note": "n"}],
    }
    path = tmp_path / "planted.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    assert len(load_planted_support(path)) == 1
    record["sentences"] = [{"text": "x", "supported_by": [3]}]
    path.write_text(json.dumps(record) + "\n", "utf-8")
    with pytest.raises(DataError, match=r"planted\.jsonl:1: field 'supported_by' names documents"):
        load_planted_support(path)
    record["planted"] = [{"kind": "subtle", "replaces": HUGE, "text": "x", "note": "n"}]
    path.write_text(json.dumps(record) + "\n", "utf-8")
    with pytest.raises(DataError, match=r"planted\.jsonl:1: malformed"):
        load_planted_support(path)
