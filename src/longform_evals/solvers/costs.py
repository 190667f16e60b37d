"""Rough calls and tokens of the built-in strategies, for ``longform run --dry-run``.

Each strategy's entry in the registry (`solvers/strategies.py`) names its cost function here:
given the token count of each of a sample's documents, the number of questions asked about
that document and the task's arguments, it returns the calls and tokens the strategy makes.
The figures come from the strategy's known shape (one call per chunk, merges packed into the
context window, a gist per page...); the lengths of model outputs are guesses (the cap, or a
typical answer), so an estimate is an order of magnitude to budget a run with. Work a strategy
shares between the questions of one document (pages and gists) is divided among them, as the
strategies reuse it. Judge calls are the tasks' (`tasks/costs.py`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ANSWER_TOKENS",
    "PROMPT_TOKENS",
    "TOKENS_PER_WORD",
    "Cost",
    "StrategyCost",
    "calls",
]

PROMPT_TOKENS = 250
"""Instructions around the text in a strategy's call (a typical template)."""
TOKENS_PER_WORD = 1.3
ANSWER_TOKENS = 32


@dataclass(frozen=True)
class Cost:
    """Calls and tokens of one sample (model and judge apart)."""

    calls: float = 0.0
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    judge_calls: float = 0.0
    judge_input_tokens: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.judge_calls + other.judge_calls,
            self.judge_input_tokens + other.judge_input_tokens,
        )

    def scaled(self, k: float) -> Cost:
        return Cost(
            self.calls * k,
            self.input_tokens * k,
            self.output_tokens * k,
            self.judge_calls * k,
            self.judge_input_tokens * k,
        )


StrategyCost = Callable[[Sequence[int], int, Mapping[str, Any]], Cost]
"""(tokens of each document, questions on the document, task arguments) -> the strategy's
calls and tokens for one sample."""


def calls(n: float, each_in: float, each_out: float) -> Cost:
    """``n`` calls, each reading ``each_in`` tokens of text (plus a prompt) and writing
    ``each_out``."""
    return Cost(n, n * (each_in + PROMPT_TOKENS), n * each_out)


# Summaries of one long text.


def _summary_shape(args: Mapping[str, Any]) -> tuple[int, int, int]:
    """Chunk size, context window and summary cap in tokens, from a task's arguments."""
    chunk = int(args.get("chunk_size", 2048))
    window = int(args.get("context_window", 8192))
    cap = int(args.get("max_summary_tokens", args.get("target_words", 900) * TOKENS_PER_WORD))
    return chunk, window, cap


def full_summary_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """One call over the text that fits the window."""
    _, window, cap = _summary_shape(args)
    return calls(1, min(sum(docs), window - cap), cap)


def incremental_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """One call per chunk, each reading the chunk and the running summary."""
    chunk, _, cap = _summary_shape(args)
    return calls(max(1, math.ceil(sum(docs) / chunk)), chunk + cap, cap)


def nexus_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """Preprocess and summarize each chunk, then compress the joined summaries once."""
    chunk, _, cap = _summary_shape(args)
    chunks = max(1, math.ceil(sum(docs) / chunk))
    return calls(2 * chunks, chunk, chunk // 2) + calls(1, chunks * cap // 2, cap)


def hierarchical_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """Chunk summaries, then merges of as many summaries as fit the window, level by level."""
    chunk, window, cap = _summary_shape(args)
    chunks = max(1, math.ceil(sum(docs) / chunk))
    each = min(cap, chunk // 2)
    fan_in = max(2, (window - cap - PROMPT_TOKENS) // max(1, each))
    cost, level = calls(chunks, chunk, each), chunks
    while level > 1:
        groups = math.ceil(level / fan_in)
        cost += calls(groups, min(level, fan_in) * each, cap)
        level = groups
    return cost


# Answers to a question about one long text.


def _answer() -> Cost:
    return calls(1, 0, ANSWER_TOKENS)


def full_text_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The answer, reading the whole text."""
    return _answer() + Cost(input_tokens=sum(docs))


def truncated_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The answer, reading the ``words`` kept."""
    return _answer() + Cost(input_tokens=min(sum(docs), int(args.get("words", 3000) * 1.3)))


def retrieved_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The answer, reading the pages retrieved (about 3,000 tokens)."""
    return _answer() + Cost(input_tokens=min(sum(docs), 3000))


def gist_cost(lookups: Callable[[int], int], default_pages: int) -> StrategyCost:
    """The cost of a gist-memory reader: pagination and a gist per page (shared by the
    document's questions), then ``lookups(pages expanded)`` look-up calls and the answer."""

    def cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
        page = int(args.get("max_words") or 600) * TOKENS_PER_WORD
        pages = max(1, math.ceil(sum(docs) / page))
        # Pagination reads windows of about a page; each page gets a gist (15 % of a page).
        shared = calls(pages, page, 4) + calls(pages, page, page * 0.15)
        memory = pages * page * 0.15
        expanded = int(args.get("max_pages") or default_pages)
        own = calls(lookups(expanded), memory, 16)
        own += calls(1, memory + expanded * page, ANSWER_TOKENS)
        return shared.scaled(1 / max(1, per_doc)) + own

    return cost


# Summaries of several documents (whole documents are the units).


def _multidoc_cap(args: Mapping[str, Any]) -> int:
    return int(args.get("max_summary_tokens", 400))


def one_call_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """Every document in one call."""
    return calls(1, sum(docs), _multidoc_cap(args))


def per_document_cost(merges: Callable[[int], int]) -> StrategyCost:
    """A summary per document, then ``merges(number of documents)`` merge calls, each
    reading two or more summaries."""

    def cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
        cap = _multidoc_cap(args)
        n = max(1, len(docs))
        return calls(n, sum(docs) / n, cap) + calls(merges(n), 2 * cap, cap)

    return cost


def updating_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """One call per document, each reading it and the running summary."""
    cap = _multidoc_cap(args)
    n = max(1, len(docs))
    return calls(n, sum(docs) / n + cap, cap)


def permutations_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """``k`` one-call summaries in shuffled orders, then one call combining them."""
    cap, k = _multidoc_cap(args), int(args.get("k", 3))
    return calls(k, sum(docs), cap) + calls(1, k * cap, cap)
