"""Calls and tokens per sample of a task, for ``longform run --dry-run``.

A task's cost is its strategy's (the cost function the strategy registry names:
`solvers/costs.py`, where the shapes are explained) applied to the sample's own document
lengths in tokens, plus its judge's calls, each tallied under the step kind the run's log uses.
Each task card names the function of this module that estimates one of its samples. The
arguments are the run's (`TaskCard.completed`): a default is read, never guessed here. An
unknown strategy is an error, as it is for the task.

What a dry run cannot know is what the model writes: a generated summary is taken to come out
at half its cap (``max_summary_tokens``) or at its target (``target_words``), in sentences of
:data:`TOKENS_PER_SENTENCE` tokens (:func:`assumed_sentences`); the judge then makes the calls
its mode makes on that many sentences, each answered readably the first time. A summary that is
given (LongFormFact) is counted as the judge will read it. `tests/runs/test_estimate_matches_run.py`
runs every task x strategy x judge mode and states where the run may differ.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.multidoc import sample_documents
from longform_evals.judges.coherence import judges as coherence_judges  # noqa: F401 (its entries)
from longform_evals.judges.coherence.judges import mode_for_judge
from longform_evals.judges.faithfulness import support_judges  # noqa: F401 (its entries)
from longform_evals.judges.faithfulness.calibration import load_calibration
from longform_evals.judges.faithfulness.judging import given_sentences
from longform_evals.judges.faithfulness.retrieval import Retrieval
from longform_evals.judges.raters import rating  # noqa: F401 (its entries)
from longform_evals.judges.registry import JudgeWork, judge_entry, judge_names
from longform_evals.judges.statement_parts import as_statements
from longform_evals.solvers.costs import ANSWER_TOKENS, TOKENS_PER_WORD, Cost, judge_calls
from longform_evals.solvers.reading.pagination import page_limits
from longform_evals.solvers.strategies import StrategyFamily, strategy_entry
from longform_evals.text import split_sentences
from longform_evals.text.documents import chunk_documents
from longform_evals.text.tokens import count_tokens

__all__ = ["Cost"]

JUDGE_DEMOS_TOKENS = 1500
"""The BooookScore judge's instructions and demonstrations."""
TOKENS_PER_SENTENCE = 27
RATER_PROMPT_TOKENS = 600


def generated_summary_tokens(args: Mapping[str, Any]) -> float:
    """The length the estimate takes a generated summary to have: half its cap
    (``max_summary_tokens``), or its target (``target_words``) where the task asks for one."""
    if "target_words" in args:
        return int(args["target_words"]) * TOKENS_PER_WORD
    return int(args["max_summary_tokens"]) / 2


def assumed_sentences(summary_tokens: float) -> int:
    """The sentences the estimate takes a generated summary of ``summary_tokens`` to have."""
    return max(1, math.ceil(summary_tokens / TOKENS_PER_SENTENCE))


def strategy_cost(
    family: StrategyFamily, args: Mapping[str, Any], docs: list[int], per_doc: int
) -> Cost:
    """The calls of the strategy ``args["strategy"]`` names on documents of ``docs`` tokens."""
    return strategy_entry(family, str(args["strategy"])).cost(docs, per_doc, args)


def summary_cost(strategy: str, doc: int, args: Mapping[str, Any]) -> Cost:
    """A book summary by ``strategy`` of a ``doc``-token text (``args`` complete)."""
    return strategy_entry("summary", strategy).cost([doc], 1, args)


def coherence_mode(mode: str, batch: int, judge: str | None) -> str:
    """The mode the BooookScore task judges in: a batch size selects `batched` (as the task
    does), else `auto` resolved for the judge's name (`mode_for_judge` of
    `judges/coherence/judges.py`)."""
    return "batched" if batch > 0 else mode_for_judge(mode, judge)


def booookscore_judge_cost(
    mode: str, sentences: int, batch: int, judge: str | None = None, summary_tokens: float = 0
) -> Cost:
    """Judge calls on one summary of ``sentences`` sentences (``summary_tokens`` tokens), in
    ``mode`` (`auto` resolved for ``judge``): the registered coherence judge's own count
    (`judges/registry.py`)."""
    entry = judge_entry("coherence", coherence_mode(mode, batch, judge))
    n = entry.cost(JudgeWork(sentences, judge=judge, batch=batch))
    return judge_calls(n, JUDGE_DEMOS_TOKENS + summary_tokens)


def generated_summary_judged(
    mode: str, summary_tokens: float, batch: int, judge: str | None
) -> Cost:
    """The coherence judge on a generated summary of ``summary_tokens`` tokens."""
    sentences = assumed_sentences(summary_tokens)
    return booookscore_judge_cost(mode, sentences, batch, judge, summary_tokens)


