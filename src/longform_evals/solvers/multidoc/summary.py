"""Multi-document summarization strategies against positional bias (Wan et al., "On
Positional Bias of Faithfulness for Long-form Summarization", §5).

One solver, :func:`multidoc_summary`, with a ``strategy``:

* ``plain``: all documents in one call, each under a ``Document i:`` header;
* ``focus_top`` / ``focus_middle`` / ``focus_bottom``: the plain prompt plus an instruction
  to give particular care to the documents at that position (§5.1 "Focus Prompt");
* ``hierarchical_pairwise``: summarize each document, then merge two summaries at a time,
  level by level, until one is left; ``hierarchical_one_pass``: summarize each document,
  then merge all summaries in one call (§5.1 "Hierarchical Merging");
* ``incremental``: summarize the first document, then update the running summary with each
  next document in order (§5.1 "Incremental Updating");
* ``calibration``: summarize ``k`` random permutations of the document order with the plain
  prompt, then combine the ``k`` summaries (§5.1 "Calibration"; the paper uses every
  permutation, which is what happens when ``k >= n!``).

The units are whole documents (the paper's natural boundaries), not token chunks, so the
BooookScore solvers (which chunk one long text and use story prompts) are not reused; the
call, retry and trace machinery (:class:`~longform_evals.solvers.common.recording.SummaryRun`) is.
Documents that do not fit ``context_window`` (with the prompt and the summary's tokens) are
cut at their ends, the budget shared fairly among them (short documents whole, the rest an
equal share each), so truncation never favours one position; the tokens dropped are counted in
``summary_stats["truncated_tokens"]`` and listed per call in ``metadata["multidoc"]
["truncation"]``.

Documents come from ``metadata["documents"]`` (else ``metadata["document"]`` or the input as
one document). The summary goes to ``state.output`` and ``metadata["summary"]``; every
intermediate summary to ``metadata["summary_trace"]``; ``metadata["multidoc"]`` records the
strategy and, for calibration, the permutations used.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from longform_evals.data.multidoc import sample_documents
from longform_evals.prompts import PromptTemplate, load_prompt
from longform_evals.solvers.common.recording import Outcome, Step, SummaryRun
from longform_evals.solvers.common.summary_limits import SAFETY_TOKENS, word_limit
from longform_evals.solvers.common.truncation import fit_documents
from longform_evals.solvers.costs import (
    StrategyCost,
    one_call_cost,
    per_document_cost,
    permutations_cost,
    updating_cost,
)
from longform_evals.solvers.settings import MultidocSettings
from longform_evals.solvers.summarize.merge_packing import join_summaries
from longform_evals.text import get_tokenizer, join_documents

__all__ = [
    "MULTIDOC_SHAPES",
    "MULTIDOC_STRATEGIES",
    "MultidocShape",
    "calibration_orders",
    "join_documents",
    "multidoc_summary",
]

_LABEL = re.compile(r"^\s*(?:revised\s+)?summary\s*:\s*", re.IGNORECASE)


def calibration_orders(n_docs: int, k: int, rng: random.Random) -> list[list[int]]:
    """``k`` distinct random orders of ``n_docs`` documents, or all ``n!`` when ``k >= n!``."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n_docs <= 8 and k >= math.factorial(n_docs):
        return [list(p) for p in itertools.permutations(range(n_docs))]
    seen: set[tuple[int, ...]] = set()
    orders: list[list[int]] = []
    while len(orders) < k:
        order = list(range(n_docs))
        rng.shuffle(order)
        if tuple(order) not in seen:
            seen.add(tuple(order))
            orders.append(order)
    return orders


def _strip_label(text: str) -> str:
    # The prompts end with "Summary:"; some models repeat the label in their answer.
    return _LABEL.sub("", text, count=1).strip() or text.strip()


