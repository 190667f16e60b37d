"""People's labels of summaries, in one schema, to measure a judge against them.

Four published formats are read, each by its own module, into the same shape:

- ``"booookscore"`` (:mod:`.booookscore_annotations`): spans of GPT-4 summaries of books that
  annotators found confusing, mapped onto sentences (kind ``"coherence"``);
- ``"longsciverify"`` (:mod:`.longsciverify`): three experts' 0/1 factuality of the first
  three sentences of summaries of arXiv or PubMed articles (kind ``"faithfulness"``);
- ``"fables"`` (:mod:`.fables`): faithfulness labels of the claims extracted from book
  summaries (kind ``"faithfulness"``);
- ``"longformfact"`` (:mod:`.longformfact`, adapted here by :func:`longformfact_label_set`):
  sentence- or summary-level faithfulness of long-form summaries (kind ``"faithfulness"``).

:func:`load_judge_labels` tells them apart by the contents of the file or folder it is given,
and refuses, naming the path and what it expected, a file of another kind.

The schema
----------
A :class:`JudgeLabelSet` holds the samples of one load, and a :class:`Skipped` entry for every
record, cell or span that was left out or not rated (nothing is dropped silently). Each
Inspect ``Sample`` has a stable, unique ``id`` (``"<format>/..."``), a short description as
``input``, and ``metadata`` with exactly the keys of :data:`METADATA_KEYS`:

- ``summary`` (str) and ``summary_sentences`` (list[str]): the units a judge is asked about
  (the summary's sentences; for FABLES the claims);
- ``unit``: ``"sentence"``, ``"claim"``, or ``"summary"`` when the people labelled only the
  whole summary: then the summary is the one unit (``summary_sentences == [summary]``, one
  flag per annotator, the same as ``summary_flags``);
- ``group``: the book, article or document the summary is of; ``system``: the summarizer,
  or None; ``document``: the source text where the data has it, else None;
- ``flags``: annotator -> one entry per unit: 1 when the annotator found a problem there
  (coherence: confusing; faithfulness: unfaithful or unsupported), 0 when not, None when the
  unit was not rated. Datasets that publish 1 = good are converted;
- ``summary_flags``: annotator -> a summary-level label in the same convention, or ``{}``;
- ``unit_types`` and ``unit_notes``: per unit, the error types and the annotators' questions
  or evidence (lists, possibly empty);
- ``human_scores``: other per-summary human ratings by name (e.g.
  ``"reviewer_1/coherence_rank"``), or ``{}``;
- ``source``: ``"file:line"`` or ``"file#record"``.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from inspect_ai.dataset import Sample

from longform_evals.data.jsonl import DataError, jsonl_records, parse_json, read_json

__all__ = [
    "FORMAT_KINDS",
    "METADATA_KEYS",
    "Format",
    "JudgeLabelSet",
    "Kind",
    "Skipped",
    "Unit",
    "detect_judge_label_format",
    "judge_sample",
    "load_judge_labels",
    "longformfact_label_set",
    "read_json_or_zip",
]

Kind = Literal["coherence", "faithfulness"]
"""What the people judged: coherence (confusing or not) or faithfulness to the source."""

Unit = Literal["sentence", "claim", "summary"]
"""What one label is about."""

Format = Literal["booookscore", "longsciverify", "fables", "longformfact"]
"""The published formats this package reads."""

FORMAT_KINDS: dict[str, Kind] = {
    "booookscore": "coherence",
    "longsciverify": "faithfulness",
    "fables": "faithfulness",
    "longformfact": "faithfulness",
}
"""The kind of labels each format holds."""

METADATA_KEYS: tuple[str, ...] = (
    "summary",
    "summary_sentences",
    "unit",
    "group",
    "system",
    "document",
    "flags",
    "summary_flags",
    "unit_types",
    "unit_notes",
    "human_scores",
    "source",
)
"""The keys of every judge-label sample's metadata (see the module docstring)."""


@dataclass(frozen=True)
class Skipped:
    """Something left out of a load, or not rated, and why.

    Attributes:
        where: The file and the record, row or span (``"file#book"``, ``"file:line (id)"``).
        reason: Why, in a few words.
    """

    where: str
    reason: str


