"""LongFormFact meta-evaluation data as Inspect samples.

LongFormFact (Wan et al., 2025, "On Positional Bias of Faithfulness for Long-form
Summarization"; github.com/meetdavidwan/longformfact) collects human faithfulness judgments
of long-form summaries, to meta-evaluate faithfulness metrics. Each JSONL line holds
``documents`` (list of source documents), ``document`` (their concatenation), ``summary``,
``faithfulness`` (the human label), and optionally ``id``, ``subset``, ``model`` and
``ranking`` (document indices, most to least important).

Two annotation levels exist, told apart by the type of ``faithfulness``:

- summary level (qmsum, multinews): one 0/1 label (1 = faithful);
- sentence level (longeval_pubmed, longeval_squality): a list with one 0/1 label per summary
  sentence, ``null`` where the sentence was not annotated. The original processing split
  summaries with NLTK's ``sent_tokenize``, so the labels line up with those sentences.

Sample schema (see :func:`load_longformfact`): ``id`` is ``f"{subset}-{n}"`` with ``n`` the
0-based running index of the record within its subset in reading order (the published ids
are often null), counting skipped records too so ids never depend on loader options;
``input`` is a short instruction; ``metadata`` holds

- ``subset``: the record's ``subset`` field, else the file name without ``.jsonl``;
- ``documents``: ``list[str]``, verbatim (empty documents are kept, so that ``ranking``
  indices stay valid, but at least one must be non-blank); when ``documents`` is absent,
  ``[document]`` (which must be non-blank);
- ``summary``: ``str``, verbatim;
- ``summary_sentences``: ``list[str]``; for sentence-level records exactly one per label;
- ``label_level``: ``"summary"`` or ``"sentence"``;
- ``labels``: ``int`` (summary level) or ``list[int | None]`` (sentence level);
- ``ranking``: ``list[int] | None`` (each index a position in ``documents``);
  ``model``: ``str | None``;
- ``source_id``: the record's own ``id`` as a string, or None; ``source``: ``"file:line"``.

Optional fields (``id``, ``subset``, ``model``, ``ranking``) that are absent, null or NaN
count as absent: the published qmsum and multinews files write ``"id": NaN`` (pandas' missing
value, which Python's json reads as a float) and the longeval files have no ``id`` at all.

Sentence alignment: the labels were made on NLTK's ``sent_tokenize`` sentences, which
:func:`~longform_evals.text.split_sentences` gives (Punkt, English): on the published
``longeval_pubmed`` and ``longeval_squality`` files every one of the 80 records has as many
sentences as labels, lower-cased ones (``"... lymphoma. however, ..."``) included. A record
whose counts still differ is an error naming the file, the line and both counts; with
``on_mismatch="skip"`` (never the default) it is skipped and listed in the
:class:`LoadReport`, which the ``longformfact`` task records in its log. A subset whose records
are all skipped is an error all the same, since nothing of it would be evaluated.
Summary-level records are split the same way (no label count to check against).
"""

from __future__ import annotations

import json
import math
import os
import re
import urllib.request
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import Sample

from longform_evals.data.files import folder_files, source_kind
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import (
    DataError,
    check_size,
    has_words,
    jsonl_records,
    require_text,
)
from longform_evals.data.sources import resolve_revision
from longform_evals.text import split_sentences

__all__ = [
    "INSTRUCTION",
    "LONGFORMFACT_REPOSITORY",
    "LONGFORMFACT_SUBSETS",
    "LONGFORMFACT_URL_TEMPLATE",
    "LoadReport",
    "OnMismatch",
    "load_longformfact",
    "load_longformfact_remote",
    "load_longformfact_remote_with_report",
    "load_longformfact_with_report",
]

LONGFORMFACT_SUBSETS: tuple[str, ...] = (
    "qmsum",
    "multinews",
    "longeval_pubmed",
    "longeval_squality",
)
"""Subsets published as ``data/metric_benchmark/<subset>.jsonl`` in meetdavidwan/longformfact.

The paper's other four benchmarks (e.g. DiverseSumm, ChemSumm, ArXiv, GovReport) are not
published as files; the repository ships scripts that rebuild them from their sources.
"""

LONGFORMFACT_REPOSITORY = "meetdavidwan/longformfact"
"""The GitHub repository of the published files (its revision is pinned in
:data:`~longform_evals.data.sources.PINS`)."""

LONGFORMFACT_URL_TEMPLATE = (
    f"https://raw.githubusercontent.com/{LONGFORMFACT_REPOSITORY}/{{revision}}/"
    "data/metric_benchmark/{subset}.jsonl"
)
"""Where :func:`load_longformfact_remote` downloads a subset from; ``{revision}`` and
``{subset}`` are filled in. Pass another ``url_template`` if the repository moves."""

