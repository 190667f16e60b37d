"""Every loader, on what users' files hold: repeated keys, ids that would break the log, paths
that are no plain file, fields of the wrong type, and valid but unusual inputs that must load.

Each loader gets records in its own published shape (the packaged planted sets' first lines
for those); one thing is then spoiled. Refusals must be DataErrors naming the file (and line,
key or limit); valid inputs must load.
"""

from __future__ import annotations

import json
import os
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.data.books import load_books, load_summaries
from longform_evals.data.booksum import load_booksum
from longform_evals.data.files import check_file, csv_table
from longform_evals.data.ids import MAX_ID_CHARS, SampleIds, check_sample_id
from longform_evals.data.jsonl import DataError, parse_json, read_json
from longform_evals.data.labels.load import load_judge_labels
from longform_evals.data.labels.longsciverify import load_longsciverify
from longform_evals.data.longformfact import load_longformfact
from longform_evals.data.multidoc import load_multidoc
from longform_evals.data.narrativeqa import load_narrativeqa
from longform_evals.data.planted.answers import bundled_planted_answers, load_planted_answers
from longform_evals.data.planted.support import bundled_planted_support, load_planted_support
from longform_evals.data.qmsum import load_qmsum
from longform_evals.data.quality import load_quality
from longform_evals.data.squality import load_squality

TEXT = "The keeper counted ships.\n\nShe wrote each one in a ledger."
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _first_line(path: Path) -> dict[str, Any]:
    first: dict[str, Any] = json.loads(path.read_text("utf-8").splitlines()[0])
    return first


@dataclass(frozen=True)
class Loader:
    """A JSONL loader, a valid record of its shape and where that record keeps its id."""

    name: str
    load: Callable[[Path], object]
    record: Callable[[str], dict[str, Any]]  # a valid record with this id
    id_path: tuple[str, ...] | None  # None: the id is not read from the record


def _squality(i: str) -> dict[str, Any]:
    response = {"worker_id": "w", "uid": "r", "response_text": "Ships are counted."}
    question = {"question_text": "What happens?", "question_number": 1, "responses": [response]}
    return {"metadata": {"passage_id": i, "uid": "u"}, "document": TEXT, "questions": [question]}


def _quality(i: str) -> dict[str, Any]:
    question = {"question": "What?", "options": ["Ships", "Birds"], "gold_label": 1}
    return {"article_id": i, "title": "T", "article": TEXT, "questions": [question]}


def _qmsum(i: str) -> dict[str, Any]:
    return {
        "meeting_id": i,
        "general_query_list": [{"query": "Summarize the meeting.", "answer": "Ships."}],
        "meeting_transcripts": [{"speaker": "A", "content": TEXT.replace("\n", " ")}],
    }


def _longformfact(i: str) -> dict[str, Any]:
    return {"subset": i, "documents": [TEXT], "summary": "She counted.", "faithfulness": 1}


def _planted_answers(i: str) -> dict[str, Any]:
    return {**_first_line(bundled_planted_answers()), "id": i}


def _planted_support(i: str) -> dict[str, Any]:
    return {**_first_line(bundled_planted_support()), "id": i}


LOADERS = [
    Loader("books", load_books, lambda i: {"id": i, "title": "T", "text": TEXT}, ("id",)),
    Loader("summaries", load_summaries, lambda i: {"id": i, "summary": "S."}, ("id",)),
    Loader(
        "booksum",
        load_booksum,
        lambda i: {"doc_id": i, "level": "chapter", "text": TEXT, "summaries": ["S."]},
        ("doc_id",),
    ),
    Loader("squality", load_squality, _squality, ("metadata", "passage_id")),
    Loader("quality", load_quality, _quality, ("article_id",)),
    Loader(
        "narrativeqa",
        load_narrativeqa,
        lambda i: {"question": f"Who {i}?", "answer": ["She."], "passage": TEXT + i},
        None,
    ),
    Loader("qmsum", load_qmsum, _qmsum, ("meeting_id",)),
    Loader("longformfact", load_longformfact, _longformfact, ("subset",)),
    Loader("multidoc", load_multidoc, lambda i: {"id": i, "documents": [TEXT]}, ("id",)),
    Loader("planted_answers", load_planted_answers, _planted_answers, ("id",)),
    Loader("planted_support", load_planted_support, _planted_support, ("id",)),
    Loader("judge_labels", load_judge_labels, _longformfact, ("subset",)),
]
BY_NAME = {loader.name: loader for loader in LOADERS}
WITH_IDS = [loader for loader in LOADERS if loader.id_path is not None]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def _with_id(loader: Loader, value: str) -> dict[str, Any]:
    record = loader.record("ok")
    assert loader.id_path is not None
    target = record
    for key in loader.id_path[:-1]:
        target = target[key]
    target[loader.id_path[-1]] = value
    return record


