"""FABLES: faithfulness labels of the claims of book-length summaries.

FABLES (Kim et al., 2024, "FABLES: Evaluating faithfulness and content selection in
book-length summarization"; github mungg/FABLES, ``data/FABLES.json.zip``) has LLMs summarize
novels published in 2023-24 by hierarchical merging, extracts decontextualized claims from
each summary with GPT-4, and has people who read the book label every claim. The file is one
JSON object, as the repository's README and ``parsing_FABLE.py`` describe it::

    {"<book title>": {
        "<model name>": {                  # MIXTRAL, GPT-3.5-TURBO, GPT-4, GPT-4-TURBO,
            "summary": str,                # CLAUDE-3-OPUS
            "general_comment": str,
            "claims": {"0": {"claim": str, "label": str,
                             "evidence": [str], "reason": [str]}, ...}}}}

Labels are ``"Yes"`` (the claim is faithful), ``"No"`` (it misrepresents the book),
``"PartialSupport"`` (only partly supported) and ``"Inapplicable"`` (cannot be decided). The
file names no annotator, so the samples have one, ``"annotators"``.

One sample per (book, model): id ``"fables/<book>/<model>"``, units the claims in the order
of their numeric keys (``unit="claim"``, ``summary_sentences`` the claim texts), ``summary``
the published summary (the claims joined with spaces if it is missing or blank), ``group`` the
book, ``system`` the model, ``source`` ``"file#book/model"``. Flags: Yes -> 0, No -> 1,
PartialSupport -> 1 (a claim only partly supported is not faithful as stated), Inapplicable
-> None (not rated); the label is matched ignoring case, spaces and underscores, and kept as
written in ``unit_types`` (``["PartialSupport"]``). A claim without a label is None and
listed in ``skipped``; an unknown label is a DataError. ``unit_notes`` hold the evidence
(``"evidence: ..."``) and reasons (``"reason: ..."``), without blank or ``"n/a"`` entries. The
general comment on the summary has no place in the schema and is not kept.

The books are not published (copyright), so ``document`` is None unless ``books`` is given: a
mapping from title to text, or a folder of ``<title>.txt`` files (a file name matching the
title exactly, else ignoring case). With ``books``, a summary whose book is missing is left out
and listed in ``skipped``, since a faithfulness judge needs the book.

The published data was read from the repository's description and parsing script; the zipped
data file itself could not be opened here, so field names and label strings follow the README
(the loader refuses, naming the claim, any label it does not know).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.files import check_file, check_folder, folder_names, source_kind
from longform_evals.data.jsonl import DataError, read_text
from longform_evals.data.labels.schema import (
    JudgeLabelSet,
    PeoplesLabels,
    Skipped,
    SummaryOrigin,
    judge_sample,
    read_json_or_zip,
)

__all__ = ["ANNOTATOR", "LABEL_FLAGS", "fables_flag", "load_fables"]

ANNOTATOR = "annotators"
"""The one annotator name: the file does not say who labelled each claim."""

LABEL_FLAGS: dict[str, int | None] = {
    "yes": 0,
    "no": 1,
    "partialsupport": 1,
    "inapplicable": None,
}
"""Flag per label, keyed by the label lower-cased without spaces, underscores or hyphens."""

_PLACEHOLDERS = {"", "n/a", "na", "none", "-"}


def fables_flag(label: str) -> int | None:
    """The flag of a FABLES label (1 = unfaithful, None = not rated).

    Raises:
        KeyError: If the label is not one of Yes, No, PartialSupport, Inapplicable.
    """
    return LABEL_FLAGS[re.sub(r"[\s_-]+", "", label).lower()]


def _notes(claim: dict[str, Any], key: str, prefix: str, where: str) -> list[str]:
    value = claim.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str | None) for v in value):
        raise DataError(f"{where}: field {key!r} must be a list of strings")
    return [f"{prefix}: {v.strip()}" for v in value if v and v.strip().lower() not in _PLACEHOLDERS]


def _claim_order(claims: dict[str, Any], where: str) -> list[str]:
    keys = list(claims)
    if not all(re.fullmatch(r"\d+", k) for k in keys):
        bad = next(k for k in keys if not re.fullmatch(r"\d+", k))
        raise DataError(f"{where}: claim key {bad!r} is not a number")
    return sorted(keys, key=int)


def _claims(
    record: dict[str, Any], where: str, skipped: list[Skipped]
) -> tuple[list[str], list[int | None], list[list[str]], list[list[str]]]:
    claims = record.get("claims")
    if not isinstance(claims, dict):
        raise DataError(f"{where}: 'claims' must be an object of numbered claims")
    texts: list[str] = []
    flags: list[int | None] = []
    types: list[list[str]] = []
    notes: list[list[str]] = []
    for key in _claim_order(claims, where):
        claim = claims[key]
        claim_where = f"{where} claim {key}"
        if not isinstance(claim, dict):
            raise DataError(f"{claim_where}: expected an object with claim, label, evidence")
        text = claim.get("claim")
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{claim_where}: missing or empty 'claim'")
        label = claim.get("label")
        if label is None or (isinstance(label, str) and not label.strip()):
            skipped.append(Skipped(claim_where, "claim without a label: not rated"))
            flag, kept = None, []
        elif not isinstance(label, str):
            raise DataError(f"{claim_where}: 'label' must be a string")
        else:
            try:
                flag = fables_flag(label)
            except KeyError:
                raise DataError(
                    f"{claim_where}: unknown label {label!r} "
                    "(expected Yes, No, PartialSupport or Inapplicable)"
                ) from None
            kept = [label.strip()]
        texts.append(text.strip())
        flags.append(flag)
        types.append(kept)
        notes.append(
            _notes(claim, "evidence", "evidence", claim_where)
            + _notes(claim, "reason", "reason", claim_where)
        )
    return texts, flags, types, notes


def _fables_file(path: Path) -> Path:
    if source_kind(path, "FABLES.json, FABLES.json.zip or a folder holding one") == "file":
        return path
    names = folder_names(path)
    for name in ("FABLES.json", "FABLES.json.zip"):
        for candidate in names:
            if candidate.lower() == name.lower():
                return check_file(path / candidate, "FABLES file")
    raise DataError(f"{path}: folder holds no FABLES.json (or FABLES.json.zip)")


class _Books:
    """Book texts by title, from a mapping or a folder of ``<title>.txt`` files."""

    def __init__(self, books: Mapping[str, str] | str | Path) -> None:
        self.mapping = books if isinstance(books, Mapping) else None
        self.folder = None if isinstance(books, Mapping) else Path(books)
        if self.folder is not None:
            check_folder(self.folder, "folder of the books' texts (<title>.txt)")
        self.cache: dict[str, str | None] = {}

    def where(self) -> str:
        return "the books mapping" if self.folder is None else str(self.folder)

    def text(self, title: str) -> str | None:
        if title not in self.cache:
            self.cache[title] = self._read(title)
        return self.cache[title]

    def _read(self, title: str) -> str | None:
        if self.mapping is not None:
            text = self.mapping.get(title)
            if text is not None and not text.strip():
                raise DataError(f"book {title!r}: its text in the books mapping is empty")
            return text
        assert self.folder is not None
        if "/" in title or "\\" in title or title.startswith("."):
            return None
        path = self.folder / f"{title}.txt"
        if not os.path.lexists(path):  # an entry of that name that is no file is refused
            wanted = f"{title}.txt".lower()
            matches = [n for n in folder_names(self.folder) if n.lower() == wanted]
            if len(matches) != 1:
                return None
            path = self.folder / matches[0]
        text = read_text(path, "book text (.txt file)")
        if not text.strip():
            raise DataError(f"{path}: book file is empty")
        return text


def load_fables(
    path: str | Path, *, books: Mapping[str, str] | str | Path | None = None
) -> JudgeLabelSet:
    """Load FABLES claim labels as per-claim faithfulness labels.

    Args:
        path: ``FABLES.json``, the published ``FABLES.json.zip``, or a folder holding either.
        books: The books' texts, to fill ``document``: a mapping from title to text, or a
            folder of ``<title>.txt`` files. Summaries of a book not found are left out (and
            listed in ``skipped``). None leaves ``document`` None for every sample.

    Returns:
        A ``"faithfulness"`` set of format ``"fables"`` (see the module docstring).

    Raises:
        DataError: If the file is missing, empty, not JSON or not of this format, a claim is
            malformed or has an unknown label, or a book file is empty or not UTF-8.
    """
    file = _fables_file(Path(path))
    data = read_json_or_zip(file)
    if not isinstance(data, dict) or not data:
        raise DataError(
            f"{file}: expected a non-empty JSON object mapping book titles to "
            "{model: {summary, claims}}"
        )
    texts = None if books is None else _Books(books)
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    for book, models in data.items():
        if not isinstance(models, dict) or not models:
            raise DataError(f"{file}#{book}: expected an object mapping model names to summaries")
        for model, record in models.items():
            where = f"{file}#{book}/{model}"
            if not isinstance(record, dict):
                raise DataError(f"{where}: expected an object with summary and claims")
            unlabelled: list[Skipped] = []
            claims, flags, types, notes = _claims(record, where, unlabelled)
            if not claims:
                skipped.append(Skipped(where, "no claims: nothing to judge"))
                continue
            document = None
            if texts is not None:
                document = texts.text(book)
                if document is None:
                    skipped.append(Skipped(where, f"book text not found in {texts.where()}"))
                    continue
            skipped.extend(unlabelled)
            summary = record.get("summary")
            if summary is not None and not isinstance(summary, str):
                raise DataError(f"{where}: 'summary' must be a string")
            if summary is None or not summary.strip():
                summary = " ".join(claims)
            samples.append(
                judge_sample(
                    f"fables/{book}/{model}",
                    f"Faithfulness of the {model} summary of {book} (claims)",
                    summary=summary,
                    summary_sentences=claims,
                    unit="claim",
                    origin=SummaryOrigin(book, model, document, where),
                    labels=PeoplesLabels({ANNOTATOR: flags}, unit_types=types, unit_notes=notes),
                )
            )
    return JudgeLabelSet.of("fables", path, samples, skipped, [ANNOTATOR])
