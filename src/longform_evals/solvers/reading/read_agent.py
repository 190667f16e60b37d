"""ReadAgent readers (papers/001, §3): answer a question about a long document from its gist
memory, looking pages up first.

* :func:`gist_memory`: answer from the gists alone (the paper's GistMem);
* :func:`read_agent_parallel`: one call asks for up to ``max_pages`` pages ("[2, 5]"), which
  replace their gists in place before answering (ReadAgent-P);
* :func:`read_agent_sequential`: pages are asked for one at a time, each call seeing the
  pages expanded so far, until ``STOP`` or ``max_pages`` (ReadAgent-S).

Pages and gists are made once per document and shared by its questions
(:mod:`~longform_evals.solvers.reading.memory`); ``conditional=True`` shows the question while
gisting (gists are then per question). Look-up requests for pages that do not exist, beyond
the limit, already read, or replies without a page or STOP are ignored and counted in
``metadata["reading"]["lookup_fallbacks"]`` (with the reasons in ``lookup_problems``); a
parse failure never fails the sample. See :mod:`~longform_evals.solvers.reading.run` for
the metadata and cost accounting.
"""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import load_prompt
from longform_evals.solvers.reading.lookup import (
    choose_pages,
    memory_text,
    next_page,
    parse_page_request,
)
from longform_evals.solvers.reading.memory import (
    DocumentPages,
    GistMemory,
    MemorySettings,
    document_gists,
    words,
)
from longform_evals.solvers.reading.run import ANSWER_MAX_TOKENS, ReadingRun, paged_run

__all__ = ["gist_memory", "read_agent_parallel", "read_agent_sequential"]

LOOKUP_MAX_TOKENS = 512


def _context_words(gists: GistMemory, pages: DocumentPages, expanded: set[int]) -> int:
    """Document-derived words of the memory with ``expanded`` pages in place of their gists."""
    sizes = pages.page_words
    return sum(sizes[i] if i in expanded else words(g) for i, g in enumerate(gists.gists))


async def _memory(
    state: TaskState,
    strategy: str,
    settings: MemorySettings,
    temperature: float,
    answer_max_tokens: int,
) -> tuple[ReadingRun, DocumentPages, GistMemory]:
    """The question's run, with the document's pages and gists (made or reused) charged."""
    run, pages = await paged_run(state, strategy, settings, temperature, answer_max_tokens)
    gists = await document_gists(run.model, pages, run.question, settings)
    run.use_gists(gists, settings.conditional)
    return run, pages, gists


def _settings(
    min_words: int | None,
    max_words: int | None,
    conditional: bool,
    gist_max_tokens: int,
    cache: bool,
    prompts_dir: str | None,
) -> MemorySettings:
    settings = MemorySettings(
        min_words=min_words,
        max_words=max_words,
        conditional=conditional,
        gist_max_tokens=gist_max_tokens,
        cache=cache,
        prompts_dir=prompts_dir,
    )
    # Load every template now, so a bad prompts_dir fails before any sample runs.
    for name in ("paginate", "shorten", "shorten_conditional", "answer_choice", "answer_free"):
        load_prompt("read_agent", name, prompts_dir)
    return settings


