"""The sample schema shared by the reading-task loaders (QuALITY, NarrativeQA, QMSum).

Loaders produce one Inspect :class:`~inspect_ai.dataset.Sample` per question:

- ``id``: ``"<doc_id>:<n>"``, with ``n`` the 0-based index of the question within its document
  in the source, counted before any filter so that ids never depend on loader options (QMSum:
  ``"<meeting_id>:general:<n>"`` and ``"<meeting_id>:specific:<n>"``);
- ``input``: the question text only;
- multiple choice: ``choices`` (option texts, in order) and ``target`` the gold letter
  (``"A"``, ...); free-form: ``target`` the list of reference answers, no choices;
- ``metadata``: ``dataset``, ``doc_id``, ``title`` (``""`` when unknown), ``document`` (the
  text the reader reads), ``doc_kind``, ``doc_words`` (whitespace word count of ``document``),
  ``doc_questions`` (how many loaded samples share the ``doc_id``, after filters: used to
  spread per-document cost), ``question`` (same as ``input``), ``references`` (reference
  answers; for multiple choice ``[gold option text]``), and the dataset's extras.

Samples of one document are consecutive, documents in order of first appearance.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import operator
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, SupportsIndex

from inspect_ai.dataset import Sample

from longform_evals.data.files import check_file
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import MAX_JSON_INT_DIGITS, DataError, optional_string
from longform_evals.data.sources import resolve_revision

__all__ = [
    "ReadingDoc",
    "ReadingQuestion",
    "as_int",
    "bounded_int",
    "describe",
    "existing_file",
    "hf_rows",
    "optional_text",
    "reading_samples",
    "require_answers",
    "require_mapping",
    "snippet",
    "text_hash",
]


@dataclass(frozen=True)
class ReadingDoc:
    """A document that questions are asked about.

    Attributes:
        doc_id: Stable identifier, unique within a loaded dataset.
        title: Title, or ``""`` when unknown.
        text: The full text the reader reads.
        kind: ``metadata["doc_kind"]``: ``"article"``, ``"gutenberg"``, ``"movie"``,
            ``"summary"`` or ``"meeting"``.
    """

    doc_id: str
    title: str
    text: str
    kind: str


@dataclass(frozen=True)
class ReadingQuestion:
    """One question about a document, before it becomes a Sample.

    Attributes:
        doc: The document.
        sample_id: The sample's id (see the module docstring).
        question: The question text.
        references: Reference answers (multiple choice: the gold option text).
        target: The gold letter (multiple choice) or the reference answers.
        choices: Option texts for multiple choice, else None.
        extras: Dataset-specific metadata, merged into the sample's metadata.
        where: Where the question was read (``"file:line"``), for messages.
        id_from: The fields the sample id was built from, for messages.
    """

    doc: ReadingDoc
    sample_id: str
    question: str
    references: list[str]
    target: str | list[str]
    choices: list[str] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    where: str = ""
    id_from: str = "sample id"


def reading_samples(dataset: str, questions: Sequence[ReadingQuestion]) -> list[Sample]:
    """Turn questions into Samples of the shared schema, counting questions per document.

    Args:
        dataset: ``metadata["dataset"]``: ``"quality"``, ``"narrativeqa"`` or ``"qmsum"``.
        questions: The questions that are kept (after filters), in output order.

    Returns:
        One Sample per question, in the given order.

    Raises:
        DataError: If a sample id is not valid (:mod:`~longform_evals.data.ids`: printable,
            bounded, unique), one doc_id names two different texts, or a document is blank
            (loaders reject those earlier, naming file and line).
    """
    per_doc = Counter(q.doc.doc_id for q in questions)
    docs: dict[str, ReadingDoc] = {}
    words: dict[str, int] = {}
    ids = SampleIds()
    samples: list[Sample] = []
    for q in questions:
        ids.add(q.sample_id, q.where or dataset, q.id_from)
        known = docs.setdefault(q.doc.doc_id, q.doc)
        if known is not q.doc and known.text != q.doc.text:
            raise DataError(f"{dataset}: doc_id {q.doc.doc_id!r} names two different texts")
        if q.doc.doc_id not in words:
            words[q.doc.doc_id] = len(q.doc.text.split())
            if not words[q.doc.doc_id]:
                raise DataError(f"{dataset}: document {q.doc.doc_id!r} is blank")
        metadata: dict[str, Any] = {
            "dataset": dataset,
            "doc_id": q.doc.doc_id,
            "title": q.doc.title,
            "document": q.doc.text,
            "doc_kind": q.doc.kind,
            "doc_words": words[q.doc.doc_id],
            "doc_questions": per_doc[q.doc.doc_id],
            "question": q.question,
            "references": list(q.references),
            **q.extras,
        }
        samples.append(
            Sample(
                id=q.sample_id,
                input=q.question,
                choices=list(q.choices) if q.choices is not None else None,
                target=q.target if isinstance(q.target, str) else list(q.target),
                metadata=metadata,
            )
        )
    return samples


def text_hash(text: str) -> str:
    """A short stable id for a text: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def snippet(text: str, limit: int = 60) -> str:
    """``text`` shortened for error messages, quoted."""
    one_line = " ".join(text.split())
    return repr(one_line if len(one_line) <= limit else one_line[: limit - 3] + "...")


