"""Every document loader on bad input: undecodable bytes, BOMs, huge numbers, blank documents.

Each loader gets hand-made files in its dataset's own published shape; the document text of
one record is then spoiled. The errors must be DataErrors naming the file and line. The
human-label loaders (judge validation) follow at the end: missing spans, empty cells and
summaries, reviewers' files that disagree, empty files and files of the wrong kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.dataset import Sample

from longform_evals.data.books import load_books, load_summaries
from longform_evals.data.booksum import load_booksum
from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.booookscore import load_booookscore_annotations
from longform_evals.data.labels.fables import load_fables
from longform_evals.data.labels.load import load_judge_labels
from longform_evals.data.labels.longsciverify import load_longsciverify
from longform_evals.data.longformfact import load_longformfact
from longform_evals.data.multidoc import load_multidoc
from longform_evals.data.narrativeqa import load_narrativeqa
from longform_evals.data.planted.answers import bundled_planted_answers, load_planted_answers
from longform_evals.data.planted.support import load_planted_support
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


@pytest.mark.fault("surrogate", "clear error")
@pytest.mark.parametrize("name", LOADERS)
@pytest.mark.parametrize("surrogate", ["\\ud800", "\\udfff", "\\uDC00"])
def test_lone_surrogate_names_file_line_and_character(
    tmp_path: Path, name: str, surrogate: str
) -> None:
    """JSON can spell a lone surrogate, which is no character: before, it crashed the token
    counter mid-run or was loaded silently. A surrogate pair is a character and stays."""
    path = tmp_path / f"{name}.jsonl"
    _write(path, name, [TEXT, f"The keeper {BAD} counted."], bad=surrogate.encode())
    with pytest.raises(DataError) as info:
        LOADERS[name][0](path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: a lone surrogate (U+"), message
    assert "at character" in message and "in field" in message
    _write(path, name, [TEXT, f"The keeper {BAD} counted."], bad=b"\\ud83d\\ude00")
    assert LOADERS[name][0](path)


@pytest.mark.fault("surrogate", "clear error")
def test_lone_surrogate_in_a_json_file_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "val"
    folder.mkdir()
    meeting = json.dumps(_qmsum(TEXT), indent=4).replace("ledger", "ledg\\ud800er")
    (folder / "m1.json").write_text(meeting, encoding="utf-8")
    with pytest.raises(DataError, match=r"m1\.json: a lone surrogate \(U\+D800\) in field"):
        load_qmsum(folder)


@pytest.mark.fault("surrogate", "clear error")
@pytest.mark.parametrize("name", ["fables", "planted_answers"])
def test_lone_surrogate_in_a_label_file_names_it(tmp_path: Path, name: str) -> None:
    """Before: FABLES and the planted rater set loaded a lone surrogate silently."""
    if name == "fables":
        claims = {"0": {"claim": "The keeper counted ships.", "label": "Yes"}}
        text = json.dumps({"The Keeper": {"GPT-4": {"summary": TEXT, "claims": claims}}})
        path, field = tmp_path / "FABLES.json", "claim"
    else:
        text = bundled_planted_answers().read_text(encoding="utf-8")
        path, field = tmp_path / "planted_answers.jsonl", "question"
    load: Callable[[Path], object] = load_fables if name == "fables" else load_planted_answers
    path.write_text(text, encoding="utf-8")
    assert load(path)
    path.write_text(text.replace(f'"{field}": "', f'"{field}": "\\ud800', 1), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path.name}(:1)?: a lone surrogate \(U\+D800\) in"):
        load(path)


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


@pytest.mark.fault("wordless_document", "clear error")
@pytest.mark.parametrize("name", LOADERS)
@pytest.mark.parametrize(
    "wordless", ["", "  \n\t ", "...", "\u2014 \u2014", "* * *", "\u3000\u3002"]
)
def test_wordless_document_is_rejected_naming_file_and_line(
    tmp_path: Path, name: str, wordless: str
) -> None:
    """Blank, or punctuation alone (before: summarized or answered)."""
    path = tmp_path / f"{name}.jsonl"
    _write(path, name, [TEXT, wordless])
    with pytest.raises(DataError, match=rf"{path.name}:2\b.*(no words|has any words|empty)"):
        LOADERS[name][0](path)
    # a document in another script has words
    _write(path, name, [TEXT, "\u6f5c\u6c34\u8247\u306f\u6c88\u3093\u3060\u3002"])
    assert LOADERS[name][0](path)


@pytest.mark.fault("duplicate_record", "clear error")
@pytest.mark.parametrize("name", LOADERS)
def test_a_repeated_record_is_refused_naming_both_lines(tmp_path: Path, name: str) -> None:
    """Before: the same record twice became the same samples twice (quality, narrativeqa,
    longformfact, books), counted twice in every mean."""
    path = tmp_path / f"{name}.jsonl"
    line = json.dumps(LOADERS[name][1](TEXT))
    spaced = json.dumps(LOADERS[name][1](TEXT), indent=None, separators=(" ,", " : "))
    path.write_text(f"{line}\n\n{spaced}\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path.name}:3: repeats the record of line 1"):
        LOADERS[name][0](path)


@pytest.mark.fault("typed_ids", "clear error")
@pytest.mark.parametrize(
    ("record", "says"),
    [
        ({"id": "a", "text": 12345}, "field 'text'"),
        ({"id": "a", "text": TEXT, "title": float("nan")}, "field 'title'"),
        ({"id": "a", "text": TEXT, "title": ["The Keeper"]}, "field 'title'"),
        ({"id": "a", "text": TEXT, "title": "..."}, "field 'title' has no words"),
    ],
)
def test_book_fields_of_the_wrong_type(tmp_path: Path, record: dict[str, Any], says: str) -> None:
    path = tmp_path / "books.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"books\.jsonl:1: .*{says}"):
        load_books(path)


def test_a_book_id_used_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "books.jsonl"
    rows = [{"id": "a", "text": TEXT}, {"id": "a", "text": TEXT + " More."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(DataError, match=r"books\.jsonl:2: id 'a' already used at .*books\.jsonl:1"):
        load_books(path)


@pytest.mark.fault("wordless_document", "clear error")
def test_wordless_txt_book(tmp_path: Path) -> None:
    book = tmp_path / "keeper.txt"
    book.write_text("Title: The Keeper\n\n... --- ...\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"book 'keeper' has no words"):
        load_books(book)


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


_PLANTED = {
    "id": "c1",
    "split": "test",
    "genre": "news",
    "title": "T",
    "documents": [TEXT],
    "sentences": [{"text": "The keeper counted ships.", "supported_by": [0]}],
    "planted": [{"kind": "subtle", "replaces": 0, "text": "She counted whales.", "note": "n"}],
}


def test_planted_support_indices_are_bounded(tmp_path: Path) -> None:
    record = json.loads(json.dumps(_PLANTED))
    path = tmp_path / "planted.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    assert len(load_planted_support(path)) == 1
    record["sentences"] = [{"text": "x", "supported_by": [3]}]
    path.write_text(json.dumps(record) + "\n", "utf-8")
    with pytest.raises(DataError, match=r"planted\.jsonl:1: sentences\[0\].supported_by\[0\]: 3"):
        load_planted_support(path)
    record["sentences"] = [{"text": "The keeper counted ships.", "supported_by": [0]}]
    record["planted"] = [{"kind": "subtle", "replaces": HUGE, "text": "x", "note": "n"}]
    path.write_text(json.dumps(record) + "\n", "utf-8")
    with pytest.raises(DataError, match=r"planted\.jsonl:1: planted\[0\].replaces: must be"):
        load_planted_support(path)


def _planted_with(path: str, value: Any) -> dict[str, Any]:
    record = json.loads(json.dumps(_PLANTED))
    target: Any = record
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = keys[-1]
    target[int(last) if last.isdigit() else last] = value
    return record


def _planted_case(field: str, value: Any) -> Any:
    """One wrong-type case; `replaces: Infinity` crashed the judge-agreement run, the others
    were accepted."""
    crashed = field == "planted.0.replaces" and value == float("inf")
    fault = "agreement_inputs" if crashed else "planted_support_types"
    return pytest.param(field, value, marks=pytest.mark.fault(fault, "clear error"))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        _planted_case(f, v)
        for f, values in {
            "planted.0.replaces": [1.5, True, "0", None, float("inf"), float("nan"), [0]],
            "sentences.0.supported_by.0": [0.0, True, "0", float("inf")],
            "sentences.0.supported_by": [[], "0", None],
            "sentences.0.text": [5, None, "...", ""],
            "planted.0.kind": ["invented", 3],
            "planted.0.text": [None, ["x"]],
            "planted.0.note": [5],
            "documents": [[], "text", [5]],
            "title": [None, float("nan"), ["T"]],
            "split": [3],
        }.items()
        for v in values
    ],
)
def test_planted_support_fields_of_the_wrong_type(tmp_path: Path, field: str, value: Any) -> None:
    """Before: 22 such cases were accepted (1.5 read as 1) or raised OverflowError."""
    path = tmp_path / "planted.jsonl"
    path.write_text(json.dumps(_planted_with(field, value)) + "\n", "utf-8")
    with pytest.raises(DataError, match=r"planted\.jsonl:1: "):
        load_planted_support(path)


@pytest.mark.fault("agreement_inputs", "clear error")  # a folder, a missing file
@pytest.mark.fault("planted_support_types", "clear error")  # an empty file
def test_planted_support_files_that_are_not_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="is a folder"):
        load_planted_support(tmp_path)
    with pytest.raises(DataError, match=r"absent\.jsonl: not found"):
        load_planted_support(tmp_path / "absent.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n", "utf-8")
    with pytest.raises(DataError, match="holds no planted-support records"):
        load_planted_support(tmp_path / "empty.jsonl")


# Human-label loaders (judge validation): the same failures, in their published shapes.

SUMMARY = "The keeper counted ships. She wrote each one in a ledger."


def _booookscore(summary: str = SUMMARY, span: str = "counted ships") -> dict[str, Any]:
    single = {"id": "s1", "span": span, "questions": "Why?", "labels": ["salience"]}
    return {"summary": summary, "singles": [single], "relations": []}


def _reviewer_csv(summary: str = "the ab. the cd.", sent_2: str = "1") -> str:
    header = ["id", "gencomparesumabs", "dancersum", "section_conditional"]
    cells = ["0806.4325", summary, "e f.", "g h."]
    for k in (1, 2, 3):
        header += [f"model_{k}_coherence", f"model_{k}_fluency"]
        header += [f"model_{k}_sent_{j}_factuality" for j in (1, 2, 3)]
        cells += [str(k), str(k), "0", sent_2 if k == 1 else "", ""]
    return ",".join(header) + "\r\n" + ",".join(f'"{c}"' for c in cells) + "\r\n"


def _longsciverify(folder: Path, *reviewers: str) -> Path:
    folder.mkdir(exist_ok=True)
    for n, text in enumerate(reviewers, start=1):
        (folder / f"arxiv_reviewer_{n}.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    articles = [{"article_id": "0806.4325", "article_text": ["a b .", "c d ."]}]
    (folder / "arxiv_test.json").write_text(json.dumps(articles), encoding="utf-8")
    return folder


def test_judge_labels_bad_bytes_name_file_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "summary-gpt4-4096-hier.json"
    data = json.dumps({"b.epub": _booookscore(f"The keeper {BAD} counted.")}, indent=1).encode()
    path.write_bytes(data.replace(BAD.encode(), b"\xff"))
    offset = path.read_bytes().index(b"\xff")
    line = path.read_bytes()[:offset].count(b"\n") + 1
    with pytest.raises(DataError, match=rf"{path.name}: line {line}, byte {offset}: not valid"):
        load_booookscore_annotations(path)
    folder = _longsciverify(tmp_path / "lsv", _reviewer_csv(f"a {BAD} b."))
    csv_path = folder / "arxiv_reviewer_1.csv"
    csv_path.write_bytes(csv_path.read_bytes().replace(BAD.encode(), b"\xfe"))
    offset = csv_path.read_bytes().index(b"\xfe")
    with pytest.raises(DataError, match=rf"reviewer_1\.csv: line 2, byte {offset}: not valid"):
        load_longsciverify(folder)


def test_judge_labels_bom_and_huge_numbers(tmp_path: Path) -> None:
    path = tmp_path / "summary-gpt4-4096-hier.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"b.epub": _booookscore()}).encode())
    assert len(load_booookscore_annotations(path).samples) == 1
    huge = {"b.epub": _booookscore() | {"singles": [{"id": HUGE, "span": "x"}]}}
    path.write_text(json.dumps(huge).replace(f'"{HUGE}"', HUGE), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path.name}:1: a JSON integer has 5000 digits"):
        load_booookscore_annotations(path)


def test_booookscore_span_not_in_summary_is_counted_or_raised(tmp_path: Path) -> None:
    path = tmp_path / "summary-gpt4-4096-hier.json"
    books = {"a.epub": _booookscore(span="a whale"), "b.epub": _booookscore()}
    path.write_text(json.dumps(books), encoding="utf-8")
    labels = load_booookscore_annotations(path)
    assert [s.id for s in labels.samples] == ["booookscore/gpt4-4096-hier/b.epub"]
    assert [s.where for s in labels.skipped] == [f"{path}#a.epub span s1", f"{path}#a.epub"]
    with pytest.raises(DataError, match=r"#a\.epub: span s1: span not in the summary: 'a whale'"):
        load_booookscore_annotations(path, on_missing_span="error")


def test_booookscore_empty_summary_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "summary-gpt4-4096-hier.json"
    path.write_text(json.dumps({"a.epub": _booookscore(" \n"), "b.epub": _booookscore()}), "utf-8")
    labels = load_booookscore_annotations(path)
    assert len(labels.samples) == 1
    assert [(s.where, s.reason) for s in labels.skipped] == [
        (f"{path}#a.epub", "empty summary: nothing to judge")
    ]


def test_longsciverify_empty_cell_is_counted(tmp_path: Path) -> None:
    folder = _longsciverify(tmp_path / "lsv", _reviewer_csv(sent_2=""))
    labels = load_longsciverify(folder)
    meta = labels.samples[0].metadata
    assert meta is not None and meta["flags"]["reviewer_1"] == [1, None]
    empty = [s for s in labels.skipped if "model_1_sent_2" in s.reason]
    assert [(s.where, s.reason) for s in empty] == [
        (
            f"{folder / 'arxiv_reviewer_1.csv'}:2 (0806.4325)",
            "empty cell model_1_sent_2_factuality: not rated",
        )
    ]


def test_longsciverify_reviewers_disagreeing_name_the_row(tmp_path: Path) -> None:
    folder = _longsciverify(tmp_path / "lsv", _reviewer_csv(), _reviewer_csv("a b. c e."))
    with pytest.raises(DataError) as info:
        load_longsciverify(folder)
    assert str(info.value).startswith(
        f"{folder / 'arxiv_reviewer_2.csv'}:2 (article 0806.4325): column 'gencomparesumabs' "
        "differs from arxiv_reviewer_1.csv:2"
    )


@pytest.mark.parametrize("name", ["summary-x.json", "FABLES.json", "arxiv_reviewer_1.csv"])
def test_judge_labels_empty_files(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(DataError, match=rf"{path.name}: file is empty"):
        load_judge_labels(path)
    loaders = {"s": load_booookscore_annotations, "F": load_fables, "a": load_longsciverify}
    if name != "arxiv_reviewer_1.csv":  # the articles file is checked first for a folder
        with pytest.raises(DataError, match="file is empty"):
            loaders[name[0]](path)


def test_judge_labels_wrong_kind(tmp_path: Path) -> None:
    path = tmp_path / "qmsum.jsonl"
    path.write_text(json.dumps(_longformfact(TEXT)) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path.name}: holds longformfact labels"):
        load_judge_labels(path, kind="coherence")
    quality = tmp_path / "quality.jsonl"
    quality.write_text(json.dumps(_quality(TEXT)) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{quality.name}:1: not a LongFormFact record"):
        load_judge_labels(quality, kind="faithfulness")


@pytest.mark.fault("oversize", "clear error")
@pytest.mark.parametrize("name", LOADERS)
def test_a_text_over_the_size_limit_is_refused(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit is LONGFORM_MAX_TEXT_CHARS (10,000,000 by default); set low here."""
    limit = 3 * len(TEXT) + 100  # a qmsum transcript holds the text twice, with speakers
    monkeypatch.setenv("LONGFORM_MAX_TEXT_CHARS", str(limit))
    path = tmp_path / f"{name}.jsonl"
    _write(path, name, [TEXT, " ".join([TEXT] * 10)])
    with pytest.raises(DataError, match=rf"{path.name}:2\b.*more than the limit of {limit:,}"):
        LOADERS[name][0](path)
    monkeypatch.setenv("LONGFORM_MAX_TEXT_CHARS", "lots")
    with pytest.raises(ValueError, match="LONGFORM_MAX_TEXT_CHARS must be a positive whole"):
        LOADERS[name][0](path)


