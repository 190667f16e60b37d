"""Reading baselines of the ReadAgent paper ("A Human-Inspired Reading Agent with Gist Memory
of Very Long Contexts", arXiv:2402.09727, §4.2): the whole text, a truncated text, or the
top-k pages by BM25 or by embedding similarity to the question.

The retrieval baselines rank the same pages ReadAgent makes (pagination, no gisting), per
document, with the question as the query, and show the chosen pages in document order, each
under its ``<Page i>`` tag. Their ``pages_looked_up`` are the retrieved pages, and their
``words_consumed`` include their share of the pagination calls.
"""

from __future__ import annotations

import re
from typing import Literal

import anyio
from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.models.embeddings import DEFAULT_EMBEDDER, embed_texts
from longform_evals.solvers.reading.memory import (
    DocumentPages,
    MemorySettings,
    memoized,
)
from longform_evals.solvers.reading.run import ReadingRun, paged_run
from longform_evals.solvers.settings import ReadingSettings
from longform_evals.text.bm25 import BM25

__all__ = ["bm25_pages", "embedding_pages", "full_text", "keep_words", "truncated"]

_WORD = re.compile(r"\S+")


def keep_words(text: str, n: int, keep: Literal["first", "last"] = "first") -> str:
    """The first (or last) ``n`` words of ``text``, as a slice of it (inner spacing kept)."""
    spans = [m.span() for m in _WORD.finditer(text)]
    if n <= 0 or not spans:
        return ""
    if len(spans) <= n:
        return text[spans[0][0] : spans[-1][1]]
    if keep == "first":
        return text[spans[0][0] : spans[n - 1][1]]
    return text[spans[-n][0] : spans[-1][1]]


def _shown(pages: DocumentPages, chosen: list[int]) -> str:
    return "\n\n".join(f"<Page {i}>\n{pages.pages[i]}" for i in sorted(chosen))


async def _answer_from(run: ReadingRun, pages: DocumentPages, chosen: list[int]) -> TaskState:
    """Answer from the ``chosen`` pages, recording them as looked up."""
    run.info["pages_looked_up"] = chosen
    return await run.answer(_shown(pages, chosen), sum(pages.page_words[i] for i in chosen))


def _run(state: TaskState, strategy: str, settings: ReadingSettings) -> ReadingRun:
    return ReadingRun.answering(
        state, strategy, settings, prompts_dir=settings.prompts_dir, cache=settings.cache
    )


@solver
def full_text(settings: ReadingSettings | None = None) -> Solver:
    """Answer from the whole document (no truncation: use it where the document fits).

    Args:
        settings: The answer's temperature, length, templates and caching.
    """
    settings = settings or ReadingSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = _run(state, "full", settings)
        return await run.answer(run.document, run.doc_words)

    return solve


@solver
def truncated(
    settings: ReadingSettings | None = None, words: int = 6000, keep: str = "first"
) -> Solver:
    """Answer from the first (``keep="first"``) or last ``words`` words of the document
    (6,000 words: the paper's QMSum baseline for an 8K-token model).

    Raises:
        ValueError: On ``words < 1`` or an unknown ``keep``.
    """
    if words < 1:
        raise ValueError(f"words must be >= 1, got {words}")
    if keep not in ("first", "last"):
        raise ValueError(f"keep must be 'first' or 'last', got {keep!r}")
    side: Literal["first", "last"] = "first" if keep == "first" else "last"
    n_words = words
    chosen = settings or ReadingSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = _run(state, f"truncate_{side}", chosen)
        text = keep_words(run.document, n_words, side)
        run.info["truncated_words"] = max(0, run.doc_words - n_words)
        return await run.answer(text, min(n_words, run.doc_words))

    return solve


def _page_settings(
    k: int, min_words: int | None, max_words: int | None, settings: ReadingSettings
) -> MemorySettings:
    """Pagination settings of a retriever of ``k`` pages (raises ValueError on ``k < 1``)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return MemorySettings(
        min_words=min_words,
        max_words=max_words,
        cache=settings.cache,
        prompts_dir=settings.prompts_dir,
    )


@solver
def bm25_pages(
    settings: ReadingSettings | None = None,
    k: int = 3,
    min_words: int | None = None,
    max_words: int | None = None,
    k1: float = 1.5,
    b: float = 0.75,
) -> Solver:
    """Answer from the ``k`` pages that BM25 ranks best for the question.

    Args:
        k: Pages to retrieve.
        min_words: Page minimum (None: the dataset's default), as for ReadAgent.
        max_words: Page maximum (None: the dataset's default).
        k1: BM25 term-frequency saturation.
        b: BM25 length normalisation.
        (settings as in :func:`full_text`; its cache covers pagination too)
    """
    answer = settings or ReadingSettings()
    paging = _page_settings(k, min_words, max_words, answer)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, pages = await paged_run(state, "bm25", paging, answer)
        chosen = sorted(BM25(pages.pages, k1=k1, b=b).top(run.question, k))
        return await _answer_from(run, pages, chosen)

    return solve


@solver
def embedding_pages(
    settings: ReadingSettings | None = None,
    k: int = 3,
    min_words: int | None = None,
    max_words: int | None = None,
    embedder: str = DEFAULT_EMBEDDER,
) -> Solver:
    """Answer from the ``k`` pages whose embeddings are most similar (cosine) to the question's.

    The paper embeds gists instead of pages where pages are too long for its embedder
    (NarrativeQA). That is not needed here: :func:`~longform_evals.models.embeddings.
    load_embedder` embeds a long text as the mean of its pieces, so every part of a page
    counts, and pages are embedded as they are. Page vectors are computed once per document.

    Args:
        k: Pages to retrieve.
        embedder: Name for :func:`~longform_evals.models.embeddings.load_embedder` (the
            packaged all-MiniLM-L6-v2 by default; needs the ``embed`` extra).
        (others as in :func:`bm25_pages`)
    """
    answer = settings or ReadingSettings()
    paging = _page_settings(k, min_words, max_words, answer)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, pages = await paged_run(state, "embedding", paging, answer)

        async def page_vectors() -> list[list[float]]:
            return await anyio.to_thread.run_sync(embed_texts, pages.pages, embedder)

        vectors = await memoized(run.model, f"vectors:{embedder}:{pages.key}", page_vectors)
        [query] = await anyio.to_thread.run_sync(embed_texts, [run.question], embedder)
        sims = [sum(q * v for q, v in zip(query, vec, strict=True)) for vec in vectors]
        ranked = sorted(range(len(sims)), key=lambda i: (-sims[i], i))
        run.info["similarities"] = [round(s, 4) for s in sims]
        return await _answer_from(run, pages, sorted(ranked[:k]))

    return solve
