"""SQuALITY question-focused story summarization as Inspect samples.

SQuALITY (Wang et al., 2022) asks for summaries of short science-fiction stories (Project
Gutenberg, 3-7k words) that answer a question ("What is the plot of the story?", "Describe
the relationship between ..."); every question has four reference summaries written by
different people.

Source layout (SQuALITY v1.3, one story per JSON object): ``metadata`` = ``{passage_id, uid,
license}``, ``document`` = the story text, ``questions`` = list of ``{question_text,
question_number, responses}`` with ``responses`` = list of ``{worker_id, uid,
response_text}``. :func:`load_squality` reads such a ``.jsonl`` file; :func:`load_squality_hf`
reads ``pszemraj/SQuALITY-v1.3`` from the Hugging Face hub, assumed to keep the same nested
layout (not verified here: the loader is exercised on hand-made rows only, and a row in
another layout fails with a DataError naming the missing field).

Samples: one per (story, question), id ``"<passage_id>:<n>"`` (``n`` the 0-based index of the
question in the story's list), ``input`` the question, ``target`` the reference summaries.
Metadata: ``dataset`` (``"squality"``), ``doc_id``, ``title`` (the story's first non-blank
line: the stories begin with their title; ``""`` for an empty first line), ``document``,
``doc_words`` (whitespace words), ``doc_questions`` (samples sharing the story),
``question``, ``question_number`` (the source's own number, an integer in 0..999 or a string
of its digits; None when absent) and ``references``. A blank story is a DataError.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import DataError, jsonl_records, require_text
from longform_evals.data.reading_samples import (
    bounded_int,
    existing_file,
    hf_rows,
    require_mapping,
    snippet,
)

__all__ = [
    "SQUALITY_HF_DATASET",
    "bundled_squality_fixture",
    "load_squality",
    "load_squality_hf",
    "squality_samples_from_rows",
]

SQUALITY_HF_DATASET = "pszemraj/SQuALITY-v1.3"
"""Default Hugging Face dataset for :func:`load_squality_hf`."""


def bundled_squality_fixture() -> Path:
    """The small SQuALITY-layout file written for and shipped with this project."""
    return Path(str(resources.files("longform_evals.data").joinpath("narrative"))).joinpath(
        "squality_fixture.jsonl"
    )


def _title(document: str) -> str:
    for line in document.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _doc_id(record: Mapping[str, Any], where: str) -> str:
    meta = require_mapping(record.get("metadata"), f"{where}: field 'metadata'")
    for key in ("passage_id", "uid"):
        value = meta.get(key)
        if value is None:
            continue  # absent: the next key names the story
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value)
        # present but not an id (NaN, a list, blank): an error, not a silent fallback
        raise DataError(
            f"{where}: field 'metadata.{key}' must be a non-empty string or an integer, "
            f"not {value!r}"
        )
    raise DataError(f"{where}: missing field 'metadata.passage_id' (or 'metadata.uid')")


MAX_QUESTION_NUMBER = 999
"""Largest ``question_number`` accepted (the published stories number theirs 1 to 5)."""


def _question_number(question: Mapping[str, Any], where: str) -> int | None:
    value = question.get("question_number")
    if value is None:
        return None
    return bounded_int(value, 0, MAX_QUESTION_NUMBER, where, "question_number")


def _references(question: Mapping[str, Any], sample_id: str, where: str) -> list[str]:
    responses = question.get("responses")
    if not isinstance(responses, list):
        raise DataError(f"{where}: field 'responses' must be a list")
    if not responses:
        raise DataError(f"{where}: sample {sample_id!r} has no reference summaries")
    references = []
    for index, raw in enumerate(responses):
        response = require_mapping(raw, f"{where}: responses[{index}]")
        references.append(require_text(response, "response_text", f"{where}: responses[{index}]"))
    return references


def _story_samples(record: Mapping[str, Any], where: str) -> tuple[str, list[Sample]]:
    doc_id = _doc_id(record, where)
    where = f"{where} (story {doc_id})"
    document = require_text(record, "document", where)
    questions = record.get("questions")
    if not isinstance(questions, list) or not questions:
        raise DataError(f"{where}: field 'questions' must be a non-empty list")
    title = _title(document)
    doc_words = len(document.split())
    samples = []
    for index, raw in enumerate(questions):
        q_where = f"{where}: questions[{index}]"
        question = require_mapping(raw, q_where)
        text = require_text(question, "question_text", q_where)
        sample_id = f"{doc_id}:{index}"
        references = _references(question, sample_id, f"{q_where} {snippet(text)}")
        samples.append(
            Sample(
                id=sample_id,
                input=text,
                target=references,
                metadata={
                    "dataset": "squality",
                    "doc_id": doc_id,
                    "title": title,
                    "document": document,
                    "doc_words": doc_words,
                    "doc_questions": len(questions),
                    "question": text,
                    "question_number": _question_number(question, q_where),
                    "references": list(references),
                },
            )
        )
    return doc_id, samples


def _collect(records: Iterable[tuple[Mapping[str, Any], str]], origin: str) -> list[Sample]:
    stories, ids = SampleIds(), SampleIds()
    samples: list[Sample] = []
    for record, where in records:
        doc_id, story = _story_samples(require_mapping(record, where), where)
        stories.add(doc_id, where, "story id")
        for sample in story:
            ids.add(str(sample.id), where, "sample id (built from 'metadata.passage_id')")
        samples.extend(story)
    if not samples:
        raise DataError(f"{origin}: holds no stories")
    return samples


def squality_samples_from_rows(
    rows: Iterable[Mapping[str, Any]], origin: str = "rows"
) -> list[Sample]:
    """Samples from SQuALITY-layout rows (dicts, e.g. from ``datasets``).

    Args:
        rows: One story per row, in the layout of the module docstring.
        origin: Names the source in error messages (``"<origin> row <n>"``, 0-based).

    Returns:
        One sample per (story, question), stories in row order.

    Raises:
        DataError: If a row lacks a field, a question has no reference summaries, a summary is
            blank, two rows share a story id, or there are no rows.
    """
    return _collect(((row, f"{origin} row {n}") for n, row in enumerate(rows)), origin)


def load_squality(source: str | Path | None = None) -> list[Sample]:
    """Load SQuALITY from a local ``.jsonl`` file (one story per line).

    Args:
        source: The file; None loads the bundled fixture (one invented story).

    Returns:
        See :func:`squality_samples_from_rows`.

    Raises:
        DataError: If the file is missing or malformed, naming file:line and field.
    """
    path = existing_file(source if source is not None else bundled_squality_fixture(), "SQuALITY")
    return _collect(((rec, f"{path}:{n}") for n, rec in jsonl_records(path)), str(path))


def load_squality_hf(
    split: str = "validation", dataset_id: str = SQUALITY_HF_DATASET, revision: str | None = None
) -> list[Sample]:
    """Load SQuALITY from the Hugging Face hub (needs internet and the ``hf`` extra).

    Args:
        split: The split name (the original release has train, dev and test; the hub copy's
            split names are not verified here, ``"validation"`` is assumed).
        dataset_id: The dataset, in the layout of the module docstring.
        revision: The commit, branch or tag to read; None: the pinned one
            (:data:`~longform_evals.data.sources.PINS`).

    Raises:
        ImportError: If ``datasets`` is not installed (``pip install 'longform-evals[hf]'``).
        DataError: If a row is malformed.
    """
    rows = hf_rows(dataset_id, split, revision=revision)
    return squality_samples_from_rows(rows, f"{dataset_id} [{split}]")