@dataclass(frozen=True)
class _Multidoc:
    """The solver's fixed configuration: strategy, prompts, limits and token budgets."""

    strategy: str
    full: PromptTemplate
    focus: str
    """The focus instruction (with its leading space) of a `focus_*` strategy, else empty."""
    document_prompt: PromptTemplate
    merge_prompt: PromptTemplate
    update_prompt: PromptTemplate
    combine_prompt: PromptTemplate
    limit: int
    """Words the prompts ask for."""
    count: Callable[[str], int]
    room: int
    """Tokens of a call left for the prompt and its documents."""
    overheads: dict[str, int]
    """Tokens of each document-reading prompt without its documents."""
    max_summary_tokens: int
    temperature: float
    max_tries: int
    k: int
    seed: int


def _multidoc_setup(strategy: str, settings: MultidocSettings, k: int, seed: int) -> _Multidoc:
    """Check the arguments of :func:`multidoc_summary` and load its prompts."""
    if strategy not in MULTIDOC_STRATEGIES:
        raise ValueError(
            f"unknown strategy {strategy!r}; use one of {', '.join(MULTIDOC_STRATEGIES)}"
        )
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    prompts_dir, max_summary_tokens = settings.prompts_dir, settings.max_summary_tokens
    full = load_prompt("multidoc", "full", prompts_dir)
    focus = ""
    if strategy.startswith("focus_"):
        focus = " " + load_prompt("multidoc", strategy, prompts_dir).render()
    document_prompt = load_prompt("multidoc", "document", prompts_dir)
    merge_prompt = load_prompt("multidoc", "merge", prompts_dir)
    update_prompt = load_prompt("multidoc", "update", prompts_dir)
    combine_prompt = load_prompt("multidoc", "combine", prompts_dir)
    limit = word_limit(max_summary_tokens)
    count = get_tokenizer(settings.tokenizer).count
    room = settings.context_window - max_summary_tokens - SAFETY_TOKENS
    overheads = {
        "full": count(full.render(n_docs=99, documents="", focus=focus, word_limit=limit)),
        "document": count(document_prompt.render(text="", word_limit=limit)),
        "update": count(update_prompt.render(summary="", text="", word_limit=limit)),
    }
    if room - max(overheads.values()) <= 0:
        raise ValueError(
            f"context_window={settings.context_window} leaves no room for documents after the "
            f"prompt ({max(overheads.values())} tokens) and max_summary_tokens={max_summary_tokens}"
        )
    return _Multidoc(
        strategy=strategy,
        full=full,
        focus=focus,
        document_prompt=document_prompt,
        merge_prompt=merge_prompt,
        update_prompt=update_prompt,
        combine_prompt=combine_prompt,
        limit=limit,
        count=count,
        room=room,
        overheads=overheads,
        max_summary_tokens=max_summary_tokens,
        temperature=settings.temperature,
        max_tries=settings.max_tries,
        k=k,
        seed=seed,
    )


@dataclass(frozen=True)
class _Calls:
    """The model calls of one sample: each prompt's documents cut to fit, the cuts recorded."""

    setup: _Multidoc
    run: SummaryRun
    info: dict[str, Any]
    """`metadata["multidoc"]` of the sample."""
    cuts: list[dict[str, Any]] = field(default_factory=list)

    def fit(self, call: str, docs: Sequence[str], budget: int) -> list[str]:
        """The documents cut to `budget` tokens together, the cut recorded."""
        if len(docs) > 1:  # the "Document i:" headers take room too
            budget -= self.setup.count(join_documents([""] * len(docs)))
        kept, dropped = fit_documents(list(docs), max(0, budget), self.run.tokenizer)
        if any(dropped):
            stats = self.run.stats
            stats["truncated_tokens"] = int(stats["truncated_tokens"]) + sum(dropped)
            self.cuts.append({"call": call, "dropped_tokens": dropped})
        return kept

    async def call(self, render: Callable[[int], str], step: Step) -> Outcome:
        """One summary from the prompt `render` makes for a word limit (trace step `step`)."""
        setup = self.setup
        outcome = await self.run.generate(
            render,
            setup.limit,
            step=step,
            max_tokens=setup.max_summary_tokens,
            temperature=setup.temperature,
            max_tries=setup.max_tries,
            check_limit=setup.limit,
        )
        outcome.text = _strip_label(outcome.text)
        return outcome

    def full_render(self, docs: Sequence[str]) -> Callable[[int], str]:
        """The prompt of all `docs` in one call."""
        setup = self.setup
        text = join_documents(self.fit("full", docs, setup.room - setup.overheads["full"]))
        return lambda w: setup.full.render(
            n_docs=len(docs), documents=text, focus=setup.focus, word_limit=w
        )

    def doc_render(self, text: str) -> Callable[[int], str]:
        """The prompt of one document."""
        setup = self.setup
        [text] = self.fit("document", [text], setup.room - setup.overheads["document"])
        return lambda w: setup.document_prompt.render(text=text, word_limit=w)

    def update_render(self, current: str, text: str) -> Callable[[int], str]:
        """The prompt updating the summary `current` with a document."""
        setup = self.setup
        budget = setup.room - setup.overheads["update"] - setup.count(current)
        [text] = self.fit("update", [text], budget)
        return lambda w: setup.update_prompt.render(summary=current, text=text, word_limit=w)

    @staticmethod
    def list_render(template: PromptTemplate, parts: Sequence[str]) -> Callable[[int], str]:
        """The prompt of `template` over numbered summaries."""
        text = join_summaries(parts)
        return lambda w: template.render(summaries=text, word_limit=w)