@pytest.mark.parametrize("loader", LOADERS, ids=lambda x: x.name)
def test_valid_records_load(tmp_path: Path, loader: Loader) -> None:
    loaded = loader.load(_write(tmp_path / "d.jsonl", [loader.record("r1"), loader.record("r2")]))
    assert loaded


# -- repeated keys ------------------------------------------------------------------------


@pytest.mark.parametrize("loader", LOADERS, ids=lambda x: x.name)
def test_a_repeated_key_is_refused_naming_key_and_line(tmp_path: Path, loader: Loader) -> None:
    record = loader.record("r1")
    key = next(iter(record))
    second = json.dumps(record)[:-1] + f", {json.dumps(key)}: {json.dumps(record[key])}}}"
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(loader.record("r0")) + "\n" + second + "\n", "utf-8")
    with pytest.raises(DataError, match=rf"d\.jsonl:2: key {key!r} appears twice"):
        loader.load(path)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda x: x.name)
def test_a_key_repeated_in_a_nested_object_is_refused(tmp_path: Path, loader: Loader) -> None:
    text = json.dumps(loader.record("r1"))
    start = text.find('{"', 1)
    if start < 0:
        pytest.skip("records of this loader hold no nested object")
    key, _ = json.decoder.scanstring(text, start + 2)  # type: ignore[attr-defined]
    spoiled = text[: start + 1] + f"{json.dumps(key)}: null, " + text[start + 1 :]
    path = tmp_path / "d.jsonl"
    path.write_text(spoiled + "\n", "utf-8")
    with pytest.raises(DataError, match=rf"d\.jsonl:1: key {key!r} appears twice"):
        loader.load(path)


def test_a_repeated_key_in_a_json_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.json"
    path.write_text('{"book": {\n  "summary": "a",\n  "singles": [],\n  "summary": "b"}}\n')
    with pytest.raises(DataError, match=r"labels\.json:4: key 'summary' appears twice"):
        read_json(path)
    with pytest.raises(DataError, match=r"m\.json, line 2: key 'a' appears twice"):
        parse_json('{"a": 1,\n "a": 1}', "x.zip!m.json")
    assert parse_json('{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}', "w") == {
        "a": {"a": 1},
        "b": [{"a": 2}, {"a": 3}],
    }  # the same key in different objects is no repeat


def test_a_repeated_book_in_a_label_file_is_refused(tmp_path: Path) -> None:
    book = {"summary": "A b. C d.", "singles": [], "relations": []}
    body = json.dumps({"x.epub": book})[:-1] + ', "x.epub": ' + json.dumps(book) + "}"
    path = tmp_path / "summary-gpt.json"
    path.write_text(body, "utf-8")
    with pytest.raises(DataError, match=r"summary-gpt\.json:1: key 'x\.epub' appears twice"):
        load_judge_labels(path)


def test_csv_with_a_repeated_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    with pytest.raises(DataError, match=r"r\.csv:1: column 'id' is named twice"):
        csv_table("id,a,id\n1,2,3\n", path, 1000)


# -- sample ids ---------------------------------------------------------------------------

BAD_IDS = {
    "NUL": "a\x00b",
    "line feed": "chapter\n2",
    "escape": "a\x1b[31m",
    "zero-width space": "a\u200bb",
    "bidi override": "a\u202eb",
    "paragraph separator": "a\u2029b",
    "line separator": "a\u2028b",
    "private use": "a\ue000b",
    "unassigned": "a\U000e0080b",
    "byte order mark": "\ufeffid",
    "blank": "   ",
    "too long": "x" * (MAX_ID_CHARS + 1),
}


