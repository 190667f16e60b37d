"""Which published format a file or folder of people's labels is, and loading it into the
schema of :mod:`.schema` by that format's module."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

from longform_evals.data.files import folder_names, source_kind
from longform_evals.data.jsonl import DataError, jsonl_records
from longform_evals.data.labels.booookscore import load_booookscore_annotations
from longform_evals.data.labels.fables import load_fables
from longform_evals.data.labels.longformfact import load_longformfact_labels
from longform_evals.data.labels.longsciverify import load_longsciverify
from longform_evals.data.labels.schema import (
    FORMAT_KINDS,
    Format,
    JudgeLabelSet,
    Kind,
    read_json_or_zip,
)

__all__ = ["detect_judge_label_format", "load_judge_labels"]


# What each format looks like, for the messages of a refused file.
_EXPECTED = (
    "a BooookScore annotation file (summary-<system>.json: {book: {summary, singles, "
    "relations}}), a LongSciVerify folder (<subset>_reviewer_<n>.csv and <subset>_test.json), "
    "FABLES.json (or FABLES.json.zip: {book: {model: {summary, claims}}}) or a LongFormFact "
    ".jsonl file (records with 'summary' and 'faithfulness')"
)
_REVIEWER_CSV = re.compile(r"^(?P<subset>.+)_reviewer_(?P<n>\d+)\.csv$")


def _json_format(data: Any, path: Path) -> Format:
    """The format of a parsed JSON file, or a DataError saying what it is not."""
    if isinstance(data, dict) and data:
        values = list(data.values())
        if all(isinstance(v, dict) and "summary" in v and "singles" in v for v in values):
            return "booookscore"
        if all(isinstance(v, dict) and "annotations" in v for v in values):
            raise DataError(
                f"{path}: BooookScore's agreement annotations (people judging given "
                "annotations) are not span labels; expected a summary-<system>.json file"
            )
        if all(
            isinstance(v, dict)
            and v
            and all(isinstance(m, dict) and "claims" in m for m in v.values())
            for v in values
        ):
            return "fables"
    if (
        isinstance(data, list)
        and data
        and all(isinstance(r, dict) and "article_id" in r and "article_text" in r for r in data)
    ):
        return "longsciverify"
    if isinstance(data, dict | list) and not data:
        raise DataError(f"{path}: the JSON value is empty; expected {_EXPECTED}")
    raise DataError(f"{path}: not a human-label file of a known format; expected {_EXPECTED}")


def _jsonl_format(path: Path) -> Format:
    for number, record in jsonl_records(path):
        if "summary" in record and "faithfulness" in record:
            return "longformfact"
        keys = ", ".join(sorted(record)[:8])
        raise DataError(
            f"{path}:{number}: not a LongFormFact record (expected fields 'summary' and "
            f"'faithfulness'; found {keys})"
        )
    raise DataError(f"{path}: file holds no records (only blank lines)")


def _folder_format(folder: Path) -> Format:
    # every name counts, files or not: a loader then refuses one that is no file, by name
    names = folder_names(folder)
    found: list[Format] = []
    if any(_REVIEWER_CSV.match(n) for n in names):
        found.append("longsciverify")
    if any(n.startswith("summary-") and n.endswith(".json") for n in names):
        found.append("booookscore")
    if any(n.lower() in ("fables.json", "fables.json.zip") for n in names):
        found.append("fables")
    if any(n.endswith(".jsonl") for n in names):
        found.append("longformfact")
    if not found:
        raise DataError(f"{folder}: folder holds no human-label files; expected {_EXPECTED}")
    if len(found) > 1:
        raise DataError(
            f"{folder}: folder holds files of several formats ({', '.join(found)}); "
            "pass the file (or a folder of one format)"
        )
    return found[0]


def detect_judge_label_format(path: str | Path) -> Format:
    """Which published format ``path`` holds, from its contents.

    A folder is recognized by its file names (``*_reviewer_<n>.csv``, ``summary-*.json``,
    ``FABLES.json``, ``*.jsonl``); a ``.json`` (or zipped) file by its structure; a
    ``.jsonl`` file by its first record; a ``.csv`` file by its name (a LongSciVerify
    reviewer file).

    Raises:
        DataError: If ``path`` is missing, empty or holds no known format; the message names
            the path and the formats expected.
    """
    path = Path(path)
    if source_kind(path, "human-label file or folder") == "folder":
        return _folder_format(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_format(path)
    if suffix == ".csv":
        if _REVIEWER_CSV.match(path.name):
            return "longsciverify"
        raise DataError(
            f"{path}: a .csv file is read only as a LongSciVerify reviewer file "
            "(<subset>_reviewer_<n>.csv)"
        )
    if suffix in (".json", ".zip"):
        return _json_format(read_json_or_zip(path), path)
    raise DataError(f"{path}: unknown file type {suffix or '(none)'!r}; expected {_EXPECTED}")


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in get_args(Kind):
        raise ValueError(f"kind must be 'coherence', 'faithfulness' or None, not {kind!r}")


def load_judge_labels(path: str | Path, kind: Kind | None = None, **options: Any) -> JudgeLabelSet:
    """Load human labels of any supported format (see :func:`detect_judge_label_format`).

    Args:
        path: A file or folder of one of the published formats.
        kind: The kind of labels required (``"coherence"`` or ``"faithfulness"``); a file of
            the other kind is refused. None accepts either.
        **options: Passed to the format's loader: ``exclude_books`` and ``on_missing_span``
            (BooookScore, :func:`~.booookscore_annotations.load_booookscore_annotations`),
            ``subset`` (LongSciVerify), ``books`` (FABLES), ``subsets`` and ``on_mismatch``
            (LongFormFact).

    Returns:
        The labels, in the schema of the module docstring.

    Raises:
        DataError: If ``path`` holds no known format, or labels of another kind than ``kind``
            (naming the path, the format found and the kind required), or malformed data.
        ValueError: If ``kind`` is not a known kind.
        TypeError: If an option is not one the format's loader takes.
    """
    _check_kind(kind)
    path = Path(path)
    fmt = detect_judge_label_format(path)
    found = FORMAT_KINDS[fmt]
    if kind is not None and found != kind:
        raise DataError(
            f"{path}: holds {fmt} labels, which are {found} labels, but {kind} labels are required"
        )
    if fmt == "booookscore":
        return load_booookscore_annotations(path, **options)
    if fmt == "longsciverify":
        return load_longsciverify(path, **options)
    if fmt == "fables":
        return load_fables(path, **options)
    return load_longformfact_labels(path, **options)
