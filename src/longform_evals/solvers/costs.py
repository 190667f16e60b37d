"""Rough calls and tokens of the built-in strategies, for ``longform run --dry-run``.

Each strategy's entry in the registry (`solvers/strategies.py`) names its cost function here:
given the token count of each of a sample's documents, the number of questions asked about
that document and the task's arguments as the run resolves them (`TaskCard.completed`: every
option a run would use is there, so nothing here guesses a default), it returns the calls and
tokens the strategy makes, with the calls per step kind the run's log tallies them under.
The figures come from the strategy's known shape (one call per chunk, merges packed into the
context window, a gist per page...); the lengths of model outputs are guesses (the cap, or a
typical answer), so an estimate is an order of magnitude to budget a run with. Work a strategy
shares between the questions of one document (pages and gists) is divided among them, as the
strategies reuse it. Judge calls are the tasks' (`tasks/costs.py`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ANSWER_TOKENS",
    "PROMPT_TOKENS",
    "TOKENS_PER_WORD",
    "Cost",
    "StrategyCost",
    "calls",
    "summary_cap",
    "summary_shape",
]

PROMPT_TOKENS = 250
"""Instructions around the text in a strategy's call (a typical template)."""
TOKENS_PER_WORD = 1.3
ANSWER_TOKENS = 32


@dataclass(frozen=True)
class Cost:
    """Calls and tokens of one sample (model and judge apart), and the calls per step kind
    (`models/step_usage.py`), which is how a run's log tallies them."""

    calls: float = 0.0
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    judge_calls: float = 0.0
    judge_input_tokens: float = 0.0
    steps: Mapping[str, float] = field(default_factory=dict)
    """Calls per step kind, where the cost function names them (a run records the same kinds
    in ``EvalSample.store["longform_step_usage"]``)."""

    def __add__(self, other: Cost) -> Cost:
        steps = dict(self.steps)
        for kind, n in other.steps.items():
            steps[kind] = steps.get(kind, 0.0) + n
        return Cost(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.judge_calls + other.judge_calls,
            self.judge_input_tokens + other.judge_input_tokens,
            steps,
        )

    def scaled(self, k: float) -> Cost:
        return Cost(
            self.calls * k,
            self.input_tokens * k,
            self.output_tokens * k,
            self.judge_calls * k,
            self.judge_input_tokens * k,
            {kind: n * k for kind, n in self.steps.items()},
        )


StrategyCost = Callable[[Sequence[int], int, Mapping[str, Any]], Cost]
"""(tokens of each document, questions on the document, task arguments) -> the strategy's
calls and tokens for one sample."""


def calls(n: float, each_in: float, each_out: float, step: str | None = None) -> Cost:
    """``n`` calls, each reading ``each_in`` tokens of text (plus a prompt) and writing
    ``each_out``, tallied under the step kind ``step`` where it is named."""
    steps = {step: float(n)} if step is not None and n else {}
    return Cost(n, n * (each_in + PROMPT_TOKENS), n * each_out, steps=steps)


def judge_calls(n: float, each_in: float) -> Cost:
    """``n`` judge calls, each reading ``each_in`` tokens (tallied under ``judge``)."""
    steps = {"judge": float(n)} if n else {}
    return Cost(judge_calls=n, judge_input_tokens=n * each_in, steps=steps)


# Summaries of one long text.


def summary_shape(args: Mapping[str, Any]) -> tuple[int, int, int]:
    """Chunk size, context window and summary cap in tokens: ``max_summary_tokens`` where the
    task has it, else ``target_words`` in tokens."""
    cap = args.get("max_summary_tokens")
    if cap is None:
        cap = math.ceil(int(args["target_words"]) * TOKENS_PER_WORD)
    return int(args["chunk_size"]), int(args["context_window"]), int(cap)


def summary_cap(args: Mapping[str, Any]) -> int:
    """The summary's length in tokens that a summary strategy is asked for (see
    :func:`summary_shape`)."""
    return summary_shape(args)[2]


def _chunks(docs: Sequence[int], chunk: int) -> int:
    return max(1, math.ceil(sum(docs) / chunk))


def full_summary_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """One call over the text that fits the window."""
    _, window, cap = summary_shape(args)
    return calls(1, min(sum(docs), window - cap), cap, "full_summary")


