"""BooookScore's human annotations of confusing spans, as per-sentence coherence labels.

BooookScore (Chang et al., ICLR 2024; github lilakk/BooookScore,
``annotations/human_annotations/summary-<system>.json``, e.g. ``../shared/data/human_labels/
booookscore/summary-gpt4-4096-hier.json``) asked people to read book summaries and mark the
spans that confused them. A file maps each book (an ``.epub`` name) to::

    {"summary": str,
     "singles": [{"id", "span", "questions": str, "labels": [str]}],
     "relations": [{"id_a", "id_b", "span_a", "span_b", "shared_questions": str,
                    "same": bool, "shared_labels": [str]}]}

A single is one confusing span; a relation ties two spans that confuse together (a
duplication, an inconsistency, a jump between places). Labels come from the paper's error
taxonomy: entity / event / causal omission, discontinuity, salience, language, inconsistency,
duplication. The annotations of several people are merged in the file, so the samples have
one annotator, ``"annotators"``. The meaning of ``same`` is not documented; it is ignored.

From spans to sentences
-----------------------
The summary is split with :func:`~longform_evals.text.split_sentences`; these sentences are
the units (``unit="sentence"``). Each span is looked up in the summary (:func:`locate_span`):
as an exact substring first (leading and trailing whitespace of the span ignored), else
ignoring case and treating every run of whitespace as one space. A span occurring several
times is taken at its first occurrence as whole words, else its first occurrence at all (the
annotations do not say which one was meant; 23 spans of the shared file occur more than once,
e.g. the single word "The", which is then not matched inside "Their").

- A single flags every sentence its range overlaps (a span across a sentence boundary flags
  both), with its ``labels`` as types and its ``questions`` as a note.
- A relation flags only the sentences of the later of its two spans (the one starting later
  in the summary): a reader meets the problem there, while the earlier passage read fine when
  it was read. If both spans lie in one sentence, that sentence. Its ``shared_labels`` and
  ``shared_questions`` go to those sentences.

Every other sentence gets 0: the annotators read the whole summary, so an unmarked sentence is
a rated "not confusing". Types and notes are listed once per sentence, in file order.

A span that does not occur in the summary (or is blank) is listed in ``skipped`` with the
book and span id, and the whole summary is left out, since its labels would be incomplete
(also listed); ``on_missing_span="error"`` raises instead. Books with a blank summary are
left out and listed. ``exclude_books`` defaults to :data:`FEW_SHOT_BOOKS`, the two books whose
annotations are the few-shot examples of the authors' judge prompt; they are listed with the
reason ``"few-shot example of the judge prompt"``.

Scores
------
:func:`human_booookscore` is the fraction of sentences no annotator flagged: the definition of
the judge-side BooookScore (which reports it x 100). The paper, scoring human spans, counted
consecutive highlighted sentences and relations as single sentences; with
``paper_counting=True`` each run of consecutive flagged sentences counts as one flagged
sentence (a relation already flags one sentence here, unless its later span crosses a
boundary, which also makes one run). This reading of the paper's note is ours.

Sample ids are ``"booookscore/<system>/<book>"``, ``system`` the file name without the
``summary-`` prefix and ``.json`` (``summary-gpt4-4096-hier.json`` -> ``"gpt4-4096-hier"``);
``group`` is the book, ``document`` None (the books are not published), ``source``
``"file#book"``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import Sample

from longform_evals.data.files import folder_files, source_kind
from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.schema import (
    JudgeLabelSet,
    PeoplesLabels,
    Skipped,
    SummaryOrigin,
    judge_sample,
    read_json_or_zip,
)
from longform_evals.text import sentence_spans

__all__ = [
    "ANNOTATOR",
    "FEW_SHOT_BOOKS",
    "FEW_SHOT_REASON",
    "OnMissingSpan",
    "human_booookscore",
    "load_booookscore_annotations",
    "locate_span",
    "overlapping_sentences",
]

ANNOTATOR = "annotators"
"""The one annotator name: the published file merges everyone's annotations."""

FEW_SHOT_BOOKS: tuple[str, ...] = ("the-faraway-world.epub", "the-ferryman.epub")
"""Books whose annotations are the few-shot examples of the authors' judge prompt."""

FEW_SHOT_REASON = "few-shot example of the judge prompt"
"""The ``Skipped.reason`` of a book left out by ``exclude_books``."""

OnMissingSpan = Literal["skip", "error"]
"""What to do when a span does not occur in its summary."""


