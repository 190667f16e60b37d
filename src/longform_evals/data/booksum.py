"""BookSum chapter- and book-level summarization as Inspect samples.

BookSum (Kryściński et al., 2022) pairs public-domain novels, plays and stories with
human-written study-guide summaries at paragraph, chapter and book level; a chapter or book
usually has summaries from several study guides, which become its references.

Sources:

- :func:`load_booksum`: a local ``.jsonl`` file, one chapter or book per line, with
  ``doc_id``, ``title`` (optional), ``text``, ``summaries`` (a non-empty list of strings) and
  ``level`` (``"chapter"`` or ``"book"``).
- :func:`load_booksum_hf`: ``kmfoda/booksum`` (chapter level). Each row pairs one chapter
  (``chapter``) with one study guide's summary (``summary_text``); other fields include
  ``bid``, ``book_id`` (e.g. ``"<title>.chapter 1"``), ``summary_id``, ``source``,
  ``chapter_path``. Rows with the same ``book_id`` and the same chapter text are merged into
  one sample whose references are their summaries. The field names are from memory of the
  dataset card, not checked against a download; a row lacking ``chapter`` or
  ``summary_text`` fails with a DataError naming the field.
- :func:`load_booksum_complete_hf`: ``ubaada/booksum-complete-cleaned`` (configs ``books``
  and ``chapters``): one row per book or chapter with ``text`` and ``summary`` (a list of
  ``{text, ...}`` objects, one per study guide; plain strings are accepted too). The id is the
  first present of ``chapter_id``, ``id``, ``bid``, and the title of ``title``,
  ``book_title``. These field names are likewise unverified.

Samples: one per chapter or book, id the ``doc_id``, ``input`` a short instruction naming
the title, ``target`` the reference summaries. Metadata: ``dataset`` (``"booksum"``),
``doc_id``, ``title``, ``document``, ``doc_words`` (whitespace words), ``references``,
``question`` (``""``), ``level`` and ``source`` (where the sample came from).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import DataError, jsonl_records, require_text
from longform_evals.data.reading_samples import (
    existing_file,
    hf_rows,
    optional_text,
    require_mapping,
    text_hash,
)

__all__ = [
    "BOOKSUM_COMPLETE_HF_DATASET",
    "BOOKSUM_HF_DATASET",
    "LEVELS",
    "booksum_complete_samples_from_rows",
    "booksum_samples_from_rows",
    "bundled_booksum_fixture",
    "load_booksum",
    "load_booksum_complete_hf",
    "load_booksum_hf",
]

LEVELS: tuple[str, ...] = ("chapter", "book")
BOOKSUM_HF_DATASET = "kmfoda/booksum"
BOOKSUM_COMPLETE_HF_DATASET = "ubaada/booksum-complete-cleaned"
_COMPLETE_CONFIGS = {"chapter": "chapters", "book": "books"}


@dataclass
class _Doc:
    doc_id: str
    title: str
    text: str
    level: str
    source: str
    references: list[str] = field(default_factory=list)


def bundled_booksum_fixture() -> Path:
    """The small BookSum-layout file (two invented chapters) shipped with this project."""
    return Path(str(resources.files("longform_evals.data").joinpath("narrative"))).joinpath(
        "booksum_fixture.jsonl"
    )


def _check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    return level


def _id_field(record: Mapping[str, Any], keys: tuple[str, ...], where: str) -> str:
    for key in keys:
        value = record.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    raise DataError(f"{where}: missing field {' / '.join(repr(k) for k in keys)}")


def _summary_texts(value: object, where: str, key: str) -> list[str]:
    """A list of strings or of ``{text: ...}`` objects (a single string or object accepted)."""
    items = value if isinstance(value, list) else [value] if value is not None else []
    texts = []
    for index, item in enumerate(items):
        text = item.get("text") if isinstance(item, Mapping) else item
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{where}: {key}[{index}] is not a non-empty summary text")
        texts.append(text)
    return texts


def _instruction(title: str, level: str) -> str:
    if level == "chapter":
        return f"Summarize this chapter of {title!r}." if title else "Summarize this chapter."
    return f"Summarize the book {title!r}." if title else "Summarize this book."


def _samples(docs: Iterable[_Doc], origin: str) -> list[Sample]:
    samples = []
    ids = SampleIds()
    for doc in docs:
        ids.add(doc.doc_id, doc.source, "sample id (built from the document's id)")
        if not doc.references:
            raise DataError(f"{doc.source}: sample {doc.doc_id!r} has no reference summaries")
        samples.append(
            Sample(
                id=doc.doc_id,
                input=_instruction(doc.title, doc.level),
                target=list(doc.references),
                metadata={
                    "dataset": "booksum",
                    "doc_id": doc.doc_id,
                    "title": doc.title,
                    "document": doc.text,
                    "doc_words": len(doc.text.split()),
                    "references": list(doc.references),
                    "question": "",
                    "level": doc.level,
                    "source": doc.source,
                },
            )
        )
    if not samples:
        raise DataError(f"{origin}: holds no chapters or books")
    return samples


class _Docs:
    """Documents in order of first appearance; rows of the same id and text are merged."""

    def __init__(self) -> None:
        self.by_id: dict[str, _Doc] = {}

    def add(self, doc: _Doc, references: list[str], merge: bool) -> None:
        known = self.by_id.get(doc.doc_id)
        if known is not None and known.text == doc.text and merge:
            known.references.extend(references)
            return
        if known is not None:
            if not merge:
                raise DataError(f"{doc.source}: id {doc.doc_id!r} already used at {known.source}")
            # Same id, different text (e.g. two chapterizations): keep both, told apart by text.
            doc.doc_id = f"{doc.doc_id}@{text_hash(doc.text)}"
            if doc.doc_id in self.by_id:
                self.by_id[doc.doc_id].references.extend(references)
                return
        doc.references.extend(references)
        self.by_id[doc.doc_id] = doc


def load_booksum(source: str | Path | None = None, level: str | None = None) -> list[Sample]:
    """Load chapters/books from a local ``.jsonl`` file (fields in the module docstring).

    Args:
        source: The file; None loads the bundled fixture (two invented chapters).
        level: Keep only ``"chapter"`` or ``"book"`` rows (all rows are validated); None keeps
            all.

    Raises:
        DataError: If the file is missing or malformed (naming file:line and field), an id
            repeats, a summary list is empty, or nothing is kept.
        ValueError: If ``level`` is not a known level.
    """
    wanted = _check_level(level) if level is not None else None
    path = existing_file(source if source is not None else bundled_booksum_fixture(), "BookSum")
    docs = _Docs()
    for number, record in jsonl_records(path):
        where = f"{path}:{number}"
        doc_id = _id_field(record, ("doc_id",), where)
        text = require_text(record, "text", where)
        row_level = require_text(record, "level", where)
        if row_level not in LEVELS:
            raise DataError(f"{where}: field 'level' must be one of {LEVELS}, not {row_level!r}")
        summaries = record.get("summaries")
        if not isinstance(summaries, list):
            raise DataError(f"{where}: field 'summaries' must be a list of strings")
        if not summaries:
            raise DataError(f"{where}: sample {doc_id!r} has no reference summaries")
        references = _summary_texts(summaries, where, "summaries")
        if wanted is not None and row_level != wanted:
            continue
        title = optional_text(record, "title", where)
        docs.add(_Doc(doc_id, title, text, row_level, where), references, merge=False)
    return _samples(docs.by_id.values(), str(path))


def _title_from_book_id(book_id: str) -> str:
    # kmfoda book ids look like "<title>.chapter 3"; titles may themselves contain dots.
    head, dot, _ = book_id.rpartition(".")
    return head if dot else book_id


def booksum_samples_from_rows(
    rows: Iterable[Mapping[str, Any]], origin: str = "rows"
) -> list[Sample]:
    """Chapter samples from ``kmfoda/booksum``-layout rows (one row per chapter and guide).

    Rows with the same ``book_id`` (else ``bid``) and identical chapter text are merged, their
    ``summary_text`` values becoming the references in row order.

    Raises:
        DataError: If a row lacks ``chapter``, ``summary_text`` or an id, naming the row.
    """
    docs = _Docs()
    for number, raw in enumerate(rows):
        where = f"{origin} row {number}"
        row = require_mapping(raw, where)
        doc_id = _id_field(row, ("book_id", "bid"), where)
        text = require_text(row, "chapter", where)
        summary = require_text(row, "summary_text", where)
        title = optional_text(row, "title", where) or _title_from_book_id(doc_id)
        docs.add(_Doc(doc_id, title, text, "chapter", where), [summary], merge=True)
    return _samples(docs.by_id.values(), origin)


def booksum_complete_samples_from_rows(
    rows: Iterable[Mapping[str, Any]], level: str, origin: str = "rows"
) -> list[Sample]:
    """Samples from ``ubaada/booksum-complete-cleaned``-layout rows (one per chapter or book).

    Raises:
        DataError: If a row lacks ``text`` or an id, or its ``summary`` holds no text.
        ValueError: If ``level`` is not a known level.
    """
    _check_level(level)
    docs = _Docs()
    for number, raw in enumerate(rows):
        where = f"{origin} row {number}"
        row = require_mapping(raw, where)
        doc_id = _id_field(row, ("chapter_id", "id", "bid"), where)
        text = require_text(row, "text", where)
        references = _summary_texts(row.get("summary"), where, "summary")
        if not references:
            raise DataError(f"{where}: sample {doc_id!r} has no reference summaries")
        title = optional_text(row, "title", where) or optional_text(row, "book_title", where)
        docs.add(_Doc(doc_id, title, text, level, where), references, merge=True)
    return _samples(docs.by_id.values(), origin)


def load_booksum_hf(
    split: str = "test", dataset_id: str = BOOKSUM_HF_DATASET, revision: str | None = None
) -> list[Sample]:
    """Load BookSum chapters from ``kmfoda/booksum`` (needs internet and the ``hf`` extra).

    ``revision``: the commit, branch or tag to read; None: the pinned one
    (:data:`~longform_evals.data.sources.PINS`).

    Raises:
        ImportError: If ``datasets`` is not installed (``pip install 'longform-evals[hf]'``).
        DataError: If a row is malformed.
    """
    rows = hf_rows(dataset_id, split, None, revision)
    return booksum_samples_from_rows(rows, f"{dataset_id} [{split}]")


def load_booksum_complete_hf(
    level: str = "chapter",
    split: str = "test",
    dataset_id: str = BOOKSUM_COMPLETE_HF_DATASET,
    revision: str | None = None,
) -> list[Sample]:
    """Load ``ubaada/booksum-complete-cleaned`` (config ``chapters`` or ``books`` by level).

    ``revision``: as for :func:`load_booksum_hf`.

    Raises:
        ImportError: If ``datasets`` is not installed (``pip install 'longform-evals[hf]'``).
        DataError: If a row is malformed.
        ValueError: If ``level`` is not a known level.
    """
    config = _COMPLETE_CONFIGS[_check_level(level)]
    rows = hf_rows(dataset_id, split, config, revision)
    return booksum_complete_samples_from_rows(rows, level, f"{dataset_id}/{config} [{split}]")
