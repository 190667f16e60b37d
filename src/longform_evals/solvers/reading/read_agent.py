"""ReadAgent readers ("A Human-Inspired Reading Agent with Gist Memory of Very Long
Contexts", arXiv:2402.09727, §3): answer a question about a long document from its gist
memory, looking pages up first.

* :func:`gist_memory`: answer from the gists alone (the paper's GistMem);
* :func:`read_agent_parallel`: one call asks for up to ``max_pages`` pages ("[2, 5]"), then
  the answer (ReadAgent-P). In the paper the pages replace their gists in place in a new
  answer prompt (``layout="in_place"``); by default (``layout="follow_up"``) the answer is a
  second turn of the look-up conversation that shows only the pages asked for, so the memory
  is a prefix the model has already read (a prefix-caching model reads it once, and the
  question is charged once: see ``words_consumed`` in :mod:`.run`);
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

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import PromptTemplate, load_prompt
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
from longform_evals.solvers.reading.run import ReadingRun, paged_run
from longform_evals.solvers.settings import ReadingSettings

__all__ = ["gist_memory", "read_agent_parallel", "read_agent_sequential"]

LOOKUP_MAX_TOKENS = 512

_TEMPLATES = (
    "paginate",
    "shorten",
    "shorten_conditional",
    "answer_choice",
    "answer_free",
    "answer_choice_pages",
    "answer_free_pages",
)
"""The ``read_agent/`` templates every reader uses (look-up templates aside)."""

AnswerLayout = Literal["follow_up", "in_place"]
"""How a ReadAgent reader answers after its look-up (see the module docstring)."""


def pages_text(pages: DocumentPages, expanded: set[int], no_pages: str) -> str:
    """The ``expanded`` pages in full, each headed by its page tag, in page order; the
    ``no_pages`` text when the look-up asked for none."""
    shown = [f"<Page {i}>\n{pages.pages[i]}" for i in sorted(expanded)]
    return "\n\n".join(shown) if shown else no_pages


def _context_words(gists: GistMemory, pages: DocumentPages, expanded: set[int]) -> int:
    """Document-derived words of the memory with ``expanded`` pages in place of their gists."""
    sizes = pages.page_words
    return sum(sizes[i] if i in expanded else words(g) for i, g in enumerate(gists.gists))


@dataclass(frozen=True)
class _Reader:
    """What a reader was built with: how its memory is made and how it answers."""

    strategy: str
    memory: MemorySettings
    answer: ReadingSettings

    @classmethod
    def of(cls, strategy: str, settings: ReadingSettings | None, **memory: Any) -> _Reader:
        """The reader of ``settings`` and its memory options; every template is loaded now,
        so a bad ``prompts_dir`` fails before any sample runs."""
        answer = settings or ReadingSettings()
        made = MemorySettings(**memory, cache=answer.cache, prompts_dir=answer.prompts_dir)
        for name in _TEMPLATES:
            load_prompt("read_agent", name, made.prompts_dir)
        return cls(strategy, made, answer)

    async def start(self, state: TaskState) -> tuple[ReadingRun, DocumentPages, GistMemory]:
        """The question's run, with the document's pages and gists (made or reused) charged."""
        run, pages = await paged_run(state, self.strategy, self.memory, self.answer)
        gists = await document_gists(run.model, pages, run.question, self.memory)
        run.use_gists(gists, self.memory.conditional)
        return run, pages, gists


@solver
def gist_memory(
    settings: ReadingSettings | None = None,
    min_words: int | None = None,
    max_words: int | None = None,
    conditional: bool = False,
    gist_max_tokens: int = 1024,
) -> Solver:
    """Answer from the gist memory only (GistMem).

    Args:
        settings: The answer's temperature (pagination and gisting use 0) and length, the
            templates, and caching of every call (pagination, gists, look-ups, answer).
        min_words: Page minimum in words; None: the dataset's default
            (:data:`~longform_evals.solvers.reading.pagination.PAGE_LIMITS`).
        max_words: Page maximum in words; None: the dataset's default.
        conditional: Show the question while gisting (gists per question).
        gist_max_tokens: Token limit of each gist.
    """
    reader = _Reader.of(
        "gist_memory",
        settings,
        min_words=min_words,
        max_words=max_words,
        conditional=conditional,
        gist_max_tokens=gist_max_tokens,
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run, pages, gists = await reader.start(state)
        return await run.answer(memory_text(gists.gists, pages.pages, ()), gists.words)

    return solve


@dataclass(frozen=True)
class _Lookup:
    """How a ReadAgent reader asks for pages: its template and limits."""

    template: PromptTemplate
    max_pages: int
    max_tokens: int


LookUp = Callable[[ReadingRun, DocumentPages, GistMemory, _Lookup], Awaitable[set[int]]]
"""Ask the model for pages to read in full; returns the pages expanded."""


async def _look_up_parallel(
    run: ReadingRun, pages: DocumentPages, gists: GistMemory, lookup: _Lookup
) -> set[int]:
    """One call for up to ``max_pages`` pages (ReadAgent-P)."""
    prompt = lookup.template.render(
        max_pages=lookup.max_pages,
        memory=memory_text(gists.gists, pages.pages, ()),
        question=run.task,
    )
    reply = await run.ask("lookup", prompt, gists.words, lookup.max_tokens)
    selection = choose_pages(parse_page_request(reply), len(pages.pages), lookup.max_pages)
    run.problems(selection.problems)
    run.info["pages_looked_up"] = selection.pages
    return set(selection.pages)


async def _look_up_sequential(
    run: ReadingRun, pages: DocumentPages, gists: GistMemory, lookup: _Lookup
) -> set[int]:
    """One page per call, each call seeing the pages expanded so far (ReadAgent-S)."""
    order: list[int] = []
    expanded: set[int] = set()
    while len(order) < lookup.max_pages:
        prompt = lookup.template.render(
            memory=memory_text(gists.gists, pages.pages, expanded),
            question=run.task,
            expanded=", ".join(str(p) for p in order) if order else "none",
            remaining=lookup.max_pages - len(order),
        )
        context_words = _context_words(gists, pages, expanded)
        reply = await run.ask("lookup", prompt, context_words, lookup.max_tokens)
        page, problems = next_page(parse_page_request(reply), len(pages.pages), expanded)
        run.problems(problems)
        if page is None:
            break
        order.append(page)
        expanded.add(page)
        run.info["pages_looked_up"] = list(order)
    return expanded


def _read_agent(
    name: str,
    strategy: str,
    default_pages: int,
    look_up: LookUp,
    summary: str,
    layouts: tuple[AnswerLayout, ...],
) -> Callable[..., Solver]:
    """The solver ``name``: gists, pages looked up by ``look_up`` (template
    ``read_agent/lookup_<kind>``), then the answer in one of ``layouts`` (the first is the
    default). The two ReadAgent solvers differ only in the look-up, so they share this one
    signature."""

    def factory(
        settings: ReadingSettings | None = None,
        max_pages: int = default_pages,
        layout: AnswerLayout = layouts[0],
        min_words: int | None = None,
        max_words: int | None = None,
        conditional: bool = False,
        lookup_max_tokens: int = LOOKUP_MAX_TOKENS,
        gist_max_tokens: int = 1024,
    ) -> Solver:
        _check_options(name, max_pages, layout, layouts)
        reader = _Reader.of(
            strategy,
            settings,
            min_words=min_words,
            max_words=max_words,
            conditional=conditional,
            gist_max_tokens=gist_max_tokens,
        )
        kind = name.removeprefix("read_agent_")
        prompts_dir = reader.memory.prompts_dir
        template = load_prompt("read_agent", f"lookup_{kind}", prompts_dir)
        lookup = _Lookup(template, max_pages, lookup_max_tokens)
        no_pages = load_prompt("read_agent", "no_pages", prompts_dir).render().strip()

        async def solve(state: TaskState, generate: Generate) -> TaskState:
            run, pages, gists = await reader.start(state)
            expanded = await look_up(run, pages, gists, lookup)
            if layout == "follow_up":
                seen = gists.words + sum(pages.page_words[i] for i in expanded)
                return await run.answer_follow_up(pages_text(pages, expanded, no_pages), seen)
            context = memory_text(gists.gists, pages.pages, expanded)
            return await run.answer(context, _context_words(gists, pages, expanded))

        return solve

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = _factory_doc(summary, layouts)
    return solver(name=name)(factory)


def _check_options(
    name: str, max_pages: int, layout: AnswerLayout, layouts: tuple[AnswerLayout, ...]
) -> None:
    """Refuse fewer than one page, or a layout the reader ``name`` does not offer."""
    if max_pages < 1:
        raise ValueError(f"max_pages must be >= 1, got {max_pages}")
    if layout not in layouts:
        known = layout in get_args(AnswerLayout)
        raise ValueError(
            f"{name}: layout={layout!r} is "
            + ("not supported by this reader" if known else "unknown")
            + f"; use one of {', '.join(map(repr, layouts))}"
        )


def _factory_doc(summary: str, layouts: tuple[AnswerLayout, ...]) -> str:
    """The docstring of a ReadAgent solver: ``summary``, then its arguments."""
    return f"""{summary}

    Args:
        max_pages: The most pages the model may read in full.
        layout: How the answer follows the look-up: {" or ".join(map(repr, layouts))}
            (the module docstring).
        lookup_max_tokens: Token limit of each look-up reply.
        (others as in :func:`gist_memory`)

    Raises:
        ValueError: If ``max_pages < 1`` or ``layout`` is not one of the above.
    """


read_agent_parallel = _read_agent(
    "read_agent_parallel",
    "read_agent_p",
    5,
    _look_up_parallel,
    "ReadAgent-P: one look-up call for up to ``max_pages`` pages, then the answer.",
    ("follow_up", "in_place"),
)

read_agent_sequential = _read_agent(
    "read_agent_sequential",
    "read_agent_s",
    6,
    _look_up_sequential,
    "ReadAgent-S: ask for one page at a time, seeing the pages expanded so far, until the\n"
    "    model says STOP, makes a request that cannot be served (counted), or has read\n"
    "    ``max_pages`` pages; then answer from the memory with those pages in place.",
    ("in_place",),
)
