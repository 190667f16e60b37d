"""Per-document reading work, computed once and shared by every question on the document:
pages (ReadAgent pagination), gists (ReadAgent gisting) and page vectors (retrieval).

Samples of the same document run concurrently, so each result is memoized in process under
a key of everything it depends on (model, document hash, page limits, prompt texts,
generation settings, epoch, and the question for conditional gists), with a lock per key:
the first sample computes, the others wait for it. The memo is kept per model instance
(weakly) and per run (the log the sample writes), so separate runs never share it: a run's
calls and tokens per sample are the same whichever process ran it and whatever that process
ran before (a plan's cells of one model in one process would otherwise reuse each other's
pages, and cost less than the same cells run elsewhere). Each epoch is its own replicate.
Pagination and gisting calls also go through Inspect's cache (temperature 0, no expiry), so a
rerun of the same evaluation makes no new calls (a call answered from the cache still counts
as one in the run's cost).

Each result carries the prompt words its calls took, so that every question can be charged
its share of the document's cost whether it computed the result or reused it. Their tokens
(:mod:`longform_evals.models.step_usage`) go to the sample that made the calls only, so a sum
over samples counts each call once.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import anyio
from inspect_ai.model import GenerateConfig, Model, ModelAPI
from inspect_ai.util import collect

from longform_evals.inspect_private import active_run
from longform_evals.models.calls import generate
from longform_evals.models.step_usage import register_step_kind
from longform_evals.prompts import load_prompt
from longform_evals.solvers.common.summary_limits import count_words
from longform_evals.solvers.reading.pagination import Window, page_limits, paginate
from longform_evals.text.sentences import sentence_spans

__all__ = [
    "GIST",
    "PAGINATION",
    "DocumentPages",
    "GistMemory",
    "MemorySettings",
    "clear_reading_cache",
    "document_gists",
    "document_pages",
    "drop_unfinished_sentence",
    "gist_token_cap",
    "gist_word_limit",
    "memoized",
    "words",
]

T = TypeVar("T")

PAGINATION: Final = register_step_kind("pagination", "ReadAgent's choice of a page break")
GIST: Final = register_step_kind("gist", "ReadAgent's gist of one page")

_store: weakref.WeakKeyDictionary[ModelAPI, dict[str, dict[str, Any]]] = weakref.WeakKeyDictionary()
_locks: dict[tuple[int, str], anyio.Lock] = {}
_GIST_LABEL = re.compile(r"(?i)^\s*(?:shortened|short)\s+(?:version|text|page)\s*:\s*")


# Whitespace words: the unit of page limits, compression rate and cost, as of every word limit.
words = count_words


def clear_reading_cache() -> None:
    """Forget every memoized pagination, gist memory and page vector set."""
    _store.clear()
    _locks.clear()


_RUNS_KEPT = 4
"""Runs whose memo a model keeps: runs going on at once in one process share a model, and a
finished run's pages are not needed again (a plan runs thousands of cells)."""


async def memoized(model: Model, key: str, compute: Callable[[], Awaitable[T]]) -> T:
    """``compute()`` once per ``model``, run and ``key``; concurrent callers wait for the first.

    A failed computation is not stored, so the next caller tries again.
    """
    run = active_run()
    runs = _store.setdefault(model.api, {})
    store = runs.setdefault(run, {})
    while len(runs) > _RUNS_KEPT:
        del runs[next(iter(runs))]  # the oldest run's memo
    if key in store:
        return store[key]  # type: ignore[no-any-return]
    lock_key = (id(model.api), f"{run}\n{key}")
    lock = _locks.get(lock_key)
    if lock is None:
        lock = _locks[lock_key] = anyio.Lock()
    try:
        async with lock:
            if key not in store:
                store[key] = await compute()
    finally:
        # Locks live only while a value is being computed: later callers find the value,
        # and no lock outlives the event loop it was used in.
        if _locks.get(lock_key) is lock and key in store:
            del _locks[lock_key]
    return store[key]  # type: ignore[no-any-return]


