"""Document-order perturbation (Wan et al., "On Positional Bias of Faithfulness for Long-form
Summarization", §3.3 Table 4 and §4.3 Table 5).

Documents are ranked by importance (a given ``ranking``, or similarity to a reference or
summary); the most important one is then moved to the top, the middle or the bottom of the
input, the others keeping their relative order. Running a summarizer or a metric under each
order and taking max - min of the scores gives the order *sensitivity*, reported with a
bootstrap interval over sources (:func:`order_table`, :func:`sensitivity_interval`).

Everything here is pure except :func:`expand_orders`, which builds new Inspect samples (one
per order) so that any solver and scorer run unchanged under each order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
from inspect_ai.dataset import Sample

from longform_evals.analysis.intervals import FloatArray, Interval, bootstrap_interval

__all__ = [
    "ORDER_NAMES",
    "Embed",
    "OrderName",
    "OrderTable",
    "Position",
    "column_means",
    "cosine",
    "expand_orders",
    "importance_ranking",
    "lexical_similarity",
    "order_table",
    "perturbations",
    "place",
    "rank_by_similarity",
    "sensitivity",
    "sensitivity_interval",
    "similarity_scores",
    "sort_orders",
]

Position = Literal["top", "middle", "bottom"]
"""Where the most important document is put."""
OrderName = Literal["original", "top", "middle", "bottom"]
ORDER_NAMES: tuple[OrderName, ...] = get_args(OrderName)
Embed = Callable[[list[str]], list[list[float]]]
"""Text embedder: one vector per input text (e.g. a sentence-transformers model's encode)."""

_WORD = re.compile(r"\w+")


def _check_ranking(n_docs: int, ranking: Sequence[int]) -> list[int]:
    seen: set[int] = set()
    out: list[int] = []
    for i in ranking:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n_docs:
            raise ValueError(f"ranking entry {i!r} is not a document index in [0, {n_docs})")
        if i in seen:
            raise ValueError(f"ranking lists document {i} twice")
        seen.add(i)
        out.append(i)
    return out


def importance_ranking(
    n_docs: int,
    ranking: Sequence[int] | None = None,
    scores: Sequence[float] | None = None,
) -> list[int]:
    """Document indices, most important first.

    Exactly one of ``ranking`` (document indices, most important first, as in LongFormFact's
    ``ranking`` field) or ``scores`` (one importance per document, higher = more important)
    must be given. A partial ``ranking`` is completed with the unlisted documents in their
    original order. Score ties keep the original order; NaN scores rank last.

    Raises:
        ValueError: If both or neither are given, or they do not fit ``n_docs``.
    """
    if (ranking is None) == (scores is None):
        raise ValueError("give exactly one of ranking or scores")
    if n_docs < 0:
        raise ValueError(f"n_docs must be >= 0, got {n_docs}")
    if ranking is not None:
        listed = _check_ranking(n_docs, ranking)
        rest = [i for i in range(n_docs) if i not in set(listed)]
        return listed + rest
    assert scores is not None
    if len(scores) != n_docs:
        raise ValueError(f"{len(scores)} scores for {n_docs} documents")

    def key(i: int) -> tuple[bool, float, int]:
        s = float(scores[i])
        return (math.isnan(s), -s if not math.isnan(s) else 0.0, i)

    return sorted(range(n_docs), key=key)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def lexical_similarity(document: str, reference: str) -> float:
    """Jaccard overlap of the lower-cased word sets (0 when both are empty).

    A cheap offline stand-in for the paper's sentence-embedding similarity; it needs no
    model and is deterministic.
    """
    a, b = _words(document), _words(reference)
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def cosine(u: Sequence[float], v: Sequence[float]) -> float:
    """Cosine similarity (0 when either vector is zero)."""
    if len(u) != len(v):
        raise ValueError(f"vectors of different lengths ({len(u)} and {len(v)})")
    dot = sum(x * y for x, y in zip(u, v, strict=True))
    norm = math.sqrt(sum(x * x for x in u)) * math.sqrt(sum(y * y for y in v))
    return dot / norm if norm else 0.0


def similarity_scores(
    documents: Sequence[str], reference: str, embed: Embed | None = None
) -> list[float]:
    """Similarity of each document to ``reference``.

    Args:
        documents: The documents.
        reference: A reference summary (§4.3) or the generated summary (§3.3).
        embed: An embedder; cosine similarity of its vectors is used. ``None``:
            :func:`lexical_similarity`.
    """
    if embed is None:
        return [lexical_similarity(d, reference) for d in documents]
    vectors = embed([reference, *documents])
    if len(vectors) != len(documents) + 1:
        raise ValueError(f"embed returned {len(vectors)} vectors for {len(documents) + 1} texts")
    return [cosine(vectors[0], v) for v in vectors[1:]]


def rank_by_similarity(
    documents: Sequence[str], reference: str, embed: Embed | None = None
) -> list[int]:
    """Document indices by decreasing similarity to ``reference`` (see
    :func:`similarity_scores`)."""
    return importance_ranking(len(documents), scores=similarity_scores(documents, reference, embed))


def place(documents_order: Sequence[int], most_important: int, position: Position) -> list[int]:
    """Move ``most_important`` to ``position``, keeping the others' relative order.

    ``top`` is index 0, ``bottom`` the last index, ``middle`` index ``len // 2`` (the exact
    middle for an odd count, the later of the two middle slots for an even one; with two
    documents middle equals bottom, with one all positions coincide).

    Raises:
        ValueError: If ``most_important`` is not in the order or the position is unknown.
    """
    order = list(documents_order)
    if most_important not in order:
        raise ValueError(f"document {most_important} is not in the order {order}")
    rest = [i for i in order if i != most_important]
    if position == "top":
        index = 0
    elif position == "middle":
        index = len(order) // 2
    elif position == "bottom":
        index = len(rest)
    else:
        raise ValueError(f"unknown position {position!r}; use top, middle or bottom")
    return [*rest[:index], most_important, *rest[index:]]


def perturbations(n_docs: int, ranking: Sequence[int]) -> dict[str, list[int]]:
    """The four orders of the paper: ``original`` (identity) and the most important
    document (``ranking[0]``) placed at ``top``, ``middle`` and ``bottom``.

    Each order lists original document indices: ``order[p]`` is the document shown at
    position ``p``.
    """
    if n_docs < 1:
        raise ValueError("need at least one document")
    ranked = importance_ranking(n_docs, ranking=ranking)
    identity = list(range(n_docs))
    out: dict[str, list[int]] = {"original": identity}
    for position in ("top", "middle", "bottom"):
        out[position] = place(identity, ranked[0], position)
    return out


def sensitivity(scores_by_order: Mapping[str, float]) -> float:
    """Max - min over the orders' scores, ignoring NaN (NaN when no score is a number)."""
    finite = [float(v) for v in scores_by_order.values() if not math.isnan(float(v))]
    return max(finite) - min(finite) if finite else math.nan


def sort_orders(names: Iterable[str]) -> list[str]:
    """Order names as reported: original, top, middle, bottom (those given), then the rest
    sorted."""
    given = set(names)
    return [n for n in ORDER_NAMES if n in given] + sorted(given - set(ORDER_NAMES))


@dataclass(frozen=True)
class OrderTable:
    """Scores with one row per source (an input before :func:`expand_orders`) and one column
    per order.

    Only sources with a readable score under every order are rows: sensitivity compares a
    source's orders with each other, so a source lacking one cannot be paired. The others
    are counted in ``missing`` (to be reported beside the interval, never dropped silently).
    """

    orders: tuple[str, ...]
    sources: tuple[Hashable, ...]
    rows: FloatArray
    """Shape (len(sources), len(orders))."""
    missing: int


def order_table(entries: Iterable[tuple[Hashable, str, float]]) -> OrderTable:
    """Arrange ``(source, order name, score)`` entries (NaN = unreadable) as an
    :class:`OrderTable`; columns in :func:`sort_orders` order, rows in first-seen order.

    A source scored twice under one order (hand-built samples; Inspect reduces epochs before
    metrics) counts with the mean of its readable scores there.
    """
    cells: dict[Hashable, dict[str, list[float]]] = {}
    names: set[str] = set()
    for source, order, value in entries:
        names.add(order)
        row = cells.setdefault(source, {})
        if not math.isnan(value):
            row.setdefault(order, []).append(float(value))
    orders = sort_orders(names)
    complete = [s for s, row in cells.items() if all(o in row for o in orders)]
    rows = np.array(
        [[float(np.mean(cells[s][o])) for o in orders] for s in complete], dtype=np.float64
    ).reshape(len(complete), len(orders))
    return OrderTable(tuple(orders), tuple(complete), rows, len(cells) - len(complete))


def column_means(rows: FloatArray) -> FloatArray:
    """The mean score of each order (column)."""
    means: FloatArray = np.mean(rows, axis=0)
    return means


def sensitivity_interval(
    rows: FloatArray, per_order: Callable[[FloatArray], FloatArray] = column_means
) -> Interval:
    """Order sensitivity (max - min over orders of ``per_order(rows)``) with its percentile
    bootstrap interval over sources.

    Whole rows are resampled, so every resample keeps each source's orders paired and the
    interval measures how much the order effect varies with the choice of inputs.

    Args:
        rows: One row per source scored under every order (see :func:`order_table`), no NaN;
            ``per_order`` may read extra columns (e.g. labels) first.
        per_order: Maps rows to one score per order; the column means by default.

    Returns:
        The interval (NaN bounds below two sources; all NaN with none).
    """
    if rows.shape[0] == 0:
        return Interval(math.nan, math.nan, math.nan, 0)

    def spread(sample: FloatArray) -> float:
        scores = per_order(sample)
        return float(np.max(scores) - np.min(scores))

    return bootstrap_interval(rows, spread)


def _sample_ranking(
    sample: Sample, documents: list[str], embed: Embed | None, reference_key: str
) -> tuple[list[int], str]:
    metadata = sample.metadata or {}
    ranking = metadata.get("ranking")
    if ranking is not None:
        return importance_ranking(len(documents), ranking=list(ranking)), "ranking"
    reference = metadata.get(reference_key)
    if isinstance(reference, str) and reference.strip():
        method = "lexical" if embed is None else "embedding"
        return (
            rank_by_similarity(documents, reference, embed),
            f"similarity:{reference_key}:{method}",
        )
    raise ValueError(
        f"sample {sample.id!r} has neither metadata['ranking'] nor a "
        f"metadata[{reference_key!r}] text to rank its documents by"
    )


def _multidoc_sample(
    sample: Sample, n: int, purpose: str
) -> tuple[dict[str, Any], list[str], str | int]:
    """A copy of the sample's metadata, its documents as texts, and its id (``n + 1`` when
    it has none).

    Raises:
        ValueError: when the sample has no documents (``purpose``: what they were for).
    """
    metadata: dict[str, Any] = dict(sample.metadata or {})
    documents = metadata.get("documents")
    if not isinstance(documents, list) or not documents:
        raise ValueError(f"sample {sample.id!r} has no metadata['documents'] to {purpose}")
    return metadata, [str(d) for d in documents], sample.id if sample.id is not None else n + 1


def expand_orders(
    samples: Iterable[Sample],
    orders: Sequence[str] = ORDER_NAMES,
    embed: Embed | None = None,
    reference_key: str = "reference",
) -> list[Sample]:
    """One sample per document order, so any solver and scorer run under each order.

    For each sample (``metadata["documents"]``: list of texts) the importance ranking is
    ``metadata["ranking"]`` when present, else similarity to ``metadata[reference_key]``
    (lexical unless ``embed`` is given). Each new sample has id ``"<id>@<order>"``, the
    documents reordered, and in its metadata:

    - ``order_name``; ``order`` (``order[p]`` = original index of the document at ``p``);
    - ``ranking`` remapped to the new positions (when the sample had one);
    - ``important_doc`` (original index) and ``important_position`` (new position);
    - ``ranking_source``: ``"ranking"`` or ``"similarity:<key>:<lexical|embedding>"``;
      ``source_id``;
    - ``document`` rebuilt from the reordered documents when the sample had one.

    The input samples are not changed.

    Raises:
        ValueError: On a sample without documents, with nothing to rank by, or an unknown
            order name.
    """
    unknown = [o for o in orders if o not in ORDER_NAMES]
    if unknown:
        raise ValueError(f"unknown order(s) {unknown}; use {', '.join(ORDER_NAMES)}")
    out: list[Sample] = []
    for n, sample in enumerate(samples):
        metadata, docs, base_id = _multidoc_sample(sample, n, "reorder")
        ranked, source = _sample_ranking(sample, docs, embed, reference_key)
        all_orders = perturbations(len(docs), ranked)
        for name in orders:
            order = all_orders[name]
            new_pos = {doc: pos for pos, doc in enumerate(order)}
            meta = dict(metadata)
            meta.update(
                documents=[docs[i] for i in order],
                order_name=name,
                order=order,
                important_doc=ranked[0],
                important_position=new_pos[ranked[0]],
                ranking_source=source,
                source_id=base_id,
            )
            if metadata.get("ranking") is not None:
                meta["ranking"] = [new_pos[i] for i in ranked]
            if isinstance(metadata.get("document"), str):
                meta["document"] = "\n\n".join(meta["documents"])
            out.append(sample.model_copy(update={"id": f"{base_id}@{name}", "metadata": meta}))
    return out


def expand_prefixes(samples: Iterable[Sample], min_docs: int = 1) -> list[Sample]:
    """One sample per growing prefix of the documents: the first 1, 2, ..., n documents
    (the positional-bias paper, §4.4: how faithfulness changes as documents are added).

    Each new sample has id ``"<id>+<k>"``, ``documents`` cut to the first ``k``, and in its
    metadata ``n_documents`` (k), ``source_id`` and, when the sample had a ``ranking``, the
    ranking restricted to the kept documents. The input samples are not changed.

    Raises:
        ValueError: On a sample without documents, or ``min_docs < 1``.
    """
    if min_docs < 1:
        raise ValueError(f"min_docs must be >= 1, got {min_docs}")
    out: list[Sample] = []
    for n, sample in enumerate(samples):
        metadata, documents, base_id = _multidoc_sample(sample, n, "grow")
        for k in range(min_docs, len(documents) + 1):
            meta = dict(metadata, documents=list(documents[:k]), n_documents=k, source_id=base_id)
            if metadata.get("ranking") is not None:
                meta["ranking"] = [int(i) for i in metadata["ranking"] if int(i) < k]
            if isinstance(metadata.get("document"), str):
                meta["document"] = "\n\n".join(str(d) for d in meta["documents"])
            out.append(sample.model_copy(update={"id": f"{base_id}+{k}", "metadata": meta}))
    return out