def incremental_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The first chunk summarized, then one update per further chunk, each reading the chunk
    and the running summary (compressions when a summary outgrows its cap are not counted:
    they depend on what the model writes)."""
    chunk, _, cap = summary_shape(args)
    n = _chunks(docs, chunk)
    return calls(1, chunk, cap, "chunk_summary") + calls(n - 1, chunk + cap, cap, "update")


def hierarchical_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """Chunk summaries, then merges of as many summaries as fit the window, level by level."""
    chunk, window, cap = summary_shape(args)
    chunks = _chunks(docs, chunk)
    each = min(cap, chunk // 2)
    fan_in = max(2, (window - cap - PROMPT_TOKENS) // max(1, each))
    cost, level = calls(chunks, chunk, each, "chunk_summary"), chunks
    while level > 1:
        groups = math.ceil(level / fan_in)
        cost += calls(groups, min(level, fan_in) * each, cap, "merge")
        level = groups
    return cost


# Answers to a question about one long text.


def _answer(read: float) -> Cost:
    return calls(1, read, ANSWER_TOKENS, "answer")


def _pages(docs: Sequence[int], args: Mapping[str, Any]) -> tuple[int, float]:
    """Pages of the document and tokens per page: ``max_words`` is the page size the task
    resolved for this document (`tasks/costs.py` reads it from the sample's dataset)."""
    page = int(args["max_words"]) * TOKENS_PER_WORD
    return max(1, math.ceil(sum(docs) / page)), page


def _paginated(pages: int, page: float, per_doc: int) -> Cost:
    """A break chosen for each page but the last (whose window holds the rest of the text),
    shared by the document's questions."""
    return calls(pages - 1, page, 4, "pagination").scaled(1 / max(1, per_doc))


def full_text_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The answer, reading the whole text."""
    return _answer(sum(docs))


def truncated_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The answer, reading the ``words`` kept."""
    return _answer(min(sum(docs), int(args["words"]) * TOKENS_PER_WORD))


def retrieved_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The document paginated (shared by its questions), then the answer, reading the ``k``
    pages retrieved."""
    pages, page = _pages(docs, args)
    return _paginated(pages, page, per_doc) + _answer(min(sum(docs), int(args["k"]) * page))


def gist_cost(lookups: Callable[[int], int], expands: bool) -> StrategyCost:
    """The cost of a gist-memory reader: pagination and a gist per page (shared by the
    document's questions), then ``lookups(max_pages)`` look-up calls (where the reader
    ``expands`` pages: at most, as a sequential reader may stop early) and the answer,
    reading the gists and the pages expanded."""

    def cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
        pages, page = _pages(docs, args)
        shared = _paginated(pages, page, per_doc) + calls(pages, page, page * 0.15, "gist").scaled(
            1 / max(1, per_doc)
        )
        memory = pages * page * 0.15
        expanded = min(pages, int(args["max_pages"])) if expands else 0
        own = calls(lookups(expanded), memory, 16, "lookup") if expands else Cost()
        return shared + own + _answer(memory + expanded * page)

    return cost


# Summaries of several documents (whole documents are the units).


def _multidoc_cap(args: Mapping[str, Any]) -> int:
    return int(args["max_summary_tokens"])


def one_call_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """Every document in one call."""
    return calls(1, sum(docs), _multidoc_cap(args), "full_summary")


def per_document_cost(merges: Callable[[int], int]) -> StrategyCost:
    """A summary per document, then ``merges(number of documents)`` merge calls, each
    reading two or more summaries."""

    def cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
        cap = _multidoc_cap(args)
        n = max(1, len(docs))
        return calls(n, sum(docs) / n, cap, "chunk_summary") + calls(
            merges(n), 2 * cap, cap, "merge"
        )

    return cost


def updating_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The first document summarized, then one update per further document, each reading it
    and the running summary."""
    cap = _multidoc_cap(args)
    n = max(1, len(docs))
    each = sum(docs) / n
    return calls(1, each, cap, "chunk_summary") + calls(n - 1, each + cap, cap, "update")


def permutations_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """``k`` one-call summaries in shuffled orders, then one call combining them."""
    cap, k = _multidoc_cap(args), int(args["k"])
    return calls(k, sum(docs), cap, "full_summary") + calls(1, k * cap, cap, "merge")
