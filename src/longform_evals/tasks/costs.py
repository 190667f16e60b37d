"""Rough calls and tokens per sample of a task, for ``longform run --dry-run``.

A task's cost is its strategy's (the cost function the strategy registry names:
`solvers/costs.py`, where the shapes are explained) applied to the sample's own document
lengths in tokens, plus its judge's calls. Each task card names the function of this module
that estimates one of its samples. An unknown strategy is an error, as it is for the task.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.multidoc import sample_documents
from longform_evals.judges.calibration_files import read_calibration
from longform_evals.judges.coherence_probe import PROBES
from longform_evals.solvers.costs import ANSWER_TOKENS, Cost, calls
from longform_evals.solvers.strategies import StrategyFamily, strategy_entry
from longform_evals.text.tokens import count_tokens

__all__ = ["Cost"]

JUDGE_DEMOS_TOKENS = 1500
"""The BooookScore judge's instructions and demonstrations."""
TOKENS_PER_SENTENCE = 27
PROBES_PER_SENTENCE = len(PROBES)
"""Probe-mode BooookScore: one call per probe per summary sentence."""


def strategy_cost(
    family: StrategyFamily, args: Mapping[str, Any], docs: list[int], per_doc: int
) -> Cost:
    """The calls of the strategy ``args["strategy"]`` names (`runs.estimate` fills in the
    task's default) on documents of ``docs`` tokens."""
    return strategy_entry(family, str(args["strategy"])).cost(docs, per_doc, args)


def summary_cost(strategy: str, doc: int, args: Mapping[str, Any]) -> Cost:
    """A book summary by ``strategy`` of a ``doc``-token text."""
    return strategy_entry("summary", strategy).cost([doc], 1, args)


def probes_asked(judge: str | None) -> int:
    """Probes the probe-mode judge asks per sentence: those its calibration switches on (all
    of them for a judge without a calibration file)."""
    found = read_calibration("coherence_probe", judge) if judge else None
    if found is None:
        return PROBES_PER_SENTENCE
    probes = found[0].get("probes", {})
    return max(1, sum(1 for p in probes.values() if p.get("enabled", True)))


def booookscore_judge_cost(
    mode: str, summary_tokens: float, batch: int, probes: int = PROBES_PER_SENTENCE
) -> Cost:
    """Judge calls on one summary of ``summary_tokens`` tokens."""
    sentences = max(1.0, summary_tokens / TOKENS_PER_SENTENCE)
    per_call = JUDGE_DEMOS_TOKENS + summary_tokens
    if mode == "batched":
        calls: float = math.ceil(sentences / max(1, batch))
    elif mode in ("probe", "auto"):
        calls = sentences * probes
    else:
        calls = sentences
    return Cost(judge_calls=calls, judge_input_tokens=calls * per_call)


def reading_cost(strategy: str, doc: int, questions_on_doc: int, args: Mapping[str, Any]) -> Cost:
    """One question answered by ``strategy`` over a ``doc``-token text."""
    return strategy_entry("reading", strategy).cost([doc], questions_on_doc, args)


def _document_tokens(sample: Sample) -> list[int]:
    """The tokens of each of the sample's documents."""
    metadata = sample.metadata or {}
    docs = sample_documents(metadata, sample.id, default=str(sample.input))
    return [count_tokens(d) for d in docs]


def answered_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A question answered by the task's reading strategy, scored without a judge."""
    return strategy_cost("reading", args, _document_tokens(sample), per_doc)


def rated_answer_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A question answered by the reading strategy, then LR-1 and LR-2: one rater call each."""
    return answered_cost(args, sample, per_doc) + Cost(
        judge_calls=2, judge_input_tokens=2 * (600 + ANSWER_TOKENS)
    )


def judged_summary_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """The evaluated model judges each summary sentence against each document chunk."""
    doc = sum(_document_tokens(sample))
    judged = count_tokens(str((sample.metadata or {}).get("summary", "")))
    chunks = max(1, math.ceil(doc / 500))
    sentences = max(1.0, judged / TOKENS_PER_SENTENCE)
    return calls(chunks * sentences, 500 + TOKENS_PER_SENTENCE, 1)


def multidoc_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """The summary of all the documents by the strategy, each sentence judged against each
    document."""
    docs = _document_tokens(sample)
    cost = strategy_cost("multidoc", args, docs, per_doc)
    sentences = int(args.get("max_summary_tokens", 400)) / TOKENS_PER_SENTENCE
    return cost + Cost(judge_calls=sentences * len(docs), judge_input_tokens=sentences * sum(docs))


def booookscore_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A book summary by the strategy, judged by BooookScore in the task's judge mode."""
    cost = strategy_cost("summary", args, _document_tokens(sample), per_doc)
    # Summaries come out at about half their cap.
    summary = float(args.get("max_summary_tokens", 900)) / 2
    mode = str(args.get("judge_mode", "auto"))
    batch = int(args.get("judge_batch", 0))
    return cost + booookscore_judge_cost(mode, summary, batch, probes_asked(judge))


def narrative_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A summary by the strategy; BooookScore's sentence judge too with ``coherence``."""
    cost = strategy_cost("summary", args, _document_tokens(sample), per_doc)
    if args.get("coherence"):
        cost += booookscore_judge_cost("sentence", float(args.get("target_words", 900)), 0)
    return cost