async def _plain(calls: _Calls, documents: list[str]) -> str:
    """`plain` and `focus_*`: all documents in one call."""
    outcome = await calls.call(calls.full_render(documents), "full")
    calls.run.record("full", 0, 0, outcome)
    return outcome.text


async def _merge_level(calls: _Calls, summaries: list[str], group: int, level: int) -> list[str]:
    """One level of hierarchical merging: each `group` of neighbours merged in one call (all
    calls at once), a group of one moving up unchanged."""
    groups = [summaries[i : i + group] for i in range(0, len(summaries), group)]
    merge_prompt = calls.setup.merge_prompt
    merged = await collect(
        *(calls.call(calls.list_render(merge_prompt, g), "merge") for g in groups if len(g) > 1)
    )
    it = iter(merged)
    nxt: list[str] = []
    for index, g in enumerate(groups):
        if len(g) == 1:
            nxt.append(g[0])
        else:
            o = next(it)
            calls.run.record("merge", level, index, o)
            nxt.append(o.text)
    return nxt


async def _hierarchical(calls: _Calls, documents: list[str]) -> str:
    """`hierarchical_*`: summarize each document (all at once), then merge level by level."""
    outcomes = await collect(*(calls.call(calls.doc_render(d), "chunk") for d in documents))
    for i, o in enumerate(outcomes):
        calls.run.record("chunk", 0, i, o)
    summaries = [o.text for o in outcomes]
    # One pass merges everything at once; pairwise merges neighbours, an odd last
    # summary moving up unchanged, so document order is kept at every level.
    group = len(summaries) if calls.setup.strategy == "hierarchical_one_pass" else 2
    level = 0
    while len(summaries) > 1:
        level += 1
        summaries = await _merge_level(calls, summaries, group, level)
    calls.info["levels"] = level
    return summaries[0]


async def _incremental(calls: _Calls, documents: list[str]) -> str:
    """`incremental`: summarize the first document, then update with each next one."""
    summary = ""
    for i, doc in enumerate(documents):
        if i == 0:
            outcome = await calls.call(calls.doc_render(doc), "chunk")
        else:
            outcome = await calls.call(calls.update_render(summary, doc), "update")
        calls.run.record("chunk" if i == 0 else "update", 0, i, outcome)
        summary = outcome.text
    return summary