def _normalized(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with each whitespace run as one space, and for every character of
    the result the index of the character of ``text`` it came from."""
    out: list[str] = []
    index: list[int] = []
    in_space = False
    for i, char in enumerate(text):
        if char.isspace():
            if not in_space:
                out.append(" ")
                index.append(i)
            in_space = True
            continue
        in_space = False
        lowered = char.lower()  # may be longer than one character
        out.append(lowered)
        index.extend([i] * len(lowered))
    return "".join(out), index


def _find(hay: str, needle: str) -> int:
    """First index of ``needle`` in ``hay`` as whole words (not inside a longer word), else
    first index anywhere, else -1."""
    before = r"(?<!\w)" if needle[0].isalnum() else ""
    after = r"(?!\w)" if needle[-1].isalnum() else ""
    match = re.search(before + re.escape(needle) + after, hay)
    return match.start() if match else hay.find(needle)


def locate_span(text: str, span: str) -> tuple[int, int] | None:
    """Where ``span`` first occurs in ``text``, as ``(start, end)`` offsets into ``text``.

    The span's leading and trailing whitespace is ignored. An exact match is tried first; then
    a match ignoring case and the amount of whitespace. Either way an occurrence of whole
    words is preferred (``"The"`` is not found inside ``"Their"`` if it occurs as a word).

    Args:
        text: The text to search (a summary).
        span: The annotated span.

    Returns:
        The character range of the first occurrence, or None if the span does not occur or is
        blank.
    """
    needle = span.strip()
    if not needle:
        return None
    start = _find(text, needle)
    if start >= 0:
        return start, start + len(needle)
    hay, index = _normalized(text)
    norm, _ = _normalized(needle)
    found = _find(hay, norm)
    if found < 0:
        return None
    return index[found], index[found + len(norm) - 1] + 1


def overlapping_sentences(spans: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """Indices of the sentence ``spans`` that share a character with ``[start, end)``."""
    return [i for i, (a, b) in enumerate(spans) if a < end and start < b]


@dataclass
class _Unit:
    flagged: bool = False
    types: list[str] | None = None
    notes: list[str] | None = None

    def add(self, types: Sequence[str], note: str | None) -> None:
        self.flagged = True
        self.types = self.types or []
        self.notes = self.notes or []
        self.types.extend(t for t in types if t not in self.types)
        if note and note not in self.notes:
            self.notes.append(note)


def _text_field(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise DataError(f"{where}: field {key!r} must be a string")
    return value


def _labels(item: dict[str, Any], key: str, where: str) -> list[str]:
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(f"{where}: field {key!r} must be a list of strings")
    return [v.strip() for v in value if v.strip()]


def _note(item: dict[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(v.strip() for v in value)
    if not isinstance(value, str):
        raise DataError(f"{where}: field {key!r} must be a string")
    return value.strip() or None


def _items(record: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    if key not in record:
        raise DataError(f"{where}: missing field {key!r} (a list, possibly empty)")
    items = record[key]
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise DataError(f"{where}: field {key!r} must be a list of objects")
    return items


def _span_id(value: Any, where: str) -> str:
    """A span's id as text: a string or a whole number (NaN, infinities, 1.5 and lists name
    no span, and would report skipped spans under a misleading id)."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise DataError(f"{where}: a span id must be a string or a whole number, not {value!r}")


def _locate(
    summary: str,
    item: dict[str, Any],
    key: str,
    id_key: str,
    where: str,
    missing: list[tuple[str, str]],
) -> range | None:
    """The character range of ``item[key]``; None, noted in ``missing``, if it is not found."""
    span_id = _span_id(item.get(id_key, "?"), where)
    span = _text_field(item, key, f"{where} span {span_id}")
    found = locate_span(summary, span)
    if found is None:
        why = "blank span" if not span.strip() else f"span not in the summary: {span[:60]!r}"
        missing.append((span_id, why))
        return None
    return range(*found)


def _book_units(
    summary: str, record: dict[str, Any], where: str
) -> tuple[list[str], list[_Unit], list[tuple[str, str]]]:
    """The summary's sentences, their labels, and the (id, why) of every span not found."""
    spans = sentence_spans(summary)
    units = [_Unit() for _ in spans]
    missing: list[tuple[str, str]] = []
    for single in _items(record, "singles", where):
        found = _locate(summary, single, "span", "id", where, missing)
        label_where = f"{where} span {single.get('id', '?')}"
        types = _labels(single, "labels", label_where)
        note = _note(single, "questions", label_where)
        if found is not None:
            for i in overlapping_sentences(spans, found.start, found.stop):
                units[i].add(types, note)
    for relation in _items(record, "relations", where):
        first = _locate(summary, relation, "span_a", "id_a", where, missing)
        second = _locate(summary, relation, "span_b", "id_b", where, missing)
        rel_where = f"{where} relation {relation.get('id_a', '?')}-{relation.get('id_b', '?')}"
        types = _labels(relation, "shared_labels", rel_where)
        note = _note(relation, "shared_questions", rel_where)
        if first is not None and second is not None:
            later = max(first, second, key=lambda r: (r.start, r.stop))
            for i in overlapping_sentences(spans, later.start, later.stop):
                units[i].add(types, note)
    return [summary[a:b] for a, b in spans], units, missing


def _system(path: Path) -> str:
    stem = path.name.removesuffix(".json")
    return stem.removeprefix("summary-") or stem


def _files(path: Path) -> list[Path]:
    if source_kind(path, "BooookScore annotation file or folder") == "file":
        return [path]
    return folder_files(path, ".json", "BooookScore summary-*.json files", prefix="summary-")