@dataclass(frozen=True)
class JudgeLabelSet:
    """The human labels of one load, as samples in the schema of the module docstring.

    Attributes:
        kind: ``"coherence"`` or ``"faithfulness"``.
        format: The published format read (``"booookscore"``, ``"longsciverify"``,
            ``"fables"``, ``"longformfact"``).
        source: The path loaded.
        samples: One sample per labelled summary, ids unique.
        skipped: Every record left out and every cell not rated, with the reason.
        annotators: The annotator names used as keys of ``flags``, in order.
    """

    kind: Kind
    format: str
    source: str
    samples: list[Sample]
    skipped: list[Skipped]
    annotators: list[str]

    def __post_init__(self) -> None:
        if self.kind not in get_args(Kind):
            raise ValueError(f"kind must be 'coherence' or 'faithfulness', not {self.kind!r}")
        seen: set[str] = set()
        for sample in self.samples:
            key = str(sample.id)
            if key in seen:
                raise ValueError(f"{self.source}: sample id {key!r} is not unique")
            seen.add(key)


def judge_sample(
    sample_id: str,
    description: str,
    *,
    summary: str,
    summary_sentences: Sequence[str],
    unit: Unit,
    group: str,
    system: str | None,
    document: str | None,
    flags: Mapping[str, Sequence[int | None]],
    summary_flags: Mapping[str, int | None] | None = None,
    unit_types: Sequence[Sequence[str]] | None = None,
    unit_notes: Sequence[Sequence[str]] | None = None,
    human_scores: Mapping[str, float] | None = None,
    source: str,
) -> Sample:
    """Build one sample of the schema, checking its shape.

    ``unit_types`` and ``unit_notes`` default to an empty list per unit; ``summary_flags`` and
    ``human_scores`` to ``{}``. Lists are copied, so callers may reuse theirs.

    Raises:
        ValueError: If a per-unit list does not have one entry per unit, a flag is not 0, 1 or
            None, or ``unit`` is not one of :data:`Unit` (a loader's bug, not the data's).
    """
    if unit not in get_args(Unit):
        raise ValueError(f"{sample_id}: unit must be one of {get_args(Unit)}, not {unit!r}")
    n = len(summary_sentences)
    types = [list(t) for t in unit_types] if unit_types is not None else [[] for _ in range(n)]
    notes = [list(t) for t in unit_notes] if unit_notes is not None else [[] for _ in range(n)]
    per_unit: dict[str, Sequence[Any]] = {"unit_types": types, "unit_notes": notes}
    per_unit.update({f"flags[{name!r}]": values for name, values in flags.items()})
    for what, entries in per_unit.items():
        if len(entries) != n:
            raise ValueError(f"{sample_id}: {what} has {len(entries)} entries for {n} units")
    for values in [*flags.values(), list((summary_flags or {}).values())]:
        for value in values:
            if value not in (0, 1, None) or isinstance(value, bool):
                raise ValueError(f"{sample_id}: a flag must be 0, 1 or None, not {value!r}")
    return Sample(
        id=sample_id,
        input=description,
        metadata={
            "summary": summary,
            "summary_sentences": list(summary_sentences),
            "unit": unit,
            "group": group,
            "system": system,
            "document": document,
            "flags": {name: list(values) for name, values in flags.items()},
            "summary_flags": dict(summary_flags or {}),
            "unit_types": types,
            "unit_notes": notes,
            "human_scores": {k: float(v) for k, v in (human_scores or {}).items()},
            "source": source,
        },
    )


