"""Books and summaries as Inspect samples, from the bundled stories or from the user's files.

Sample schema: `input` is a short instruction naming the book; `metadata["document"]` is the
full text, `metadata["title"]` its title; for given summaries, `metadata["summary"]`.

Accepted sources for books:
- a `.txt` file (one book; a first line `Title: ...` gives the title, else the file name);
- a folder of `.txt` files (one book each, sorted by name);
- a `.jsonl` file with one object per line holding `id`, `text` and optionally `title`.

Files are UTF-8 (a byte-order mark is allowed); a blank book is a DataError naming its file
(and line).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.jsonl import (
    DataError,
    check_size,
    has_words,
    jsonl_records,
    read_text,
    require_text,
)

_TITLE_PREFIX = "Title:"


def _split_title(text: str, fallback: str) -> tuple[str, str]:
    first, _, rest = text.partition("\n")
    if first.startswith(_TITLE_PREFIX):
        return first[len(_TITLE_PREFIX) :].strip() or fallback, rest.lstrip("\n")
    return fallback, text


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


def _txt_book(path: Path) -> Sample:
    title, text = _split_title(read_text(path), path.stem)
    return _book_sample(path.stem, title, text, str(path))


def bundled_books_dir() -> Path:
    """Folder of the stories written for and shipped with this project."""
    return Path(str(resources.files("longform_evals.data").joinpath("books")))


def bundled_summaries_dir() -> Path:
    """Folder of reference summaries of the bundled stories (JSONL, see `load_summaries`)."""
    return Path(str(resources.files("longform_evals.data").joinpath("summaries")))


def load_books(data: str | Path | None = None) -> list[Sample]:
    """Book samples from `data` (see the module docstring); the bundled stories when None."""
    path = Path(data) if data is not None else bundled_books_dir()
    if not path.exists():
        raise DataError(f"book data not found: {path}")
    if path.is_dir():
        files = sorted(path.glob("*.txt"))
        if not files:
            raise DataError(f"no .txt books in folder {path}")
        return [_txt_book(f) for f in files]
    if path.suffix == ".jsonl":
        samples = []
        first_line: dict[str, int] = {}
        for number, record in jsonl_records(path):
            where = f"{path}:{number}"
            book_id = require_text(record, "id", where, integers=True)
            if book_id in first_line:
                raise DataError(
                    f"{where}: id {book_id!r} already used at line {first_line[book_id]}"
                )
            first_line[book_id] = number
            text = require_text(record, "text", where)  # a number is no book
            title = require_text(record, "title", where) if "title" in record else book_id
            samples.append(_book_sample(book_id, title, text, where))
        if not samples:
            raise DataError(f"{path} holds no books")
        return samples
    if path.suffix == ".txt":
        return [_txt_book(path)]
    raise DataError(f"unsupported book data {path}: expected a .txt file, a folder or a .jsonl")


def load_summaries(path: str | Path) -> list[Sample]:
    """Given summaries to score: JSONL with `id` and `summary` (and optionally `text`/`title`).

    The summary is placed in `metadata["summary"]`; a `text` field becomes the document so
    source-based statistics (novel trigrams) can be computed.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"summaries file not found: {path}")
    samples = []
    for number, record in jsonl_records(path):
        where = f"{path}:{number}"
        summary_id = require_text(record, "id", where, integers=True)
        summary = record.get("summary")
        if not isinstance(summary, str):
            raise DataError(f"{where}: missing field 'summary' (a string)")
        check_size(summary, f"{where}: field 'summary'")  # an empty one is scored as unscored
        metadata: dict[str, Any] = {"summary": summary, "title": record.get("title") or summary_id}
        if isinstance(record.get("text"), str):
            check_size(record["text"], f"{where}: field 'text'")
            metadata["document"] = record["text"]
        samples.append(
            Sample(id=summary_id, input=f"Score the summary {summary_id!r}.", metadata=metadata)
        )
    if not samples:
        raise DataError(f"{path} holds no summaries")
    return samples
