"""Rough calls and tokens per sample of a task, for ``longform run --dry-run``.

The figures come from each strategy's known shape (one call per chunk, merges packed into the
context window, a gist per page...) applied to the sample's own document length in tokens;
the lengths of model outputs are guesses (the cap, or a typical answer), so the estimate is an
order of magnitude to budget a run with, not a prediction. Work a strategy shares between the
questions of one document (pages and gists) is divided among them, as the strategies reuse it.
Each task card names the function of this module that estimates one of its samples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.multidoc import sample_documents
from longform_evals.judges.calibration_files import read_calibration
from longform_evals.judges.coherence_probe import PROBES
from longform_evals.text.tokens import count_tokens

PROMPT_TOKENS = 250
"""Instructions around the text in a strategy's call (a typical template)."""
JUDGE_DEMOS_TOKENS = 1500
"""The BooookScore judge's instructions and demonstrations."""
TOKENS_PER_SENTENCE = 27
TOKENS_PER_WORD = 1.3
ANSWER_TOKENS = 32
PROBES_PER_SENTENCE = len(PROBES)
"""Probe-mode BooookScore: one call per probe per summary sentence."""


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


def _calls(n: float, each_in: float, each_out: float) -> Cost:
    return Cost(n, n * (each_in + PROMPT_TOKENS), n * each_out)


def summary_cost(strategy: str, doc: int, args: Mapping[str, Any]) -> Cost:
    """A book summary by ``strategy`` of a ``doc``-token text."""
    chunk = int(args.get("chunk_size", 2048))
    window = int(args.get("context_window", 8192))
    cap = int(args.get("max_summary_tokens", args.get("target_words", 900) * TOKENS_PER_WORD))
    chunks = max(1, math.ceil(doc / chunk))
    if strategy == "full":
        return _calls(1, min(doc, window - cap), cap)
    if strategy == "incremental":
        return _calls(chunks, chunk + cap, cap)
    if strategy == "nexus_sum":
        # Preprocess and summarize each chunk, then compress the joined summaries once.
        return _calls(2 * chunks, chunk, chunk // 2) + _calls(1, chunks * cap // 2, cap)
    # Hierarchical merging: chunk summaries, then merges of as many as fit the window.
    each = min(cap, chunk // 2)
    fan_in = max(2, (window - cap - PROMPT_TOKENS) // max(1, each))
    cost, level = _calls(chunks, chunk, each), chunks
    while level > 1:
        groups = math.ceil(level / fan_in)
        cost += _calls(groups, min(level, fan_in) * each, cap)
        level = groups
    return cost


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
    answer = _calls(1, 0, ANSWER_TOKENS)
    if strategy == "full":
        return answer + Cost(input_tokens=doc)
    if strategy in ("truncate_first", "truncate_last"):
        return answer + Cost(input_tokens=min(doc, int(args.get("words", 3000) * 1.3)))
    if strategy in ("bm25", "embedding"):
        return answer + Cost(input_tokens=min(doc, 3000))
    page = int(args.get("max_words") or 600) * TOKENS_PER_WORD
    pages = max(1, math.ceil(doc / page))
    # Pagination reads windows of about a page; each page gets a gist (15 % of a page).
    shared = _calls(pages, page, 4) + _calls(pages, page, page * 0.15)
    memory = pages * page * 0.15
    expanded = int(args.get("max_pages") or (1 if strategy == "read_agent_s" else 2))
    lookups = expanded if strategy == "read_agent_s" else (0 if strategy == "gist_memory" else 1)
    own = _calls(lookups, memory, 16) + _calls(1, memory + expanded * page, ANSWER_TOKENS)
    return shared.scaled(1 / max(1, questions_on_doc)) + own


def _document_tokens(sample: Sample) -> tuple[list[str], int]:
    metadata = sample.metadata or {}
    docs = sample_documents(metadata, sample.id, default=str(sample.input))
    return docs, sum(count_tokens(d) for d in docs)


def answered_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A question answered by the task's reading strategy, scored without a judge."""
    _, doc = _document_tokens(sample)
    return reading_cost(str(args.get("strategy", "read_agent_p")), doc, per_doc, args)


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
    _, doc = _document_tokens(sample)
    judged = count_tokens(str((sample.metadata or {}).get("summary", "")))
    chunks = max(1, math.ceil(doc / 500))
    sentences = max(1.0, judged / TOKENS_PER_SENTENCE)
    return _calls(chunks * sentences, 500 + TOKENS_PER_SENTENCE, 1)


def multidoc_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """One summary of all the documents, each sentence judged against each document."""
    docs, doc = _document_tokens(sample)
    cost = _calls(1, doc, int(args.get("max_summary_tokens", 400)))
    sentences = int(args.get("max_summary_tokens", 400)) / TOKENS_PER_SENTENCE
    return cost + Cost(judge_calls=sentences * len(docs), judge_input_tokens=sentences * doc)


def booookscore_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A book summary by the strategy, judged by BooookScore in the task's judge mode."""
    _, doc = _document_tokens(sample)
    cost = summary_cost(str(args.get("strategy", "hierarchical")), doc, args)
    # Summaries come out at about half their cap.
    summary = float(args.get("max_summary_tokens", 900)) / 2
    mode = str(args.get("judge_mode", "auto"))
    batch = int(args.get("judge_batch", 0))
    return cost + booookscore_judge_cost(mode, summary, batch, probes_asked(judge))


def narrative_cost(
    args: Mapping[str, Any], sample: Sample, per_doc: int, judge: str | None = None
) -> Cost:
    """A summary by the strategy; BooookScore's sentence judge too with ``coherence``."""
    _, doc = _document_tokens(sample)
    cost = summary_cost(str(args.get("strategy", "hierarchical")), doc, args)
    if args.get("coherence"):
        cost += booookscore_judge_cost("sentence", float(args.get("target_words", 900)), 0)
    return cost
