"""NarrativeQA free-form reading questions as Inspect samples.

NarrativeQA (Kočiský et al., 2018, "The NarrativeQA Reading Comprehension Challenge") asks
questions about books (Project Gutenberg) and movie scripts; the questions were written from
Wikipedia plot summaries, and each has two reference answers.

Sources:

- :func:`load_narrativeqa`: local JSONL, one question per line: ``question``, ``answer`` (list
  of reference answers), ``passage`` (a plot summary), and optionally ``title`` and ``kind``
  (``"gutenberg"`` or ``"movie"``, the kind of story summarized). Questions are grouped into
  documents by identical passage; ``doc_id`` is a short hash of the passage, and
  ``doc_kind`` is ``"summary"``.
- :func:`load_narrativeqa_hf`: ``deepmind/narrativeqa`` from the Hugging Face hub, through the
  optional ``datasets`` library (several GB: every row carries its full story). Rows hold
  ``document.id``, ``document.kind``, ``document.text`` (the full story file, with its
  Gutenberg or script-site boilerplate kept as is), ``document.summary.text`` and ``.title``,
  ``question.text`` and ``answers[].text``; the mapping is
  :func:`narrativeqa_samples_from_rows`. The document is the full story (``doc_kind`` its
  kind), or with ``summaries_only`` the Wikipedia summary (``doc_kind`` ``"summary"``).

Samples follow :mod:`longform_evals.data.reading_samples`: ``target`` and ``references`` are
the reference answers; the extra ``story_kind`` is ``"gutenberg"``, ``"movie"`` or None
(unknown, local files without ``kind``) whatever text the document is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.ids import id_key, spelled_as
from longform_evals.data.jsonl import DataError, jsonl_records, require_text
from longform_evals.data.reading_samples import (
    ReadingDoc,
    ReadingQuestion,
    existing_file,
    hf_rows,
    optional_text,
    reading_samples,
    require_answers,
    require_mapping,
    snippet,
    text_hash,
)

__all__ = [
    "NARRATIVEQA_HF_DATASET",
    "STORY_KINDS",
    "load_narrativeqa",
    "load_narrativeqa_hf",
    "narrativeqa_samples_from_rows",
]

NARRATIVEQA_HF_DATASET = "deepmind/narrativeqa"
"""Default Hugging Face dataset for :func:`load_narrativeqa_hf`."""

STORY_KINDS: tuple[str, ...] = ("gutenberg", "movie")
"""Values of the ``kind`` filter: books or movie scripts."""


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in STORY_KINDS:
        raise ValueError(f"kind must be None, 'gutenberg' or 'movie', not {kind!r}")


class _Stories:
    """Questions grouped by document, in order of first appearance."""

    def __init__(self) -> None:
        self._groups: dict[str, tuple[ReadingDoc, list[ReadingQuestion]]] = {}

    def doc(self, doc_id: str, title: str, text: str, kind: str, where: str) -> ReadingDoc:
        group = self._groups.get(id_key(doc_id))
        if group is None:
            doc = ReadingDoc(doc_id, title, text, kind)
            self._groups[id_key(doc_id)] = (doc, [])
            return doc
        if group[0].text != text:
            raise DataError(
                f"{where}: document {doc_id!r} was seen before with another text"
                f"{spelled_as(group[0].doc_id, doc_id)}"
            )
        return group[0]

    def add(
        self,
        doc: ReadingDoc,
        question: str,
        answers: list[str],
        story_kind: str | None,
        where: str = "",
    ) -> None:
        entries = self._groups[doc.doc_id][1]
        entries.append(
            ReadingQuestion(
                doc=doc,
                sample_id=f"{doc.doc_id}:{len(entries)}",
                question=question,
                references=answers,
                target=answers,
                extras={"story_kind": story_kind},
                where=where,
                id_from="sample id (built from the document id)",
            )
        )

    def samples(self, origin: str, kind: str | None) -> list[Sample]:
        items = [item for _, entries in self._groups.values() for item in entries]
        if not items:
            wanted = f" of kind {kind!r}" if kind is not None else ""
            raise DataError(f"{origin}: holds no questions{wanted}")
        return reading_samples("narrativeqa", items)


def _record_kind(record: Mapping[str, Any], where: str, required: bool) -> str | None:
    value = record.get("kind")
    if value is None:
        if required:
            raise DataError(f"{where}: no field 'kind' ('gutenberg' or 'movie') to filter on")
        return None
    if value not in STORY_KINDS:
        raise DataError(f"{where}: field 'kind' must be 'gutenberg' or 'movie', not {value!r}")
    return str(value)


def load_narrativeqa(source: str | Path, kind: str | None = None) -> list[Sample]:
    """Load NarrativeQA questions over plot summaries from a local JSONL file.

    Args:
        source: The ``.jsonl`` file (format in the module docstring).
        kind: Keep only questions about ``"gutenberg"`` books or ``"movie"`` scripts; then
            every line needs a ``kind`` field. None keeps all.

    Returns:
        One sample per question, grouped by passage in order of first appearance.

    Raises:
        DataError: If the file is missing or keeps no questions, or a line is malformed (no
            question, no answers, no passage, a bad or missing ``kind``), naming file:line and
            field.
        ValueError: If ``kind`` is not None, ``"gutenberg"`` or ``"movie"``.
    """
    _check_kind(kind)
    path = existing_file(source, "NarrativeQA")
    stories = _Stories()
    titles: dict[str, str] = {}
    kinds: dict[str, str | None] = {}
    for number, record in jsonl_records(path):
        where = f"{path}:{number}"
        question = require_text(record, "question", where)
        where_q = f"{where} {snippet(question)}"
        answers = require_answers(record.get("answer"), where_q, "answer")
        passage = require_text(record, "passage", where_q)
        story_kind = _record_kind(record, where_q, required=kind is not None)
        doc_id = text_hash(passage)
        # One passage is one story: its kind must agree, so a filter keeps or drops it whole.
        if kinds.setdefault(doc_id, story_kind) != story_kind:
            raise DataError(f"{where_q}: field 'kind' differs from an earlier line's same passage")
        title = titles.setdefault(doc_id, optional_text(record, "title", where_q))
        doc = stories.doc(doc_id, title, passage, "summary", where_q)
        if kind is None or story_kind == kind:
            stories.add(doc, question, answers, story_kind, where)
    return stories.samples(str(path), kind)


def _row_answers(row: Mapping[str, Any], where: str) -> list[str]:
    answers = row.get("answers")
    if not isinstance(answers, list) or not answers:
        raise DataError(f"{where}: field 'answers' must be a non-empty list of {{text: ...}}")
    texts = [a.get("text") if isinstance(a, Mapping) else a for a in answers]
    return require_answers(texts, where, "answers[].text")


def narrativeqa_samples_from_rows(
    rows: Iterable[Mapping[str, Any]],
    *,
    kind: str | None = None,
    summaries_only: bool = False,
    origin: str = "rows",
) -> list[Sample]:
    """Map ``deepmind/narrativeqa`` rows (one per question) to samples; no network.

    Args:
        rows: Rows with ``document`` (``id``, ``kind``, ``text``, ``summary`` with ``text``
            and ``title``), ``question`` (``text``) and ``answers`` (list of ``{text}``).
        kind: Keep only ``"gutenberg"`` or ``"movie"`` documents; None keeps all. Rows of
            other kinds are not validated beyond their ``document.kind``.
        summaries_only: Use the summary as the document (``doc_kind`` ``"summary"``) instead
            of the full story; the story text is then not read.
        origin: Names the rows in error messages (``"<origin> row <i>"``).

    Returns:
        One sample per question, grouped by ``document.id`` in order of first appearance;
        within a document, questions keep row order and are numbered from 0.

    Raises:
        DataError: If a row is malformed (naming row, document and field), or none is kept.
        ValueError: If ``kind`` is invalid.
    """
    _check_kind(kind)
    stories = _Stories()
    for index, raw in enumerate(rows):
        where = f"{origin} row {index}"
        row = require_mapping(raw, where)
        document = require_mapping(row.get("document"), f"{where}: field 'document'")
        doc_id = require_text(document, "id", f"{where}: document")
        where = f"{where} (document {doc_id})"
        story_kind = require_text(document, "kind", f"{where}: document")
        if kind is not None and story_kind != kind:
            continue
        summary = require_mapping(document.get("summary"), f"{where}: field 'document.summary'")
        title = optional_text(summary, "title", f"{where}: document.summary")
        if summaries_only:
            text = require_text(summary, "text", f"{where}: document.summary")
            doc = stories.doc(doc_id, title, text, "summary", where)
        else:
            text = require_text(document, "text", f"{where}: document")
            doc = stories.doc(doc_id, title, text, story_kind, where)
        question = require_mapping(row.get("question"), f"{where}: field 'question'")
        question_text = require_text(question, "text", f"{where}: question")
        answers = _row_answers(row, f"{where} {snippet(question_text)}")
        stories.add(doc, question_text, answers, story_kind, where)
    return stories.samples(origin, kind)


def load_narrativeqa_hf(
    split: str = "test",
    kind: str | None = None,
    *,
    summaries_only: bool = False,
    dataset_id: str = NARRATIVEQA_HF_DATASET,
    revision: str | None = None,
) -> list[Sample]:
    """Load NarrativeQA from the Hugging Face hub (needs internet and ``pip install datasets``).

    The download holds every full story (several GB), even with ``summaries_only``.

    Args:
        split: ``"train"``, ``"validation"`` or ``"test"``.
        kind: Keep only ``"gutenberg"`` or ``"movie"`` documents; None keeps all.
        summaries_only: Read the Wikipedia summary instead of the full story.
        dataset_id: The dataset to load (``deepmind/narrativeqa`` layout).
        revision: The commit, branch or tag to read; None: the pinned one
            (:data:`~longform_evals.data.sources.PINS`).

    Returns:
        The samples (see :func:`narrativeqa_samples_from_rows`).

    Raises:
        ImportError: If ``datasets`` is not installed.
        DataError: If a row is malformed, or no question is kept.
        ValueError: If ``kind`` is invalid.
    """
    _check_kind(kind)
    rows = hf_rows(dataset_id, split, revision=revision)
    return narrativeqa_samples_from_rows(
        rows, kind=kind, summaries_only=summaries_only, origin=f"{dataset_id} [{split}]"
    )