@pytest.mark.fault("oversize", "clear error")
@pytest.mark.parametrize("name", ["summaries", "longformfact"])
def test_a_summary_over_the_size_limit_is_refused(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A score-only BooookScore summary and a LongFormFact summary: before, 50 MB of either
    exhausted the memory or ran for minutes (benchmarks/text_limits.py)."""
    monkeypatch.setenv("LONGFORM_MAX_TEXT_CHARS", "200")
    summary = "The keeper counted the ships again. " * 20
    record = {"id": "s1", "summary": summary} if name == "summaries" else _longformfact(TEXT)
    record["summary"] = summary
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    load = load_summaries if name == "summaries" else load_longformfact
    with pytest.raises(DataError, match=rf"{path.name}:1: field 'summary': 720 characters, more"):
        load(path)


@pytest.mark.fault("typed_ids", "clear error")
@pytest.mark.parametrize("bad", [float("nan"), ["51201"], "  ", True, 1.5])
def test_squality_passage_id_of_the_wrong_type_is_refused(tmp_path: Path, bad: Any) -> None:
    """Before: a NaN or list passage_id fell back to the uid silently."""
    record = _squality(TEXT)
    record["metadata"]["passage_id"] = bad
    path = tmp_path / "squality.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"squality\.jsonl:1: field 'metadata.passage_id' must"):
        load_squality(path)
    del record["metadata"]["passage_id"]  # absent: the uid names the story, as documented
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert [s.id for s in load_squality(path)] == ["u1:0"]


@pytest.mark.fault("typed_ids", "clear error")
@pytest.mark.parametrize("bad", ["", "   ", [1], 1.5])
def test_multidoc_id_of_the_wrong_kind_is_refused(tmp_path: Path, bad: Any) -> None:
    path = tmp_path / "multidoc.jsonl"
    path.write_text(json.dumps({**_multidoc(TEXT), "id": bad}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"multidoc\.jsonl:1: 'id' must be a non-empty string"):
        load_multidoc(path)
