"""Multi-document inputs (for the positional-bias task) as Inspect samples.

Each JSONL line is an object with ``documents`` (a non-empty list of texts) and optionally
``id``, ``ranking`` (document indices, most important first) and ``reference`` (a reference
summary, used to rank documents when ``ranking`` is absent). Other fields (LongFormFact's
``summary``, labels, ...) are ignored, so the published LongFormFact files load too; their
``summary`` is deliberately not carried, as the summary here is generated.

Blank documents among others are kept (``ranking`` refers to positions, the published
multinews records have them, and the faithfulness scorer lists and skips them), but a record
whose documents are all blank is rejected here rather than after it has been summarized.

:func:`sample_documents` reads the documents back from any sample's metadata (the shared
``documents`` / ``document`` fields of every loader), for the solvers and scorers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.files import check_file
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import DataError, check_size, has_words, jsonl_records

__all__ = ["INSTRUCTION", "load_multidoc", "sample_documents"]

INSTRUCTION = "Summarize the documents in the sample metadata."
"""The ``input`` of every sample; the documents are in the metadata."""


def _ranking(value: object, n_docs: int, where: str) -> list[int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in value
    ):
        raise DataError(f"{where}: 'ranking' must be a list of document indices")
    for i in value:
        if not 0 <= i < n_docs:
            raise DataError(f"{where}: 'ranking' holds {i}, not a document index (0..{n_docs - 1})")
    if len(set(value)) != len(value):
        raise DataError(f"{where}: 'ranking' lists a document twice")
    return list(value)


def _record_id(value: object, number: int, where: str) -> str:
    # NaN is pandas' missing value: the published LongFormFact files write "id": NaN.
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return str(number)
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
        return str(value)
    raise DataError(f"{where}: 'id' must be a non-empty string or an integer, not {value!r}")


def load_multidoc(path: str | Path) -> list[Sample]:
    """Read multi-document inputs from JSONL (format in the module docstring).

    Args:
        path: The ``.jsonl`` file (UTF-8, a byte-order mark allowed).

    Returns:
        Samples with id ``id`` (else the 1-based line number, also for a null or NaN ``id``),
        ``input`` :data:`INSTRUCTION` and metadata ``documents``, ``ranking``, ``reference``
        and ``source`` (``"file:line"``).

    Raises:
        DataError: If the file is missing, not UTF-8 or not JSON lines; if a record's
            documents are missing, not strings, or all blank; if ``ranking`` is not a list of
            distinct document indices or ``reference`` not a string; on a duplicate id; or
            if the file holds no record. Each message names the file and line.
    """
    file = check_file(Path(path), "multi-document file (.jsonl)")
    samples: list[Sample] = []
    ids = SampleIds()
    for number, record in jsonl_records(file):
        where = f"{file}:{number}"
        docs = record.get("documents")
        if not isinstance(docs, list) or not docs or not all(isinstance(d, str) for d in docs):
            raise DataError(f"{where}: 'documents' must be a non-empty list of strings")
        if not any(has_words(d) for d in docs):
            raise DataError(f"{where}: 'documents' have no words: there is nothing to summarize")
        for i, doc in enumerate(docs):
            check_size(doc, f"{where}: documents[{i}]")
        ranking = _ranking(record.get("ranking"), len(docs), where)
        reference = record.get("reference")
        if reference is not None and not isinstance(reference, str):
            raise DataError(f"{where}: 'reference' must be a string")
        sample_id = ids.add(_record_id(record.get("id"), number, where), where)
        samples.append(
            Sample(
                id=sample_id,
                input=INSTRUCTION,
                metadata={
                    "documents": docs,
                    "ranking": ranking,
                    "reference": reference,
                    "source": where,
                },
            )
        )
    if not samples:
        raise DataError(f"{file}: no samples")
    return samples


def sample_documents(
    metadata: Mapping[str, Any] | None, sample_id: object, default: str | None = None
) -> list[str]:
    """The source documents of a sample: ``metadata["documents"]`` (a non-empty list of
    texts), else ``[metadata["document"]]``, else ``[default]`` when one is given (a
    summarizer's input text).

    Raises:
        ValueError: naming the sample, when it has no documents (and no default), or they are
            not texts.
    """
    metadata = metadata or {}
    docs = metadata.get("documents")
    if docs is None:
        one = metadata.get("document", default)
        if one is None:
            raise ValueError(
                f"sample {sample_id!r} has no source documents: it needs metadata['documents'] "
                "(a list of texts) or metadata['document']"
            )
        if not isinstance(one, str):
            raise ValueError(
                f"sample {sample_id!r}: metadata['document'] must be a string, "
                f"not {type(one).__name__}"
            )
        return [one]
    if not isinstance(docs, list) or not docs or not all(isinstance(d, str) for d in docs):
        raise ValueError(
            f"sample {sample_id!r}: metadata['documents'] must be a non-empty list of texts"
        )
    return list(docs)