async def _calibration(calls: _Calls, documents: list[str], sample_id: int | str) -> str:
    """`calibration`: summarize `k` document orders (all at once), then combine them."""
    setup = calls.setup
    rng = random.Random(f"{setup.seed}:{sample_id}")
    orders = calibration_orders(len(documents), setup.k, rng)
    calls.info["permutations"] = orders
    outcomes = await collect(
        *(calls.call(calls.full_render([documents[i] for i in order]), "full") for order in orders)
    )
    for i, o in enumerate(outcomes):
        calls.run.record("full", 0, i, o)
    if len(outcomes) == 1:
        return outcomes[0].text
    render = calls.list_render(setup.combine_prompt, [o.text for o in outcomes])
    outcome = await calls.call(render, "merge")
    calls.run.record("merge", 1, 0, outcome)
    return outcome.text


Run = Callable[[_Calls, list[str], int | str], Awaitable[str]]


async def _one_call(calls: _Calls, documents: list[str], sample_id: int | str) -> str:
    return await _plain(calls, documents)


async def _merged(calls: _Calls, documents: list[str], sample_id: int | str) -> str:
    return await _hierarchical(calls, documents)


async def _updated(calls: _Calls, documents: list[str], sample_id: int | str) -> str:
    return await _incremental(calls, documents)


@dataclass(frozen=True)
class MultidocShape:
    """One multi-document strategy: how it runs, what it costs (`solvers/costs.py`), the step
    kinds of its calls and the options a user may set (with their values when unset). The
    strategy registry (`solvers/strategies.py`) makes an entry of each."""

    run: Run
    cost: StrategyCost
    steps: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


_UNITS = ("chunk_summary", "merge", "update", "full_summary")
_ONE_CALL = MultidocShape(_one_call, one_call_cost, ("full_summary",))

MULTIDOC_SHAPES: dict[str, MultidocShape] = {
    "plain": _ONE_CALL,
    "focus_top": _ONE_CALL,
    "focus_middle": _ONE_CALL,
    "focus_bottom": _ONE_CALL,
    "hierarchical_pairwise": MultidocShape(_merged, per_document_cost(lambda n: n - 1), _UNITS),
    "hierarchical_one_pass": MultidocShape(
        _merged, per_document_cost(lambda n: 1 if n > 1 else 0), _UNITS
    ),
    "incremental": MultidocShape(_updated, updating_cost, _UNITS),
    "calibration": MultidocShape(_calibration, permutations_cost, _UNITS, {"k": 3, "seed": 0}),
}
"""The multi-document strategies, the one list of their names (module docstring)."""
MULTIDOC_STRATEGIES: tuple[str, ...] = tuple(MULTIDOC_SHAPES)


@solver
def multidoc_summary(
    strategy: str = "plain", settings: MultidocSettings | None = None, k: int = 3, seed: int = 0
) -> Solver:
    """Summarize a sample's documents with one of the §5 strategies.

    Args:
        strategy: One of :data:`MULTIDOC_STRATEGIES` (see the module docstring).
        settings: Summary length, context window (documents are cut to fit: see the module
            docstring), temperature, tries, tokenizer, templates and caching (keyed by
            sample, epoch and try, so a rerun or ``inspect eval-retry`` repeats no finished
            step).
        k: Calibration only: number of document orders summarized before combining.
        seed: Calibration only: seed of the permutations (mixed with the sample id, so
            each sample gets its own, reproducible orders).

    Returns:
        A solver that puts the summary in ``state.output`` and ``metadata["summary"]``.

    Raises:
        ValueError: On an unknown strategy, ``k < 1``, or a window too small for the prompt
            and the summary.
    """
    chosen = settings or MultidocSettings()
    setup = _multidoc_setup(strategy, chosen, k, seed)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        documents = sample_documents(state.metadata, state.sample_id, default=state.input_text)
        run = SummaryRun(
            state,
            f"multidoc_{strategy}",
            chosen.tokenizer,
            ("documents", "truncated_tokens"),
            chosen.cache,
        )
        run.stats["documents"] = len(documents)
        info: dict[str, Any] = {"strategy": strategy, "n_docs": len(documents)}
        state.metadata["multidoc"] = info
        calls = _Calls(setup, run, info)
        summary = await MULTIDOC_SHAPES[strategy].run(calls, documents, state.sample_id)
        if calls.cuts:
            info["truncation"] = calls.cuts
        run.finish(summary)
        return state

    return solve
