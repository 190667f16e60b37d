"""Books and summaries as Inspect samples, from the bundled stories or from the user's files.

Sample schema: `input` is a short instruction naming the book; `metadata["document"]` is the
full text, `metadata["title"]` its title; for given summaries, `metadata["summary"]`.

Accepted sources for books:
- a `.txt` file (one book; a first line `Title: ...` gives the title, else the file name);
- a folder of `.txt` files (one book each, sorted by name);
- a `.jsonl` file with one object per line holding `id`, `text` and optionally `title`.

Files are UTF-8 (a byte-order mark is allowed); a blank book is a DataError naming its file
(and line). The title line ends at any line break (``\\n``, U+2028, U+2029, ...). Sample ids
(the file name without ``.txt``, or the ``id`` field) are checked as
:mod:`~longform_evals.data.ids` says; a folder entry named ``*.txt`` that is no readable file
(a subfolder, a broken link) is refused by name.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.files import check_file, folder_files, source_kind
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import (
    DataError,
    check_size,
    has_words,
    jsonl_records,
    optional_string,
    read_text,
    require_text,
)
from longform_evals.text.sentences import LINE_BREAKS

_TITLE_PREFIX = "Title:"
_LINE_BREAK = re.compile(f"[{LINE_BREAKS}]")


def _split_title(text: str, fallback: str) -> tuple[str, str]:
    """(title, text after the title line) for a text starting ``Title: ...``, else
    (``fallback``, the text); the title line ends at any line break the text layer knows."""
    if not text.startswith(_TITLE_PREFIX):
        return fallback, text
    end = _LINE_BREAK.search(text)
    first, rest = (text[: end.start()], text[end.end() :]) if end else (text, "")
    return first[len(_TITLE_PREFIX) :].strip() or fallback, rest.lstrip(LINE_BREAKS)


def _book_sample(book_id: str, title: str, text: str, source: str) -> Sample:
    if not text.strip():
        raise DataError(f"{source}: book {book_id!r} is empty (blank text)")
    if not has_words(text):
        raise DataError(f"{source}: book {book_id!r} has no words ({text.strip()[:40]!r})")
    check_size(text, f"{source}: book {book_id!r}")
    return Sample(
        id=book_id,
        input=f"Summarize the book {title!r}.",
        metadata={"document": text, "title": title, "source": source},
    )


def _txt_book(path: Path, ids: SampleIds) -> Sample:
    book_id = ids.add(path.stem, str(path), "the file name (the book's id)")
    title, text = _split_title(read_text(path, "book (.txt file)"), path.stem)
    return _book_sample(book_id, title, text, str(path))


def bundled_books_dir() -> Path:
    """Folder of the stories written for and shipped with this project."""
    return Path(str(resources.files("longform_evals.data").joinpath("books")))


def short_stories_dir() -> Path:
    """Folder of the short stories shipped with this project (too short to stand for a book:
    for a first run that finishes in minutes)."""
    return Path(str(resources.files("longform_evals.data").joinpath("short_stories")))


def bundled_summaries_dir() -> Path:
    """Folder of reference summaries of the bundled stories (JSONL, see `load_summaries`)."""
    return Path(str(resources.files("longform_evals.data").joinpath("summaries")))


def load_books(data: str | Path | None = None) -> list[Sample]:
    """Book samples from `data` (see the module docstring); the bundled stories when None."""
    path = Path(data) if data is not None else bundled_books_dir()
    what = "book data (a .txt file, a folder of .txt files or a .jsonl file)"
    ids = SampleIds()
    if source_kind(path, what) == "folder":
        return [_txt_book(f, ids) for f in folder_files(path, ".txt", ".txt books")]
    if path.suffix == ".txt":
        return [_txt_book(path, ids)]
    if path.suffix != ".jsonl":
        raise DataError(f"{path}: unsupported book data; expected {what}")
    samples = []
    for number, record in jsonl_records(path):
        where = f"{path}:{number}"
        book_id = ids.add(require_text(record, "id", where, integers=True), where)
        text = require_text(record, "text", where)  # a number is no book
        title = require_text(record, "title", where) if "title" in record else book_id
        samples.append(_book_sample(book_id, title, text, where))
    if not samples:
        raise DataError(f"{path} holds no books")
    return samples


def load_summaries(path: str | Path) -> list[Sample]:
    """Given summaries to score: JSONL with `id` and `summary` (and optionally `text`/`title`).

    The summary is placed in `metadata["summary"]`; a `text` field becomes the document so
    source-based statistics (novel trigrams) can be computed. ``title`` and ``text`` are
    strings when present (null counts as absent); any other value is refused.
    """
    path = check_file(Path(path), "summaries file (.jsonl)")
    ids = SampleIds()
    samples = []
    for number, record in jsonl_records(path):
        where = f"{path}:{number}"
        summary_id = ids.add(require_text(record, "id", where, integers=True), where)
        summary = optional_string(record, "summary", where)
        if summary is None:
            raise DataError(f"{where}: missing field 'summary' (a string)")
        check_size(summary, f"{where}: field 'summary'")  # an empty one is scored as unscored
        title = optional_string(record, "title", where)
        metadata: dict[str, Any] = {"summary": summary, "title": title or summary_id}
        text = optional_string(record, "text", where)
        if text is not None:
            check_size(text, f"{where}: field 'text'")
            metadata["document"] = text
        samples.append(
            Sample(id=summary_id, input=f"Score the summary {summary_id!r}.", metadata=metadata)
        )
    if not samples:
        raise DataError(f"{path} holds no summaries")
    return samples