INSTRUCTION = "Judge whether the summary is faithful to the source documents."
"""The ``input`` of every sample; the material itself is in the metadata."""

OnMismatch = Literal["raise", "skip"]
"""What to do with a sentence-level record whose sentences cannot be aligned to its labels."""


@dataclass(frozen=True)
class LoadReport:
    """What a load kept and skipped.

    Attributes:
        loaded: Number of samples returned, per subset (in order of first appearance).
        skipped: One line per skipped record: ``"file:line: ..."`` with the label count and
            the sentence count.
    """

    loaded: dict[str, int] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()

    @property
    def n_loaded(self) -> int:
        """Total number of samples returned."""
        return sum(self.loaded.values())

    @property
    def n_skipped(self) -> int:
        """Total number of records skipped for misaligned sentences."""
        return len(self.skipped)

    def as_metadata(self) -> dict[str, Any]:
        """What a run records of its load: records loaded (in all and per subset), records
        skipped and why (one line each)."""
        return {
            "loaded": self.n_loaded,
            "loaded_by_subset": dict(self.loaded),
            "skipped": self.n_skipped,
            "skipped_records": list(self.skipped),
        }


class _Misaligned(Exception):
    """Internal: a sentence-level record whose sentences do not match its labels."""


_MISALIGNED = "sentence labels that do not align with the summary's sentences"
"""The reason counted for a record skipped with ``on_mismatch="skip"``."""


def _check_all_skipped(
    in_scope: dict[str, int],
    loaded: dict[str, int],
    reasons: dict[str, Counter[str]],
    files: dict[str, Path],
) -> None:
    """A DataError for the first subset whose records were all skipped, with counts by reason."""
    for subset, n in in_scope.items():
        if loaded.get(subset, 0) == 0:
            counts = reasons.get(subset, Counter())
            why = "; ".join(f"{count} with {reason}" for reason, count in counts.items())
            raise DataError(
                f"{files[subset]}: all {n} record(s) of subset {subset!r} were skipped ({why}); "
                "nothing of it is left to evaluate"
            )