def reading_cost(strategy: str, doc: int, questions_on_doc: int, args: Mapping[str, Any]) -> Cost:
    """One question answered by ``strategy`` over a ``doc``-token text (``args`` complete)."""
    return strategy_entry("reading", strategy).cost([doc], questions_on_doc, args)


def _document_tokens(sample: Sample) -> list[int]:
    """The tokens of each of the sample's documents."""
    metadata = sample.metadata or {}
    docs = sample_documents(metadata, sample.id, default=str(sample.input))
    return [count_tokens(d) for d in docs]


def _with_page_size(args: Mapping[str, Any], sample: Sample) -> dict[str, Any]:
    """``args`` with ``max_words`` the page size the reader uses on this sample's document:
    its dataset's (or NarrativeQA ``doc_kind``'s), unless the task was given one."""
    metadata = sample.metadata or {}
    _, high = page_limits(
        metadata.get("dataset"), metadata.get("doc_kind"), args.get("min_words"),
        args.get("max_words"),
    )  # fmt: skip
    return {**args, "max_words": high}


def answered_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A question answered by the task's reading strategy, scored without a judge."""
    resolved = _with_page_size(args, sample)
    return strategy_cost("reading", resolved, _document_tokens(sample), per_doc)


def rated_answer_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A question answered by the reading strategy, then each registered rater (the strict
    and permissive ones LR-1 and LR-2 read) against each of its references."""
    target = sample.target
    work = JudgeWork(len(target) if isinstance(target, list) else 1)
    n = sum(judge_entry("rater", name).cost(work) for name in judge_names("rater"))
    return answered_cost(args, sample, per_doc) + judge_calls(
        n, RATER_PROMPT_TOKENS + ANSWER_TOKENS
    )


def support_judge_cost(
    docs: list[str],
    statements: int,
    judge: str | None,
    chunking: str | None,
    retrieval: str | None,
    include_full: bool,
) -> Cost:
    """The faithfulness judge on ``statements`` statements: one call per statement and unit
    it reads (every unit of the documents, chunked as its calibration or the task says, or
    the ``k`` units retrieval picks), plus one against all documents with ``include_full``.
    A statement's parts are judged too when it has them (an aside, a suspect piece): not
    counted, as they are rare."""
    calibration = load_calibration(judge or "")
    units = chunk_documents(docs, chunking or calibration.chunking)
    reading = Retrieval.parse(retrieval or calibration.retrieval)
    per_statement = len(units) if reading.retriever == "all" else min(reading.k, len(units))
    per_statement += 1 if include_full else 0
    tokens = sum(count_tokens(u.text) for u in units) / max(1, len(units))
    n = judge_entry("faithfulness", "llm").cost(JudgeWork(statements, per_statement, judge))
    return judge_calls(n, tokens + TOKENS_PER_SENTENCE)


def judged_summary_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """The judge under study judges the given summary: each of its statements against each
    unit of the documents (LongFormFact)."""
    metadata = sample.metadata or {}
    docs = sample_documents(metadata, sample.id, default=str(sample.input))
    sentences = given_sentences(metadata, str(metadata.get("summary", "")))
    return support_judge_cost(
        docs,
        len(as_statements(sentences)),
        judge,
        args.get("chunking"),
        args.get("retrieval"),
        bool(args["include_full"]),
    )


def multidoc_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """The summary of all the documents by the strategy, each sentence judged against each
    unit of the documents."""
    metadata = sample.metadata or {}
    docs = sample_documents(metadata, sample.id, default=str(sample.input))
    cost = strategy_cost("multidoc", args, [count_tokens(d) for d in docs], per_doc)
    sentences = assumed_sentences(generated_summary_tokens(args))
    return cost + support_judge_cost(
        docs, sentences, judge, args.get("judge_chunking"), args.get("retrieval"), False
    )


def booookscore_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A book summary by the strategy, judged by BooookScore in the task's judge mode (with
    ``score_only``, the given summary judged, as many sentences as it has)."""
    mode, batch = str(args["judge_mode"]), int(args["judge_batch"])
    if args["score_only"]:
        summary = str((sample.metadata or {}).get("summary", ""))
        sentences = len(split_sentences(summary))
        return booookscore_judge_cost(mode, sentences, batch, judge, count_tokens(summary))
    cost = strategy_cost("summary", args, _document_tokens(sample), per_doc)
    return cost + generated_summary_judged(mode, generated_summary_tokens(args), batch, judge)


def narrative_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A summary by the strategy; BooookScore's judge (in its `auto` mode) too with
    ``coherence``, on a summary of the target length."""
    cost = strategy_cost("summary", args, _document_tokens(sample), per_doc)
    if args["coherence"]:
        cost += generated_summary_judged("auto", generated_summary_tokens(args), 0, judge)
    return cost