@pytest.mark.parametrize("loader", WITH_IDS, ids=lambda x: x.name)
@pytest.mark.parametrize("what", list(BAD_IDS))
def test_an_id_that_would_break_the_log_is_refused(
    tmp_path: Path, loader: Loader, what: str
) -> None:
    path = _write(tmp_path / "d.jsonl", [loader.record("r0"), _with_id(loader, BAD_IDS[what])])
    if what == "blank" and loader.name == "quality":
        pytest.skip("a blank article_id is no id: the article's hash is used")
    says = {"too long": str(MAX_ID_CHARS), "blank": "(blank|empty|missing)"}.get(what, "U+")
    with pytest.raises(DataError, match=rf"d\.jsonl:2.*{says}"):
        loader.load(path)


@pytest.mark.parametrize("loader", WITH_IDS, ids=lambda x: x.name)
def test_two_records_with_one_id_are_refused(tmp_path: Path, loader: Loader) -> None:
    if loader.id_path == ("subset",):
        pytest.skip("LongFormFact numbers the records of a subset: its ids never repeat")
    second = loader.record("r1")
    second_text = json.dumps(second).replace("Ships", "Whales").replace("ships", "whales")
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(loader.record("r1")) + "\n" + second_text + "\n", "utf-8")
    # refused as a repeated id, or earlier as a repeated record or a text changed under one id
    says = r"already used at .*d\.jsonl:1|repeats the record of line 1|seen before with another"
    with pytest.raises(DataError, match=rf"d\.jsonl:2.*({says})"):
        loader.load(path)


GOOD_IDS = ["Ünïcode — tale (2)", "a/b c", "मनुष्य\u200dx", "-lead", "é" * MAX_ID_CHARS, "[1]'\""]


@pytest.mark.parametrize("loader", WITH_IDS, ids=lambda x: x.name)
def test_unusual_but_printable_ids_load(tmp_path: Path, loader: Loader) -> None:
    # ids built as "<id>:<n>" or "<id>-<n>" must stay within the limit as a whole
    exact = loader.name in ("books", "summaries", "booksum", "multidoc") or "planted" in loader.name
    records = [_with_id(loader, i) for i in GOOD_IDS if exact or len(i) < 200]
    assert loader.load(_write(tmp_path / "d.jsonl", records))


LOOK_ALIKE_IDS = {
    "composed and decomposed": ("caf\u00e9", "cafe\u0301"),
    "joiner inside": ("tale", "ta\u200dle"),
    "non-joiner inside": ("tale", "t\u200cale"),
    "full-width letters": ("tale", "\uff54\uff41\uff4c\uff45"),
    "surrounding spaces": ("tale", " tale "),
}


@pytest.mark.parametrize("loader", WITH_IDS, ids=lambda x: x.name)
@pytest.mark.parametrize("what", list(LOOK_ALIKE_IDS))
def test_ids_that_look_the_same_are_one_id_refused_by_name(
    tmp_path: Path, loader: Loader, what: str
) -> None:
    if loader.id_path == ("subset",):
        pytest.skip("LongFormFact numbers the records of a subset: its ids never repeat")
    first, second = LOOK_ALIKE_IDS[what]
    records = [_with_id(loader, first), _with_id(loader, second)]
    records[1] = json.loads(
        json.dumps(records[1]).replace("Ships", "Whales").replace("ships", "whales")
    )
    with pytest.raises(DataError, match=r"d\.jsonl:2.*(already used at|seen before)"):
        loader.load(_write(tmp_path / "d.jsonl", records))


def test_ids_inspect_reads_as_one_number_are_one_id() -> None:
    ids = SampleIds()
    ids.add("7", "f:1")
    with pytest.raises(DataError, match=r"'007' already used at f:1 .*one number"):
        ids.add("007", "f:2")
    with pytest.raises(DataError, match="digits Inspect cannot read"):
        check_sample_id("²", "f:3")


