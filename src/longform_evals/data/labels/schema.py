"""People's labels of summaries, in one schema, to measure a judge against them.

Four published formats are read, each by its own module, into the same shape:

- ``"booookscore"`` (:mod:`.booookscore`): spans of GPT-4 summaries of books that
  annotators found confusing, mapped onto sentences (kind ``"coherence"``);
- ``"longsciverify"`` (:mod:`.longsciverify`): three experts' 0/1 factuality of the first
  three sentences of summaries of arXiv or PubMed articles (kind ``"faithfulness"``);
- ``"fables"`` (:mod:`.fables`): faithfulness labels of the claims extracted from book
  summaries (kind ``"faithfulness"``);
- ``"longformfact"`` (:mod:`longform_evals.data.longformfact`, adapted by :mod:`.longformfact`):
  sentence- or summary-level faithfulness of long-form summaries (kind ``"faithfulness"``).

:func:`~.load.load_judge_labels` tells them apart by the contents of the file or folder it is
given, and refuses, naming the path and what it expected, a file of another kind. This module
is the schema every format module writes to; it imports none of them.

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

import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from inspect_ai.dataset import Sample

from longform_evals.data.files import check_file
from longform_evals.data.ids import SampleIds, check_sample_id
from longform_evals.data.jsonl import DataError, parse_json, read_json

__all__ = [
    "FORMAT_KINDS",
    "METADATA_KEYS",
    "Format",
    "JudgeLabelSet",
    "Kind",
    "Skipped",
    "Unit",
    "judge_sample",
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

    @classmethod
    def of(
        cls,
        format: Format,
        path: str | Path,
        samples: Sequence[Sample],
        skipped: Sequence[Skipped],
        annotators: Sequence[str],
    ) -> JudgeLabelSet:
        """A loader's result: the kind follows from the format (:data:`FORMAT_KINDS`), so a
        loader cannot pair the two wrongly, and the source is the path it was given."""
        return cls(
            FORMAT_KINDS[format], format, str(path), list(samples), list(skipped), list(annotators)
        )

    def __post_init__(self) -> None:
        if self.kind not in get_args(Kind):
            raise ValueError(f"kind must be 'coherence' or 'faithfulness', not {self.kind!r}")
        ids = SampleIds()  # checked as every loader's ids are, and unique
        for sample in self.samples:
            where = str((sample.metadata or {}).get("source") or self.source)
            ids.add(str(sample.id), where, "sample id")


@dataclass(frozen=True)
class SummaryOrigin:
    """Where a labelled summary comes from.

    Attributes:
        group: What the summary is comparable with (typically its source document).
        system: The system that wrote it; None when unknown.
        document: The source text the summary is judged against (None for coherence).
        source: The file and record the labels were read from.
    """

    group: str
    system: str | None
    document: str | None
    source: str


@dataclass(frozen=True)
class PeoplesLabels:
    """People's labels of one summary's units (``flags``, the only required field) and of the
    summary as a whole.

    Attributes:
        flags: Annotator -> one flag per unit (1 = a problem, 0 = none, None = not rated).
        summary_flags: Annotator -> a flag for the whole summary.
        unit_types: Per unit, the kinds of problem named (an empty list each by default).
        unit_notes: Per unit, the annotators' notes (an empty list each by default).
        human_scores: Named human scores of the summary.
    """

    flags: Mapping[str, Sequence[int | None]]
    summary_flags: Mapping[str, int | None] | None = None
    unit_types: Sequence[Sequence[str]] | None = None
    unit_notes: Sequence[Sequence[str]] | None = None
    human_scores: Mapping[str, float] | None = None


def judge_sample(
    sample_id: str,
    description: str,
    *,
    summary: str,
    summary_sentences: Sequence[str],
    unit: Unit,
    origin: SummaryOrigin,
    labels: PeoplesLabels,
) -> Sample:
    """Build one sample of the schema, checking its shape.

    ``unit_types`` and ``unit_notes`` default to an empty list per unit; ``summary_flags`` and
    ``human_scores`` to ``{}``. Lists are copied, so callers may reuse theirs.

    Raises:
        ValueError: If a per-unit list does not have one entry per unit, a flag is not 0, 1 or
            None, or ``unit`` is not one of :data:`Unit` (a loader's bug, not the data's).
    """
    check_sample_id(sample_id, origin.source, "sample id (built from the file's names)")
    flags, summary_flags = labels.flags, labels.summary_flags
    unit_types, unit_notes = labels.unit_types, labels.unit_notes
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
            "group": origin.group,
            "system": origin.system,
            "document": origin.document,
            "flags": {name: list(values) for name, values in flags.items()},
            "summary_flags": dict(summary_flags or {}),
            "unit_types": types,
            "unit_notes": notes,
            "human_scores": {k: float(v) for k, v in (labels.human_scores or {}).items()},
            "source": origin.source,
        },
    )


def read_json_or_zip(path: Path) -> Any:
    """One JSON value from ``path``, or from the single ``.json`` member of a ``.zip`` file.

    FABLES is published zipped (``FABLES.json.zip``); both forms are read.

    Raises:
        DataError: If the file is empty, is not valid JSON (or UTF-8), or is a zip file without
            exactly one ``.json`` member.
    """
    check_file(path, "label file (.json or .zip)")
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