def existing_file(source: str | Path, what: str) -> Path:
    """``source`` as a Path; a DataError naming it if it is no readable, non-empty file
    (:func:`~longform_evals.data.files.check_file`)."""
    return check_file(Path(source), f"{what} file")


def require_mapping(value: object, where: str) -> Mapping[str, Any]:
    """``value`` if it is a JSON object (a mapping), else a DataError."""
    if not isinstance(value, Mapping):
        raise DataError(f"{where}: expected an object, not {type(value).__name__}")
    return value


def optional_text(record: Mapping[str, Any], key: str, where: str) -> str:
    """``record[key]`` as a string; ``""`` when absent or null; a DataError naming the field
    and the type for other values (a list, a number, NaN)."""
    return optional_string(record, key, where) or ""


def require_answers(value: object, where: str, key: str) -> list[str]:
    """Reference answers: a non-empty list of non-blank strings (a single string is accepted)."""
    if isinstance(value, str):
        value = [value]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(a, str) and a.strip() for a in value)
    ):
        raise DataError(f"{where}: field {key!r} must be a non-empty list of non-empty strings")
    return list(value)


_INT_TEXT = re.compile(rf"\s*(-?[0-9]{{1,{MAX_JSON_INT_DIGITS}}})\s*")


def as_int(value: object) -> int | None:
    """``value`` as an int if it is an integer (numpy ints too) or a string of ASCII digits.

    A string of more than :data:`~longform_evals.data.jsonl.MAX_JSON_INT_DIGITS` digits is
    not read (None): Python refuses to convert very long digit strings, and no field needs
    one. Booleans, floats and other strings are None too.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        match = _INT_TEXT.fullmatch(value)
        return int(match.group(1)) if match else None
    if isinstance(value, SupportsIndex):
        return operator.index(value)
    return None


def describe(value: object, limit: int = 60) -> str:
    """A short representation of ``value`` for error messages, safe for any value.

    Long strings and representations are cut, and an integer too long to print (Python
    refuses to turn integers of more than 4,300 digits into text) is described by its size.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, str) and len(value) > limit:
        return f"{value[: limit - 3]!r}... ({len(value)} characters)"
    try:
        text = repr(value)
    except ValueError:  # a container holding an integer too long to print
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def bounded_int(value: object, low: int, high: int, where: str, key: str) -> int:
    """``value`` as an int within ``low..high`` (inclusive), else a DataError naming ``key``.

    Args:
        value: An integer or a string of digits (see :func:`as_int`).
        low: The smallest accepted value.
        high: The largest accepted value.
        where: Names the record in the message (``"file:line"``, ``"<origin> row <n>"``).
        key: The field's name, for the message.

    Returns:
        The integer.

    Raises:
        DataError: If ``value`` is not an integer, is too long to read, or is out of range.
    """
    number = as_int(value)
    if number is None or not low <= number <= high:
        raise DataError(
            f"{where}: field {key!r} must be an integer in {low}..{high}, not {describe(value)}"
        )
    return number


def hf_rows(
    dataset_id: str, split: str, config: str | None = None, revision: str | None = None
) -> Iterable[Mapping[str, Any]]:
    """Rows of a Hugging Face dataset split, through the optional ``datasets`` library.

    Args:
        dataset_id: The dataset's Hub id.
        split: The split.
        config: The configuration, where the dataset has several.
        revision: The commit, branch or tag to read; None reads the one pinned in
            :data:`~longform_evals.data.sources.PINS`.

    Raises:
        ImportError: If ``datasets`` is not installed; the message says how to install it.
    """
    try:
        # Imported lazily: `datasets` is optional and heavy, and only these loaders need it.
        datasets = importlib.import_module("datasets")
    except ImportError as exc:
        raise ImportError(
            f"loading {dataset_id!r} from the Hugging Face hub needs the `datasets` library: "
            "pip install 'longform-evals[hf]' (or datasets)"
        ) from exc
    rows: Iterable[Mapping[str, Any]] = datasets.load_dataset(
        *([dataset_id] if config is None else [dataset_id, config]),
        split=split,
        revision=resolve_revision(dataset_id, revision),
    )
    return rows