@solver
def gist_memory(
    min_words: int | None = None,
    max_words: int | None = None,
    conditional: bool = False,
    temperature: float = 0.0,
    answer_max_tokens: int = ANSWER_MAX_TOKENS,
    gist_max_tokens: int = 1024,
    cache: bool = True,
    prompts_dir: str | None = None,
) -> Solver:
    """Answer from the gist memory only (GistMem).

    Args:
        min_words: Page minimum in words; None: the dataset's default
            (:data:`~longform_evals.solvers.reading.pagination.PAGE_LIMITS`).
        max_words: Page maximum in words; None: the dataset's default.
        conditional: Show the question while gisting (gists per question).
        temperature: Temperature of the answer (pagination and gisting use 0).
        answer_max_tokens: Token limit of the answer.
        gist_max_tokens: Token limit of each gist.
        cache: Cache every call with Inspect (no expiry): pagination, gists, look-ups, answer.
        prompts_dir: Optional folder overriding ``read_agent/`` templates.
    """
    settings = _settings(min_words, max_words, conditional, gist_max_tokens, cache, prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, pages, gists = await _memory(
            state, "gist_memory", settings, temperature, answer_max_tokens
        )
        return await run.answer(memory_text(gists.gists, pages.pages, ()), gists.words)

    return solve


@solver
def read_agent_parallel(
    max_pages: int = 5,
    min_words: int | None = None,
    max_words: int | None = None,
    conditional: bool = False,
    temperature: float = 0.0,
    lookup_max_tokens: int = LOOKUP_MAX_TOKENS,
    answer_max_tokens: int = ANSWER_MAX_TOKENS,
    gist_max_tokens: int = 1024,
    cache: bool = True,
    prompts_dir: str | None = None,
) -> Solver:
    """ReadAgent-P: one look-up call for up to ``max_pages`` pages, then the answer.

    Args:
        max_pages: The most pages the model may read in full.
        lookup_max_tokens: Token limit of the look-up reply.
        (others as in :func:`gist_memory`)

    Raises:
        ValueError: If ``max_pages < 1``.
    """
    if max_pages < 1:
        raise ValueError(f"max_pages must be >= 1, got {max_pages}")
    settings = _settings(min_words, max_words, conditional, gist_max_tokens, cache, prompts_dir)
    lookup = load_prompt("read_agent", "lookup_parallel", prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, pages, gists = await _memory(
            state, "read_agent_p", settings, temperature, answer_max_tokens
        )
        prompt = lookup.render(
            max_pages=max_pages, memory=memory_text(gists.gists, pages.pages, ()), question=run.task
        )
        reply = await run.ask("lookup", prompt, gists.words, lookup_max_tokens)
        selection = choose_pages(parse_page_request(reply), len(pages.pages), max_pages)
        run.problems(selection.problems)
        expanded = set(selection.pages)
        run.info["pages_looked_up"] = selection.pages
        context = memory_text(gists.gists, pages.pages, expanded)
        return await run.answer(context, _context_words(gists, pages, expanded))

    return solve


@solver
def read_agent_sequential(
    max_pages: int = 6,
    min_words: int | None = None,
    max_words: int | None = None,
    conditional: bool = False,
    temperature: float = 0.0,
    lookup_max_tokens: int = LOOKUP_MAX_TOKENS,
    answer_max_tokens: int = ANSWER_MAX_TOKENS,
    gist_max_tokens: int = 1024,
    cache: bool = True,
    prompts_dir: str | None = None,
) -> Solver:
    """ReadAgent-S: ask for one page at a time, seeing the pages expanded so far, until the
    model says STOP, makes a request that cannot be served (counted), or has read
    ``max_pages`` pages; then answer.

    Args:
        max_pages: The most pages the model may read in full.
        lookup_max_tokens: Token limit of each look-up reply.
        (others as in :func:`gist_memory`)

    Raises:
        ValueError: If ``max_pages < 1``.
    """
    if max_pages < 1:
        raise ValueError(f"max_pages must be >= 1, got {max_pages}")
    settings = _settings(min_words, max_words, conditional, gist_max_tokens, cache, prompts_dir)
    lookup = load_prompt("read_agent", "lookup_sequential", prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, pages, gists = await _memory(
            state, "read_agent_s", settings, temperature, answer_max_tokens
        )
        order: list[int] = []
        expanded: set[int] = set()
        while len(order) < max_pages:
            prompt = lookup.render(
                memory=memory_text(gists.gists, pages.pages, expanded),
                question=run.task,
                expanded=", ".join(str(p) for p in order) if order else "none",
                remaining=max_pages - len(order),
            )
            context_words = _context_words(gists, pages, expanded)
            reply = await run.ask("lookup", prompt, context_words, lookup_max_tokens)
            page, problems = next_page(parse_page_request(reply), len(pages.pages), expanded)
            run.problems(problems)
            if page is None:
                break
            order.append(page)
            expanded.add(page)
            run.info["pages_looked_up"] = list(order)
        context = memory_text(gists.gists, pages.pages, expanded)
        return await run.answer(context, _context_words(gists, pages, expanded))

    return solve
