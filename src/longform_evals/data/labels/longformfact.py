"""LongFormFact's samples (:mod:`longform_evals.data.longformfact`) in the schema of people's
labels (:mod:`.schema`)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from inspect_ai.dataset import Sample

from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.schema import (
    JudgeLabelSet,
    PeoplesLabels,
    Skipped,
    SummaryOrigin,
    Unit,
    judge_sample,
)
from longform_evals.data.longformfact import load_longformfact_with_report

__all__ = ["LONGFORMFACT_ANNOTATOR", "load_longformfact_labels", "longformfact_label_set"]

LONGFORMFACT_ANNOTATOR = "annotators"
"""LongFormFact publishes one merged label per unit, under this annotator name."""

_REPORT_LINE = re.compile(r"^(?P<where>.*?:\d+): (?P<reason>.*)$", re.DOTALL)


def load_longformfact_labels(
    path: Path,
    *,
    subsets: Sequence[str] | None = None,
    on_mismatch: Literal["raise", "skip"] = "raise",
) -> JudgeLabelSet:
    """The LongFormFact file ``path`` as people's labels, every skipped record kept."""
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
                origin=SummaryOrigin(
                    group=_document_key(str(meta["subset"]), document),
                    system=meta.get("model"),
                    document=document,
                    source=str(meta["source"]),
                ),
                labels=PeoplesLabels({LONGFORMFACT_ANNOTATOR: flags}, summary_flags=summary_flags),
            )
        )
    return JudgeLabelSet.of("longformfact", source, out, skipped, [LONGFORMFACT_ANNOTATOR])