@given(st.text(max_size=300))
def test_an_id_is_accepted_exactly_when_it_is_printable_bounded_and_not_blank(text: str) -> None:
    refused = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
    printable = all(c in "\u200c\u200d" or unicodedata.category(c) not in refused for c in text)
    digits_ok = not text.isdigit() or text.isdecimal()
    ok = printable and text.strip() != "" and len(text) <= MAX_ID_CHARS and digits_ok
    try:
        assert check_sample_id(text, "f:1") == text
        assert ok
    except DataError as exc:
        assert not ok
        assert str(exc).startswith("f:1: id ")


def test_a_book_folder_file_name_is_checked_as_an_id(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text(TEXT, "utf-8")
    (tmp_path / "bad\x1b.txt").write_text(TEXT, "utf-8")
    with pytest.raises(
        DataError, match=r"the file name \(the book's id\) 'bad\\x1b' holds U\+001B"
    ):
        load_books(tmp_path)


# -- paths that are no plain file -----------------------------------------------------------


def _oddity(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"odd {kind}.jsonl"
    if kind == "missing":
        return path
    if kind == "broken link":
        path.symlink_to(tmp_path / "nowhere.jsonl")
    elif kind == "looping link":
        path.symlink_to(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "named pipe":
        os.mkfifo(path)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "not UTF-8":
        path.write_bytes(b'{"id": "caf\xe9"}\n')
    elif kind == "unreadable":
        path.write_text("{}\n", "utf-8")
        path.chmod(0)
    return path


SAYS = {
    "missing": "not found",
    "broken link": "broken symbolic link",
    "looping link": "loops",
    "folder": "is a folder",
    "named pipe": "named pipe",
    "empty": "file is empty",
    "not UTF-8": "not valid UTF-8",
    "unreadable": "permission denied",
}
FILE_ONLY = {
    "summaries",
    "booksum",
    "squality",
    "quality",
    "narrativeqa",
    "multidoc",
    "planted_answers",
    "planted_support",
}


def _finishes(call: Callable[[], object], seconds: float = 20.0) -> BaseException | None:
    """What ``call`` raised (None if nothing), failing the test if it does not end in time
    (a named pipe opened for reading waits for a writer for ever)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still running after {seconds} s (a hang)"
    return outcome[0]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda x: x.name)
@pytest.mark.parametrize("kind", list(SAYS))
def test_a_path_that_is_no_plain_file_is_refused_by_name(
    tmp_path: Path, loader: Loader, kind: str
) -> None:
    if kind == "unreadable" and ROOT:
        pytest.skip("root reads any file")
    if kind == "folder" and loader.name not in FILE_ONLY:
        pytest.skip("this loader reads folders (their entries are checked below)")
    path = _oddity(tmp_path, kind)
    raised = _finishes(lambda: loader.load(path))
    assert isinstance(raised, DataError), repr(raised)
    assert str(path) in str(raised) and SAYS[kind] in str(raised)


FOLDER_LOADERS: dict[str, tuple[Callable[[Path], object], str]] = {
    "books": (load_books, ".txt"),
    "qmsum": (load_qmsum, ".json"),
    "longformfact": (load_longformfact, ".jsonl"),
    "longsciverify": (load_longsciverify, "_reviewer_1.csv"),
    "booookscore": (load_judge_labels, ".json"),
}


@pytest.mark.parametrize("name", list(FOLDER_LOADERS))
@pytest.mark.parametrize("kind", ["broken link", "looping link", "folder", "named pipe", "empty"])
def test_an_entry_of_a_data_folder_that_is_no_file_is_refused(
    tmp_path: Path, name: str, kind: str
) -> None:
    load, suffix = FOLDER_LOADERS[name]
    folder = tmp_path / "data"
    folder.mkdir()
    entry = folder / f"summary-x{suffix}" if name == "booookscore" else folder / f"arxiv{suffix}"
    if kind == "looping link":
        entry.symlink_to(entry)
    else:
        _oddity(tmp_path, kind).rename(entry)
    raised = _finishes(lambda: load(folder))
    assert isinstance(raised, DataError), repr(raised)
    assert str(entry) in str(raised) and SAYS[kind] in str(raised)


def test_check_file_says_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"is a folder, not a file; expected a book"):
        check_file(tmp_path, "book")


# -- fields of the wrong type -----------------------------------------------------------------


@pytest.mark.parametrize("value", [["T"], float("nan"), 1984, True, {"t": 1}])
@pytest.mark.parametrize("field", ["title", "text", "summary"])
def test_a_summary_field_of_the_wrong_type_is_refused(
    tmp_path: Path, field: str, value: Any
) -> None:
    record = {"id": "s1", "summary": "S.", "title": "T", "text": TEXT, field: value}
    path = _write(tmp_path / "s.jsonl", [record])
    with pytest.raises(DataError, match=rf"s\.jsonl:1: field {field!r} must be a string"):
        load_summaries(path)


@pytest.mark.parametrize("value", [["T"], float("nan"), 7])
def test_a_book_title_of_the_wrong_type_is_refused(tmp_path: Path, value: Any) -> None:
    path = _write(tmp_path / "b.jsonl", [{"id": "b", "title": value, "text": TEXT}])
    with pytest.raises(DataError, match=r"b\.jsonl:1: field 'title' must be"):
        load_books(path)


def test_a_null_title_of_a_summary_is_no_title(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [{"id": "s1", "summary": "S.", "title": None}])
    assert load_summaries(path)[0].metadata == {"summary": "S.", "title": "s1"}


# -- valid inputs that must load ------------------------------------------------------------

BREAKS = {"U+2029": "\u2029", "U+2028": "\u2028", "CRLF": "\r\n", "CR": "\r", "LF": "\n"}


@pytest.mark.parametrize("brk", list(BREAKS))
def test_a_book_with_any_line_break_keeps_its_title_and_text(tmp_path: Path, brk: str) -> None:
    sep = BREAKS[brk]
    body = sep.join(["The keeper counted ships.", "She wrote each one in a ledger."])
    path = tmp_path / "book.txt"
    path.write_bytes(("Title: The Keeper" + sep + body).encode())
    (sample,) = load_books(path)
    assert sample.metadata is not None
    assert sample.metadata["title"] == "The Keeper"
    assert sample.metadata["document"].startswith("The keeper counted ships.")
    assert "ledger" in sample.metadata["document"]


NAMES = [
    "a b.txt",
    "[draft] (v2).txt",
    'it\'s "x".txt',
    "#2, final.txt",
    "-lead.txt",
    "\u2039(\u2026)\u203a.txt",
    "日本語.txt",
]


@pytest.mark.parametrize("name", NAMES)
def test_unusual_file_names_load(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbfTitle: T\n" + TEXT.encode())
    (sample,) = load_books(path)
    assert sample.id == name.removesuffix(".txt")
    assert [s.id for s in load_books(tmp_path)] == [name.removesuffix(".txt")]


def test_a_csv_cell_of_several_hundred_kilobytes_is_read(tmp_path: Path) -> None:
    cell = "word " * 60_000  # 300,000 characters, over the csv module's 131,072
    header, rows = csv_table(f'id,summary\n1,"{cell}"\n', tmp_path / "r.csv", 10_000_000)
    assert header == ["id", "summary"] and rows == [(2, ["1", cell])]
    with pytest.raises(DataError, match=r"r\.csv:2: a cell is longer than 1,000 characters"):
        csv_table(f'id,summary\n1,"{cell}"\n', tmp_path / "r.csv", 1000)


# -- every accepted id survives Inspect's log -------------------------------------------------


def test_inspect_log_holds_every_kind_of_accepted_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import match

    from helpers import write_o200k_cache

    write_o200k_cache(tmp_path / "tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    accepted = [*GOOD_IDS, "\U0001f600" * MAX_ID_CHARS, "a\u00a0b\u3000c", "..", "x/../y"]
    ids = [check_sample_id(i, "test") for i in accepted]
    task = Task(dataset=[Sample(id=i, input="Say x.", target="x") for i in ids], scorer=match())
    (log,) = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path / "logs"))
    assert log.status == "success"
    written = {s.id for s in read_eval_log(log.location).samples or []}
    assert written == set(ids)
