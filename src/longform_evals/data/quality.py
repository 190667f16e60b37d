"""QuALITY multiple-choice reading questions as Inspect samples.

QuALITY (Pang et al., 2022, "QuALITY: Question Answering with Long Input Texts, Yes!") asks
four-option questions about articles and stories of 2,000 to 8,000 words; questions that
annotators under time pressure got wrong are marked difficult ("hard").

Sources:

- :func:`load_quality`: local JSONL, one article per line: ``article_id`` (optional; a hash of
  the text otherwise), ``title`` (optional), ``article``, ``questions`` = list of
  ``{question, options, gold_label}`` with ``gold_label`` 1-based, and optionally
  ``difficult`` or ``hard`` (bool or 0/1). Other fields (``source``, ...) are ignored. An
  ``article_id`` on several lines continues the same document (the text must match), so the
  official QuALITY train/dev JSONL (one line per article and question set) loads as is.
- :func:`load_quality_hf`: a Hugging Face dataset with one row per question, through the
  optional ``datasets`` library. ``emozilla/quality`` has ``article``, ``question``,
  ``options``, ``answer`` (0-based) and ``hard``; ``tasksource/QuALITY`` has the official
  fields ``article_id``, ``title``, ``article``, ``question``, ``options``, ``gold_label``
  (1-based) and ``difficult``. A row with ``gold_label`` is read as 1-based, else ``answer``
  as 0-based. Rows are grouped into documents by ``article_id``, or by the article text where
  there is none; the mapping is :func:`quality_samples_from_rows`.

Samples follow :mod:`longform_evals.data.reading_samples`: ``choices`` are the options,
``target`` the gold letter, ``doc_kind`` ``"article"``, and the extras ``hard`` (bool; False
where the source has no flag) and ``gold_index`` (0-based).
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.ids import id_key, spelled_as
from longform_evals.data.jsonl import DataError, jsonl_records, require_text
from longform_evals.data.reading_samples import (
    ReadingDoc,
    ReadingQuestion,
    as_int,
    describe,
    existing_file,
    hf_rows,
    optional_text,
    reading_samples,
    require_mapping,
    snippet,
    text_hash,
)

__all__ = [
    "QUALITY_HF_DATASET",
    "load_quality",
    "load_quality_hf",
    "quality_samples_from_rows",
]

QUALITY_HF_DATASET = "emozilla/quality"
"""Default Hugging Face dataset for :func:`load_quality_hf` (parquet, no loading script)."""

_LETTERS = string.ascii_uppercase
_HARD_KEYS = ("hard", "difficult")

_Entry = tuple[ReadingQuestion, bool | None]
"""A question and its difficulty flag (None when the source gives none)."""


def _options(record: Mapping[str, Any], where: str) -> list[str]:
    value = record.get("options")
    if not isinstance(value, list) or len(value) < 2:
        raise DataError(f"{where}: no choices: field 'options' must list at least 2 options")
    if len(value) > len(_LETTERS):
        raise DataError(f"{where}: {len(value)} options; at most {len(_LETTERS)} are supported")
    if not all(isinstance(option, str) and option.strip() for option in value):
        raise DataError(f"{where}: every entry of 'options' must be a non-empty string")
    return list(value)


def _gold_index(record: Mapping[str, Any], n_options: int, where: str) -> int:
    if record.get("gold_label") is not None:
        key, base = "gold_label", 1
    elif record.get("answer") is not None:
        key, base = "answer", 0
    else:
        raise DataError(f"{where}: no gold label: expected 'gold_label' (1-based) or 'answer'")
    raw = record[key]
    value = as_int(raw)
    if value is None or not base <= value < n_options + base:
        raise DataError(
            f"{where}: gold label {key!r} = {describe(raw)} is out of range "
            f"{base}..{n_options - 1 + base} for {n_options} options"
        )
    return value - base


def _hard(record: Mapping[str, Any], where: str) -> bool | None:
    """The question's difficulty flag, or None when the source gives none."""
    flags: dict[str, bool] = {}
    for key in _HARD_KEYS:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or (not isinstance(value, str) and as_int(value) in (0, 1)):
            flags[key] = bool(value)
        else:
            raise DataError(
                f"{where}: field {key!r} must be a boolean or 0/1, not {describe(value)}"
            )
    if len(set(flags.values())) > 1:
        raise DataError(f"{where}: fields 'hard' and 'difficult' disagree")
    return next(iter(flags.values()), None)