def _jsonl_files(path: Path) -> list[Path]:
    if source_kind(path, "LongFormFact data (a .jsonl file or a folder of them)") == "folder":
        return folder_files(path, ".jsonl", ".jsonl files")
    return [path]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _absent(value: object) -> bool:
    """None, or NaN: pandas' missing value, as in the published ``"id": NaN``."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _documents(record: dict[str, Any], where: str) -> list[str]:
    docs = record.get("documents")
    if docs is None:
        single = record.get("document")
        if single is None:
            raise DataError(
                f"{where}: missing field 'documents' (and no 'document' to fall back on)"
            )
        if not isinstance(single, str) or not has_words(single):
            raise DataError(
                f"{where}: 'document' must be text with words (there is no 'documents')"
            )
        check_size(single, f"{where}: field 'document'")
        return [single]
    if not isinstance(docs, list) or not all(isinstance(d, str) for d in docs):
        raise DataError(f"{where}: 'documents' must be a list of strings")
    if not any(has_words(d) for d in docs):
        # Blank entries are kept among others (ranking refers to positions), not alone.
        raise DataError(f"{where}: 'documents' is empty: no document has any words")
    for i, doc in enumerate(docs):
        check_size(doc, f"{where}: documents[{i}]")
    return list(docs)


def _labels(record: dict[str, Any], where: str) -> int | list[int | None]:
    if "faithfulness" not in record:
        raise DataError(f"{where}: missing field 'faithfulness'")
    value = record["faithfulness"]
    if _is_int(value) and value in (0, 1):
        return int(value)
    if isinstance(value, list):
        if not value:
            raise DataError(f"{where}: 'faithfulness' is an empty list")
        if all(v is None or (_is_int(v) and v in (0, 1)) for v in value):
            return [None if v is None else int(v) for v in value]
    raise DataError(
        f"{where}: 'faithfulness' must be 0/1 or a list of 0/1/null, not {json.dumps(value)[:80]}"
    )


def _ranking(record: dict[str, Any], n_docs: int, where: str) -> list[int] | None:
    ranking = record.get("ranking")
    if _absent(ranking):
        return None
    if not isinstance(ranking, list) or not all(_is_int(r) for r in ranking):
        raise DataError(f"{where}: 'ranking' must be a list of integers")
    outside = [r for r in ranking if not 0 <= r < n_docs]
    if outside:
        raise DataError(
            f"{where}: 'ranking' holds {outside[0]}, not a document index "
            f"(0..{n_docs - 1} for {n_docs} documents)"
        )
    return [int(r) for r in ranking]


def _optional_str(record: dict[str, Any], key: str, where: str) -> str | None:
    value = record.get(key)
    if _absent(value):
        return None
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    raise DataError(f"{where}: {key!r} must be a string")


def _subset(record: dict[str, Any], path: Path, where: str) -> str:
    subset = record.get("subset")
    if _absent(subset):
        return path.stem
    if not isinstance(subset, str) or not subset.strip():
        raise DataError(f"{where}: 'subset' must be a non-empty string")
    return subset


def _align(summary: str, n_labels: int, where: str) -> list[str]:
    sentences = split_sentences(summary)
    if len(sentences) == n_labels:
        return sentences
    raise _Misaligned(
        f"{where}: {n_labels} sentence labels, but the summary has {len(sentences)} sentences "
        "(NLTK's sent_tokenize, English, as the labels were made)"
    )


def _check_on_mismatch(on_mismatch: str) -> None:
    if on_mismatch not in ("raise", "skip"):
        raise ValueError(f"on_mismatch must be 'raise' or 'skip', not {on_mismatch!r}")


def load_longformfact_with_report(
    source: str | Path,
    subsets: Sequence[str] | None = None,
    *,
    on_mismatch: OnMismatch = "raise",
) -> tuple[list[Sample], LoadReport]:
    """Load LongFormFact records as samples, and report what was kept and skipped.

    Args:
        source: A ``.jsonl`` file, or a folder whose ``*.jsonl`` files are all read, sorted by
            name (the published layout: one file per subset).
        subsets: Keep only these subsets (all when None). Records of other subsets are not
            validated.
        on_mismatch: For a sentence-level record whose sentences cannot be aligned with its
            labels: ``"raise"`` a DataError, or ``"skip"`` it and list it in the report.

    Returns:
        The samples (schema in the module docstring), in reading order, and a
        :class:`LoadReport`.

    Raises:
        DataError: If ``source`` is missing or holds no ``.jsonl`` file; if a line is not
            UTF-8 or not a JSON object; if a record has no usable documents (all blank), no
            summary, labels of a wrong type, a ranking index out of range, or (with
            ``on_mismatch="raise"``) misaligned sentences; if a requested subset has no
            record; or if every record of a subset was skipped (the message counts them by
            reason). Each message names the file, and the line where there is one.
        ValueError: If ``on_mismatch`` is neither ``"raise"`` nor ``"skip"``.
    """
    _check_on_mismatch(on_mismatch)
    wanted = None if subsets is None else set(subsets)
    counters: dict[str, int] = {}
    loaded: dict[str, int] = {}
    in_scope: dict[str, int] = {}
    files: dict[str, Path] = {}
    reasons: dict[str, Counter[str]] = {}
    skipped: list[str] = []
    samples: list[Sample] = []
    ids = SampleIds()
    for path in _jsonl_files(Path(source)):
        for number, record in jsonl_records(path):
            where = f"{path}:{number}"
            subset = _subset(record, path, where)
            index = counters.get(subset, 0)
            counters[subset] = index + 1
            if wanted is not None and subset not in wanted:
                continue
            in_scope[subset] = in_scope.get(subset, 0) + 1
            files.setdefault(subset, path)
            sample_id = ids.add(f"{subset}-{index}", where, "sample id (built from 'subset')")
            try:
                samples.append(_record_sample(record, sample_id, subset, where))
            except _Misaligned as exc:
                if on_mismatch == "raise":
                    raise DataError(str(exc)) from None
                skipped.append(str(exc))
                reasons.setdefault(subset, Counter())[_MISALIGNED] += 1
                continue
            loaded[subset] = loaded.get(subset, 0) + 1
    _check_wanted(source, wanted, counters)
    _check_all_skipped(in_scope, loaded, reasons, files)
    return samples, LoadReport(loaded=loaded, skipped=tuple(skipped))


def _record_sample(record: dict[str, Any], sample_id: str, subset: str, where: str) -> Sample:
    """One record as a sample (its sentences aligned with sentence labels).

    Raises:
        DataError: for a bad field.
        _Misaligned: when sentence labels cannot be aligned with the summary's sentences.
    """
    documents = _documents(record, where)
    summary = require_text(record, "summary", where)
    labels = _labels(record, where)
    if isinstance(labels, list):
        level = "sentence"
        sentences = _align(summary, len(labels), where)
    else:
        level = "summary"
        sentences = split_sentences(summary)
    return Sample(
        id=sample_id,
        input=INSTRUCTION,
        metadata={
            "subset": subset,
            "documents": documents,
            "summary": summary,
            "summary_sentences": sentences,
            "label_level": level,
            "labels": labels,
            "ranking": _ranking(record, len(documents), where),
            "model": _optional_str(record, "model", where),
            "source_id": _optional_str(record, "id", where),
            "source": where,
        },
    )


def _check_wanted(source: str | Path, wanted: set[str] | None, counters: dict[str, int]) -> None:
    """Fail when a requested subset has no record at all."""
    if wanted is None:
        return
    absent = sorted(wanted - set(counters))
    if absent:
        found = ", ".join(sorted(counters)) or "none"
        raise DataError(f"{source}: no records of subset(s) {', '.join(absent)} (found {found})")


def load_longformfact(
    source: str | Path,
    subsets: Sequence[str] | None = None,
    *,
    on_mismatch: OnMismatch = "raise",
) -> list[Sample]:
    """Load LongFormFact records as samples (see :func:`load_longformfact_with_report`).

    Args:
        source: A ``.jsonl`` file or a folder of them (read sorted by name).
        subsets: Keep only these subsets (all when None).
        on_mismatch: ``"raise"`` (default) or ``"skip"`` misaligned sentence-level records;
            use :func:`load_longformfact_with_report` to learn how many were skipped.

    Returns:
        The samples, in reading order.

    Raises:
        DataError: On missing or malformed data; the message names the file and line.
        ValueError: If ``on_mismatch`` is invalid.
    """
    samples, _ = load_longformfact_with_report(source, subsets, on_mismatch=on_mismatch)
    return samples


def _default_cache_dir() -> Path:
    root = os.environ.get("LONGFORM_EVALS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "longform-evals"
    )
    return Path(root) / "longformfact"


def load_longformfact_remote(
    subsets: Sequence[str] | None = None,
    cache_dir: str | Path | None = None,
    *,
    url_template: str = LONGFORMFACT_URL_TEMPLATE,
    on_mismatch: OnMismatch = "raise",
    timeout: float = 60.0,
    revision: str | None = None,
) -> list[Sample]:
    """Download the published LongFormFact files (needs internet) and load them (see
    :func:`load_longformfact_remote_with_report`, which takes the same arguments)."""
    samples, _ = load_longformfact_remote_with_report(
        subsets,
        cache_dir,
        url_template=url_template,
        on_mismatch=on_mismatch,
        timeout=timeout,
        revision=revision,
    )
    return samples


def load_longformfact_remote_with_report(
    subsets: Sequence[str] | None = None,
    cache_dir: str | Path | None = None,
    *,
    url_template: str = LONGFORMFACT_URL_TEMPLATE,
    on_mismatch: OnMismatch = "raise",
    timeout: float = 60.0,
    revision: str | None = None,
) -> tuple[list[Sample], LoadReport]:
    """Download the published LongFormFact files (needs internet), load them, and report what
    was kept and skipped.

    Each subset's file is fetched once into ``cache_dir`` as ``<revision>/<subset>.jsonl``
    and read from there afterwards; delete the file to fetch it again.

    Args:
        subsets: Subsets to fetch; all of :data:`LONGFORMFACT_SUBSETS` when None.
        cache_dir: Folder for the downloaded files; default
            ``$LONGFORM_EVALS_CACHE/longformfact`` or ``~/.cache/longform-evals/longformfact``.
        url_template: URL with a ``{subset}`` placeholder, and ``{revision}`` where the
            revision goes (any scheme urllib opens).
        on_mismatch: As in :func:`load_longformfact`.
        timeout: Seconds to wait for each download.
        revision: The commit, branch or tag of the repository to read; None: the pinned one
            (:data:`~longform_evals.data.sources.PINS`).

    Returns:
        The samples of all requested subsets, in the order of ``subsets``, and the
        :class:`LoadReport` of all of them.

    Raises:
        ConnectionError: If a file cannot be downloaded.
        DataError: If a downloaded file is malformed.
    """
    names = list(LONGFORMFACT_SUBSETS if subsets is None else subsets)
    read = resolve_revision(LONGFORMFACT_REPOSITORY, revision)
    root = Path(cache_dir) if cache_dir is not None else _default_cache_dir()
    # one folder per revision: a file fetched at one revision is never read for another
    folder = root / re.sub(r"[^A-Za-z0-9_-]", "_", read)
    folder.mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    loaded: dict[str, int] = {}
    skipped: list[str] = []
    for name in names:
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"invalid subset name {name!r}")
        target = folder / f"{name}.jsonl"
        if not target.exists():
            url = url_template.format(subset=name, revision=read)
            partial = target.with_name(target.name + ".part")
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response:
                    content: bytes = response.read()
            except OSError as exc:  # URLError, HTTPError and timeouts are all OSErrors
                raise ConnectionError(f"could not download {url}: {exc}") from exc
            partial.write_bytes(content)
            partial.replace(target)
        part, report = load_longformfact_with_report(target, on_mismatch=on_mismatch)
        samples.extend(part)
        for subset, n in report.loaded.items():
            loaded[subset] = loaded.get(subset, 0) + n
        skipped.extend(report.skipped)
    return samples, LoadReport(loaded=loaded, skipped=tuple(skipped))