def _check_option(on_missing_span: str) -> None:
    if on_missing_span not in ("skip", "error"):
        raise ValueError(f"on_missing_span must be 'skip' or 'error', not {on_missing_span!r}")


def _book_sample(
    record: dict[str, Any],
    book: str,
    system: str,
    where: str,
    on_missing_span: OnMissingSpan,
    skipped: list[Skipped],
) -> Sample | None:
    """One system's summary of one book with its labelled sentences; None (and the reason
    in ``skipped``) for an empty summary or, unless it is an error, a span not in it."""
    summary = _text_field(record, "summary", where)
    if not summary.strip():
        skipped.append(Skipped(where, "empty summary: nothing to judge"))
        return None
    sentences, units, missing = _book_units(summary, record, where)
    if missing:
        if on_missing_span == "error":
            span_id, why = missing[0]
            raise DataError(f"{where}: span {span_id}: {why}")
        skipped.extend(Skipped(f"{where} span {i}", why) for i, why in missing)
        skipped.append(
            Skipped(where, f"summary left out: {len(missing)} span(s) not in the summary")
        )
        return None
    return judge_sample(
        f"booookscore/{system}/{book}",
        f"Coherence of the {system} summary of {book}",
        summary=summary,
        summary_sentences=sentences,
        unit="sentence",
        origin=SummaryOrigin(book, system, None, where),
        labels=PeoplesLabels(
            {ANNOTATOR: [int(u.flagged) for u in units]},
            unit_types=[u.types or [] for u in units],
            unit_notes=[u.notes or [] for u in units],
        ),
    )


def load_booookscore_annotations(
    path: str | Path,
    *,
    exclude_books: Collection[str] = FEW_SHOT_BOOKS,
    on_missing_span: OnMissingSpan = "skip",
) -> JudgeLabelSet:
    """Load BooookScore human annotations as per-sentence coherence labels.

    Args:
        path: A ``summary-<system>.json`` file, or a folder whose ``summary-*.json`` files are
            all read (sorted by name).
        exclude_books: Books to leave out (listed in ``skipped``); by default the two few-shot
            books of the authors' prompt. Pass ``()`` to keep every book.
        on_missing_span: ``"skip"`` (default) leaves out a summary with a span that does not
            occur in it, listing the span and the summary in ``skipped``; ``"error"`` raises.

    Returns:
        A ``"coherence"`` set of format ``"booookscore"`` (schema in the module docstring).

    Raises:
        DataError: If the file is missing, empty, not JSON, not of this format, or has a
            malformed book, span or label; with ``on_missing_span="error"``, if a span does
            not occur in its summary. The message names the file, book and span id.
        ValueError: If ``on_missing_span`` is invalid.
    """
    _check_option(on_missing_span)
    excluded = {exclude_books} if isinstance(exclude_books, str) else set(exclude_books)
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    for file in _files(Path(path)):
        data = read_json_or_zip(file)
        if not isinstance(data, dict) or not data:
            raise DataError(
                f"{file}: expected a non-empty JSON object mapping each book to its "
                "{summary, singles, relations}"
            )
        system = _system(file)
        for book, record in data.items():
            where = f"{file}#{book}"
            if not isinstance(record, dict):
                raise DataError(f"{where}: expected an object with summary, singles, relations")
            if book in excluded:
                skipped.append(Skipped(where, FEW_SHOT_REASON))
                continue
            sample = _book_sample(record, book, system, where, on_missing_span, skipped)
            if sample is not None:
                samples.append(sample)
    return JudgeLabelSet.of("booookscore", path, samples, skipped, [ANNOTATOR])


def _any_flag(flags: dict[str, list[int | None]], n: int) -> list[bool | None]:
    """Per unit: True if any annotator flagged it, False if rated clean, None if unrated."""
    out: list[bool | None] = []
    for i in range(n):
        values = [v[i] for v in flags.values() if v[i] is not None]
        out.append(None if not values else any(v == 1 for v in values))
    return out


def human_booookscore(sample: Sample, *, paper_counting: bool = False) -> float:
    """The share of a summary's rated sentences that no annotator flagged, in [0, 1].

    The judge-side BooookScore uses the same definition (reported x 100).

    Args:
        sample: A judge-label sample (any format; unrated units are not counted).
        paper_counting: Count each run of consecutive flagged sentences as one flagged
            sentence, as the paper did for human spans (see the module docstring).

    Raises:
        ValueError: If the sample has no rated unit.
    """
    meta = sample.metadata or {}
    flags = meta.get("flags") or {}
    n = len(meta.get("summary_sentences") or [])
    marks = _any_flag(flags, n)
    rated = [m for m in marks if m is not None]
    if not rated:
        raise ValueError(f"sample {sample.id!r} has no rated unit")
    if paper_counting:
        # Runs are over rated units in order; an unrated unit does not break a run.
        flagged = sum(1 for i, m in enumerate(rated) if m and (i == 0 or not rated[i - 1]))
    else:
        flagged = sum(1 for m in rated if m)
    return 1.0 - flagged / len(rated)
