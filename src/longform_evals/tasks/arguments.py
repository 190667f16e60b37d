"""Parsing of task arguments given on the command line (`-T key=a,b,c`)."""

from __future__ import annotations

from longform_evals.analysis.ordering import Embed
from longform_evals.models.embeddings import load_embedder


def comma_list(value: str | list[str] | None) -> list[str] | None:
    """`"a, b"` -> `["a", "b"]`; a list is kept; None stays None (meaning "all")."""
    if value is None or isinstance(value, list):
        return value
    return [v.strip() for v in value.split(",") if v.strip()]


def similarity_embedder(ranking: str) -> Embed | None:
    """The embedder for `-T ranking=`: `embedding` (the packaged sentence embedder, the
    paper's choice; needs the `embed` extra), `lexical` (word overlap, no extra; None), or a
    sentence-transformers model folder prefixed `embedding:`."""
    if ranking == "lexical":
        return None
    if ranking == "embedding":
        return load_embedder()
    if ranking.startswith("embedding:"):
        return load_embedder(ranking.removeprefix("embedding:"))
    raise ValueError(
        f"unknown ranking {ranking!r}; use 'embedding', 'embedding:<model folder>' or 'lexical'"
    )