def _key(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class MemorySettings:
    """How pages and gists are made (shared by every ReadAgent and retrieval solver)."""

    min_words: int | None = None
    """Page minimum; None uses the dataset's default (:data:`PAGE_LIMITS`)."""
    max_words: int | None = None
    """Page maximum; None uses the dataset's default."""
    conditional: bool = False
    """Show the question while gisting (then gists are per question)."""
    pagination_max_tokens: int = 128
    gist_max_tokens: int = 1024
    cache: bool = True
    """Use Inspect's cache for pagination and gisting calls."""
    prompts_dir: str | None = None

    def limits(self, metadata: dict[str, Any]) -> tuple[int, int]:
        """(min_words, max_words) for a sample's document."""
        return page_limits(
            metadata.get("dataset"), metadata.get("doc_kind"), self.min_words, self.max_words
        )


@dataclass(frozen=True)
class DocumentPages:
    """A document's pages and what finding them took."""

    key: str
    pages: list[str]
    min_words: int
    max_words: int
    calls: int
    prompt_words: int
    fallbacks: int
    forced: int
    fallback_answers: list[str] = field(default_factory=list)

    @property
    def page_words(self) -> list[int]:
        return [words(p) for p in self.pages]


@dataclass(frozen=True)
class GistMemory:
    """The gists of a document's pages, in page order, and what making them took."""

    gists: list[str]
    calls: int
    prompt_words: int
    empty: int
    """Gists that came back empty (kept empty; the page can still be looked up)."""
    cut: int = 0
    """Gists stopped by the token cap (kept as they are)."""

    @property
    def words(self) -> int:
        return sum(words(g) for g in self.gists)


GIST_RATIO = 0.15
"""A gist is asked to keep at most this share of its page's words (at least 20). The paper's
prompt names no length (its QuALITY gists came out at 650 words for 4,122-word articles, about
16 %); small models then often copy the page, so the prompt states one. With 0.2 the
embedded 1.5B model's QuALITY gists kept 21 % of the words (docs/reading.md)."""

GIST_TOKENS_PER_WORD = 1.5
"""Token cap of a gisting call per word asked for (plus a few tokens of slack). English runs
about 1.3 tokens a word, so a gist may overrun its word limit by some 15 % before it is
stopped. The embedded 1.5B model overruns most limits it is given; with a cap of twice the
words, its QuALITY gists kept 30 % of the text and ReadAgent-P read more words per question
than the full text did."""


def gist_word_limit(page: str) -> int:
    """Words a page's gist may have."""
    return max(20, round(GIST_RATIO * words(page)))


def gist_token_cap(page: str, max_tokens: int) -> int:
    """Token limit of the call that gists ``page`` (never above ``max_tokens``)."""
    return min(max_tokens, math.ceil(GIST_TOKENS_PER_WORD * gist_word_limit(page)) + 8)


_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*\s*$")


def drop_unfinished_sentence(text: str) -> str:
    """A gist stopped by its token cap, without the sentence the cap broke off; kept as it is
    when it ends a sentence or has only one."""
    if _SENTENCE_END.search(text):
        return text
    spans = sentence_spans(text, by_line=True)
    if len(spans) < 2:
        return text
    return text[: spans[-2][1]].rstrip()


async def document_pages(
    model: Model, document: str, metadata: dict[str, Any], epoch: int, settings: MemorySettings
) -> DocumentPages:
    """The document's pages, memoized (see the module docstring)."""
    low, high = settings.limits(metadata)
    template = load_prompt("read_agent", "paginate", settings.prompts_dir)
    config = GenerateConfig(temperature=0.0, max_tokens=settings.pagination_max_tokens)
    key = _key(
        "pages",
        str(model),
        hashlib.sha256(document.encode()).hexdigest(),
        low,
        high,
        template.text,
        settings.pagination_max_tokens,
        epoch,
    )

    async def compute() -> DocumentPages:
        prompt_words = 0

        async def choose(passage: str, window: Window) -> str:
            nonlocal prompt_words
            prompt = template.render(passage=passage)
            prompt_words += words(prompt)
            output = await generate(model, prompt, config, step=PAGINATION, cache=settings.cache)
            return output.completion

        result = await paginate(document, low, high, choose)
        return DocumentPages(
            key=key,
            pages=result.pages,
            min_words=low,
            max_words=high,
            calls=result.calls,
            prompt_words=prompt_words,
            fallbacks=result.fallbacks,
            forced=result.forced,
            fallback_answers=result.answers,
        )

    return await memoized(model, key, compute)


async def document_gists(
    model: Model, pages: DocumentPages, question: str, settings: MemorySettings
) -> GistMemory:
    """The gists of ``pages`` (one call per page, concurrently), memoized; with
    ``settings.conditional`` the question is shown and is part of the key."""
    name = "shorten_conditional" if settings.conditional else "shorten"
    template = load_prompt("read_agent", name, settings.prompts_dir)
    asked = question if settings.conditional else None
    key = _key(
        "gists",
        pages.key,
        template.text,
        settings.gist_max_tokens,
        GIST_RATIO,
        GIST_TOKENS_PER_WORD,
        asked,
    )

    def render(page: str) -> str:
        limit = gist_word_limit(page)
        if settings.conditional:
            return template.render(page=page, question=question, word_limit=limit)
        return template.render(page=page, word_limit=limit)

    async def gist(page: str) -> tuple[str, bool]:
        # Small models overrun the word limit or copy the page and keep going; the token cap
        # stops them, the broken-off sentence is dropped, and such gists are counted.
        config = GenerateConfig(
            temperature=0.0, max_tokens=gist_token_cap(page, settings.gist_max_tokens)
        )
        output = await generate(model, render(page), config, step=GIST, cache=settings.cache)
        text = _GIST_LABEL.sub("", output.completion, count=1).strip()
        cut = output.stop_reason in ("max_tokens", "model_length")
        return (drop_unfinished_sentence(text) if cut else text), cut

    async def compute() -> GistMemory:
        results = await collect(*(gist(p) for p in pages.pages))
        gists = [g for g, _ in results]
        return GistMemory(
            gists=gists,
            calls=len(gists),
            prompt_words=sum(words(render(p)) for p in pages.pages),
            empty=sum(1 for g in gists if not g),
            cut=sum(1 for _, was_cut in results if was_cut),
        )

    return await memoized(model, key, compute)