class _Articles:
    """Questions grouped by article, in order of first appearance."""

    def __init__(self) -> None:
        self._groups: dict[str, tuple[ReadingDoc, list[_Entry]]] = {}

    def article(self, record: Mapping[str, Any], where: str) -> ReadingDoc:
        text = require_text(record, "article", where)
        raw_id = record.get("article_id")
        if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
            doc_id = text_hash(text)
        elif isinstance(raw_id, str | int) and not isinstance(raw_id, bool):
            doc_id = str(raw_id)
        else:
            raise DataError(f"{where}: field 'article_id' must be a string")
        group = self._groups.get(id_key(doc_id))
        if group is None:
            doc = ReadingDoc(doc_id, optional_text(record, "title", where), text, "article")
            self._groups[id_key(doc_id)] = (doc, [])
            return doc
        if group[0].text != text:
            raise DataError(
                f"{where}: article_id {doc_id!r} was seen before with another text"
                f"{spelled_as(group[0].doc_id, doc_id)}"
            )
        return group[0]

    def add(self, doc: ReadingDoc, record: Mapping[str, Any], where: str) -> None:
        entries = self._groups[id_key(doc.doc_id)][1]
        question = require_text(record, "question", where)
        at, where = where, f"{where} {snippet(question)}"
        options = _options(record, where)
        gold = _gold_index(record, len(options), where)
        hard = _hard(record, where)
        item = ReadingQuestion(
            doc=doc,
            sample_id=f"{doc.doc_id}:{len(entries)}",
            question=question,
            references=[options[gold]],
            target=_LETTERS[gold],
            choices=options,
            extras={"hard": bool(hard), "gold_index": gold},
            where=at,
            id_from="sample id (built from 'article_id', or a hash of the article)",
        )
        entries.append((item, hard))

    def samples(self, hard_only: bool, origin: str) -> list[Sample]:
        entries = [entry for _, group in self._groups.values() for entry in group]
        if not entries:
            raise DataError(f"{origin}: holds no questions")
        if hard_only:
            if all(flag is None for _, flag in entries):
                raise DataError(
                    f"{origin}: hard_only=True, but no question has a 'hard' or 'difficult' flag"
                )
            entries = [entry for entry in entries if entry[1]]
            if not entries:
                raise DataError(f"{origin}: hard_only=True, but no question is marked hard")
        return reading_samples("quality", [item for item, _ in entries])


def load_quality(source: str | Path, hard_only: bool = False) -> list[Sample]:
    """Load QuALITY questions from a local JSONL file (one article per line).

    Args:
        source: The ``.jsonl`` file (format in the module docstring).
        hard_only: Keep only questions marked ``difficult``/``hard``.

    Returns:
        One sample per question, grouped by article in file order.

    Raises:
        DataError: If the file is missing or holds no questions; if a line is malformed (no
            article, no questions, a question without text or choices, a gold label out of
            range, a bad difficulty flag), naming file:line, question and field; or if
            ``hard_only`` is set and the file marks no question hard.
    """
    path = existing_file(source, "QuALITY")
    articles = _Articles()
    for number, record in jsonl_records(path):
        where = f"{path}:{number}"
        doc = articles.article(record, where)
        questions = record.get("questions")
        if not isinstance(questions, list) or not questions:
            raise DataError(f"{where}: field 'questions' must be a non-empty list")
        for index, question in enumerate(questions):
            question_where = f"{where}: questions[{index}]"
            articles.add(doc, require_mapping(question, question_where), question_where)
    return articles.samples(hard_only, str(path))


def quality_samples_from_rows(
    rows: Iterable[Mapping[str, Any]], *, hard_only: bool = False, origin: str = "rows"
) -> list[Sample]:
    """Map Hugging Face QuALITY rows (one per question) to samples; no network.

    Args:
        rows: Rows in the ``emozilla/quality`` or ``tasksource/QuALITY`` layout (see the
            module docstring).
        hard_only: Keep only questions flagged ``hard``/``difficult``.
        origin: Names the rows in error messages (``"<origin> row <i>"``).

    Returns:
        One sample per question, grouped by document in order of first appearance; within a
        document, questions keep row order and are numbered from 0.

    Raises:
        DataError: If a row is malformed (the message names the row and field), if no rows
            are given, or if ``hard_only`` finds no flagged question.
    """
    articles = _Articles()
    for index, raw in enumerate(rows):
        where = f"{origin} row {index}"
        row = require_mapping(raw, where)
        articles.add(articles.article(row, where), row, where)
    return articles.samples(hard_only, origin)


def load_quality_hf(
    dataset_id: str = QUALITY_HF_DATASET,
    split: str = "validation",
    hard_only: bool = False,
    revision: str | None = None,
) -> list[Sample]:
    """Load QuALITY from the Hugging Face hub (needs internet and ``pip install datasets``).

    Args:
        dataset_id: ``"emozilla/quality"`` (splits train, validation) or
            ``"tasksource/QuALITY"``, or another dataset with one of their layouts.
        split: The split to load.
        hard_only: Keep only questions flagged hard.
        revision: The commit, branch or tag, as for :func:`~.reading_samples.hf_rows`.

    Returns:
        The samples (see :func:`quality_samples_from_rows`).

    Raises:
        ImportError: If ``datasets`` is not installed.
        DataError: If a row is malformed, there is none, or ``hard_only`` finds no hard question.
    """
    rows = hf_rows(dataset_id, split, revision=revision)
    return quality_samples_from_rows(rows, hard_only=hard_only, origin=f"{dataset_id} [{split}]")
