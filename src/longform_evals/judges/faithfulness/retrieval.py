"""Retrieve, then verify: which source units a support judge is asked about for each statement.

Reading every unit of a long source for every summary sentence costs units x sentences judge
calls, and each unrelated unit is one more chance of a false "supported" that the max over
units keeps. LongDocFACTScore instead scores each sentence against the source sentences most
similar to it. A :class:`Retrieval` does that in front of any support judge: for each
statement, the ``k`` units (the judge's chunks, or sentence windows with ``words:N``
chunking) ranked highest by

* ``bm25``: Okapi BM25 of the statement against the units (`text/bm25.py`);
* ``embedding``: cosine similarity of sentence embeddings (the packaged all-MiniLM-L6-v2,
  the `embed` extra);
* ``fused``: both rankings fused by reciprocal rank (each unit scores the sum of
  ``1 / (60 + rank)`` over the two rankings), so a unit either retriever ranks high is kept;

and ``all`` (the default): every unit, the judge's behaviour without retrieval. The judge is
asked only about the retrieved (unit, statement) pairs; the others are not asked and stay
missing in the support matrix (docs/faithfulness.md says how each aggregation treats them).
Ties keep the source order. The setting is written as ``<retriever>:<k>`` (``bm25:3``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import anyio

from longform_evals.models.embeddings import embed_texts
from longform_evals.text.bm25 import BM25

__all__ = ["RETRIEVERS", "RRF_K", "Retrieval", "Retriever"]

Retriever = Literal["all", "bm25", "embedding", "fused"]
RETRIEVERS: tuple[str, ...] = get_args(Retriever)

RRF_K = 60
"""The constant of reciprocal-rank fusion (Cormack et al. 2009's value)."""


@dataclass(frozen=True)
class Retrieval:
    """Which units a support judge reads for each statement (module docstring)."""

    retriever: Retriever = "all"
    k: int = 3

    def __post_init__(self) -> None:
        if self.retriever not in RETRIEVERS:
            raise ValueError(
                f"unknown retriever {self.retriever!r}; use one of {', '.join(RETRIEVERS)}"
            )
        if self.k < 1:
            raise ValueError(f"retrieval needs k >= 1 units per statement, got {self.k}")

    @classmethod
    def parse(cls, spec: str | None) -> Retrieval:
        """The retrieval ``spec`` names: ``all`` (or None), or ``<retriever>:<k>``.

        Raises:
            ValueError: naming the spec and the accepted forms.
        """
        if spec is None or spec.strip() == "all":
            return cls()
        name, _, k = spec.strip().partition(":")
        if name not in RETRIEVERS or name == "all" or not k.strip().isdigit():
            raise ValueError(
                f"retrieval {spec!r}: use `all`, or `<retriever>:<k>` with a retriever of "
                f"bm25, embedding, fused and k >= 1 (e.g. `bm25:3`)"
            )
        return cls(name, int(k))  # type: ignore[arg-type]  # checked above

    @property
    def spec(self) -> str:
        """The setting as written (`all`, `bm25:3`)."""
        return "all" if self.retriever == "all" else f"{self.retriever}:{self.k}"

    async def select(self, units: list[str], statements: list[str]) -> list[list[int]] | None:
        """For each statement, the indices of the units to judge it against, in source order;
        None when every unit is read (``all``, or no more units than ``k``)."""
        if self.retriever == "all" or len(units) <= self.k:
            return None
        rankings: list[list[list[int]]] = []
        if self.retriever in ("bm25", "fused"):
            index = BM25(units)
            rankings.append([_ranked(index.scores(s)) for s in statements])
        if self.retriever in ("embedding", "fused"):
            rankings.append(await _embedding_rankings(units, statements))
        chosen = []
        for j in range(len(statements)):
            ranks = [r[j] for r in rankings]
            order = ranks[0] if len(ranks) == 1 else _fused(ranks)
            chosen.append(sorted(order[: self.k]))
        return chosen


def _ranked(scores: list[float]) -> list[int]:
    """Indices by descending score, ties in source order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def _fused(rankings: list[list[int]]) -> list[int]:
    """Reciprocal-rank fusion of several rankings of the same units."""
    score = [0.0] * len(rankings[0])
    for ranking in rankings:
        for rank, unit in enumerate(ranking):
            score[unit] += 1.0 / (RRF_K + rank + 1)
    return _ranked(score)


async def _embedding_rankings(units: list[str], statements: list[str]) -> list[list[int]]:
    """Per statement, the units by cosine similarity of their embeddings (unit vectors)."""

    unit_vectors = await anyio.to_thread.run_sync(embed_texts, units)
    statement_vectors = await anyio.to_thread.run_sync(embed_texts, statements)
    return [
        _ranked([sum(a * b for a, b in zip(q, u, strict=True)) for u in unit_vectors])
        for q in statement_vectors
    ]