def read_json_or_zip(path: Path) -> Any:
    """One JSON value from ``path``, or from the single ``.json`` member of a ``.zip`` file.

    FABLES is published zipped (``FABLES.json.zip``); both forms are read.

    Raises:
        DataError: If the file is empty, is not valid JSON (or UTF-8), or is a zip file without
            exactly one ``.json`` member.
    """
    if path.stat().st_size == 0:
        raise DataError(f"{path}: file is empty")
    if path.suffix.lower() != ".zip":
        return read_json(path)
    try:
        with zipfile.ZipFile(path) as archive:
            members = [
                m
                for m in archive.namelist()
                if m.lower().endswith(".json") and not m.startswith("__MACOSX/")
            ]
            if len(members) != 1:
                raise DataError(
                    f"{path}: a zip file must hold exactly one .json file, found {len(members)}"
                )
            data = archive.read(members[0])
    except zipfile.BadZipFile as exc:
        raise DataError(f"{path}: not a valid zip file ({exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}!{members[0]}: not valid UTF-8 ({exc.reason})") from None
    if not text.strip():
        raise DataError(f"{path}!{members[0]}: file is empty")
    return parse_json(text, f"{path}!{members[0]}")


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
    if path.stat().st_size == 0:
        raise DataError(f"{path}: file is empty")
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
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
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
    if not path.exists():
        raise DataError(f"{path}: no such file or folder")
    if path.is_dir():
        return _folder_format(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_format(path)
    if suffix == ".csv":
        if path.stat().st_size == 0:
            raise DataError(f"{path}: file is empty")
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
    # The format modules import this one for the schema, so they are imported here.
    if fmt == "booookscore":
        from longform_evals.data.booookscore_annotations import load_booookscore_annotations

        return load_booookscore_annotations(path, **options)
    if fmt == "longsciverify":
        from longform_evals.data.longsciverify import load_longsciverify

        return load_longsciverify(path, **options)
    if fmt == "fables":
        from longform_evals.data.fables import load_fables

        return load_fables(path, **options)
    return _load_longformfact(path, **options)


LONGFORMFACT_ANNOTATOR = "annotators"
"""LongFormFact publishes one merged label per unit, under this annotator name."""

_REPORT_LINE = re.compile(r"^(?P<where>.*?:\d+): (?P<reason>.*)$", re.DOTALL)


def _load_longformfact(
    path: Path,
    *,
    subsets: Sequence[str] | None = None,
    on_mismatch: Literal["raise", "skip"] = "raise",
) -> JudgeLabelSet:
    from longform_evals.data.longformfact import load_longformfact_with_report

    samples, report = load_longformfact_with_report(path, subsets, on_mismatch=on_mismatch)
    skipped = []
    for line in report.skipped:
        match = _REPORT_LINE.match(line)
        where, reason = (match["where"], match["reason"]) if match else (str(path), line)
        skipped.append(Skipped(where, reason))
    return longformfact_label_set(samples, str(path), skipped=skipped)


def _document_key(subset: str, document: str) -> str:
    return f"{subset}/{hashlib.sha1(document.encode('utf-8')).hexdigest()[:12]}"


def longformfact_label_set(
    samples: Sequence[Sample], source: str, *, skipped: Sequence[Skipped] = ()
) -> JudgeLabelSet:
    """LongFormFact samples (from :func:`~.longformfact.load_longformfact`) in the schema.

    LongFormFact labels 1 = faithful; here ``flags`` hold ``1 - label`` (1 = unfaithful).
    Sentence-level records give ``unit="sentence"`` with one flag per sentence (None where the
    published label is null) and ``summary_flags == {}``. Summary-level records give
    ``unit="summary"``: the whole summary is the one unit (``summary_sentences ==
    [summary]``), flagged in ``flags`` and in ``summary_flags`` alike. The annotator is
    ``"annotators"``; ``group`` is the subset and a hash of the documents (summaries of the same
    documents share it); ``document`` is the documents joined by blank lines; ``system`` the
    record's ``model``; ids are ``"longformfact/<sample id>"``.

    Args:
        samples: Samples as :func:`~.longformfact.load_longformfact` returns them.
        source: The path they were read from.
        skipped: Records the load left out, to carry into the set.

    Raises:
        DataError: If a sample lacks the LongFormFact metadata.
    """
    out: list[Sample] = []
    for sample in samples:
        meta = sample.metadata or {}
        if "labels" not in meta or "summary_sentences" not in meta:
            raise DataError(f"{source}: sample {sample.id!r} is not a LongFormFact sample")
        labels = meta["labels"]
        documents: list[str] = list(meta["documents"])
        document = "\n\n".join(documents)
        if isinstance(labels, list):
            unit: Unit = "sentence"
            sentences: list[str] = list(meta["summary_sentences"])
            flags: list[int | None] = [None if v is None else 1 - int(v) for v in labels]
            summary_flags: dict[str, int | None] = {}
        else:
            unit = "summary"
            sentences = [meta["summary"]]
            flags = [1 - int(labels)]
            summary_flags = {LONGFORMFACT_ANNOTATOR: flags[0]}
        out.append(
            judge_sample(
                f"longformfact/{sample.id}",
                f"Faithfulness of a {meta['subset']} summary to its source documents",
                summary=meta["summary"],
                summary_sentences=sentences,
                unit=unit,
                group=_document_key(str(meta["subset"]), document),
                system=meta.get("model"),
                document=document,
                flags={LONGFORMFACT_ANNOTATOR: flags},
                summary_flags=summary_flags,
                source=str(meta["source"]),
            )
        )
    return JudgeLabelSet(
        kind="faithfulness",
        format="longformfact",
        source=source,
        samples=out,
        skipped=list(skipped),
        annotators=[LONGFORMFACT_ANNOTATOR],
    )
