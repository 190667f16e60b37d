# inspect-evals-lint: ignore-file[IEBP001] -- built per sample, inside the solvers
"""Shared machinery of the summarization solvers: checked generation and the summary trace.

One :class:`SummaryRun` serves one sample. It calls the evaluated model with retries
(:meth:`SummaryRun.generate`), records every intermediate summary in
``state.metadata["summary_trace"]`` and counters in ``state.metadata["summary_stats"]``, and
finally writes the summary to ``state.output``, the message history and
``state.metadata["summary"]`` (:meth:`SummaryRun.finish`). Inspect logs ``state.metadata`` as
the sample's metadata, so the trace is in the eval log (``log.samples[i].metadata``). Each
call goes through the suite's call path (:meth:`SummaryRun.call`,
:mod:`longform_evals.models.calls`), so its tokens go to the sample's tally per step kind
(:data:`STEP_KIND`, the summary strategies' kinds, registered here).
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypedDict

from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessageAssistant,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import span

from longform_evals.data.jsonl import max_text_chars
from longform_evals.models.calls import generate
from longform_evals.models.step_usage import StepKind, register_step_kind
from longform_evals.progress import BOARD, SUMMARIZER_PHASE
from longform_evals.solvers.common.step_cache import step_key
from longform_evals.solvers.common.summary_limits import (
    Candidate,
    choose_best,
    count_words,
    retry_word_limit,
    summary_problems,
    word_limit,
)
from longform_evals.text import Tokenizer, TokenizerLike, get_tokenizer

__all__ = [
    "BASE_COUNTERS",
    "STAGES_KEY",
    "STEP_KIND",
    "Outcome",
    "Step",
    "SummaryRun",
    "TraceEntry",
    "Tries",
    "document_of",
]

Step: TypeAlias = Literal[
    "chunk", "merge", "update", "compress", "artifacts", "full", "preprocess", "rewrite"
]

STEP_KIND: dict[Step, StepKind] = {
    "chunk": register_step_kind(
        "chunk_summary",
        "the summary of one chunk, scene group or document on its own (hierarchical "
        "merging's level 0, incremental updating's first chunk, NexusSum's scene summaries, "
        "the per-document summaries of multi-document strategies)",
    ),
    "merge": register_step_kind(
        "merge",
        "a summary of summaries (hierarchical merging's levels above 0, multi-document "
        "merges, the calibration strategy's combination)",
    ),
    "update": register_step_kind(
        "update", "a running summary updated with the next chunk or document"
    ),
    "compress": register_step_kind(
        "compression", "a summary shortened (incremental updating, NexusSum's compressor)"
    ),
    "artifacts": register_step_kind("artifact_removal", "a summary cleaned of narration artifacts"),
    "full": register_step_kind(
        "full_summary", "the whole (possibly truncated) text summarized in one call"
    ),
    "preprocess": register_step_kind("preprocess", "NexusSum's dialogue-to-prose rewrite"),
    "rewrite": register_step_kind("rewrite", "NexusSum's final readability rewrite"),
}
"""The kind a trace step's calls are tallied under (:mod:`longform_evals.models.step_usage`),
each registered with its description."""

STAGES_KEY = "summary_stages"
"""Metadata key of the calls and wall seconds per stage of a strategy (:meth:`SummaryRun.stage`)."""

BASE_COUNTERS = ("calls", "retries", "forced_accepts")

_SURROGATE = re.compile("[\ud800-\udfff]")
"""Counters every strategy reports: model calls, retried calls, tries given up on."""


class TraceEntry(TypedDict):
    """One intermediate (or final) summary, as kept in ``summary_trace``."""

    step: str
    level: int
    index: int
    tokens: int
    words: int
    tries: int
    accepted: bool
    problems: list[list[str]]
    """What was wrong with each rejected try, in order (empty when the first try passed)."""
    text: str


@dataclass
class Outcome:
    """The summary kept from one checked generation."""

    text: str
    tries: int
    accepted: bool
    """False when every try failed a check and the best candidate was kept anyway."""
    rejected: list[list[str]] = field(default_factory=list)


def document_of(state: TaskState) -> str:
    """Return the document to summarize: ``metadata["document"]`` or else the input text.

    Raises:
        ValueError: If the document is not a string, is empty/whitespace or holds a lone
            surrogate (a sample built in Python; the loaders refuse one); the message names
            the sample.
    """
    document: Any = (state.metadata or {}).get("document", state.input_text)
    if not isinstance(document, str):
        raise ValueError(
            f"sample {state.sample_id!r}: metadata['document'] must be a string, "
            f"not {type(document).__name__}"
        )
    if not document.strip():
        raise ValueError(f"sample {state.sample_id!r}: the document to summarize is empty")
    limit = max_text_chars()
    if len(document) > limit:
        raise ValueError(
            f"sample {state.sample_id!r}: the document has {len(document):,} characters, more "
            f"than the limit of {limit:,} for one text (LONGFORM_MAX_TEXT_CHARS sets it)"
        )
    bad = _SURROGATE.search(document)
    if bad:  # no character: the tokenizer and every provider would fail on it mid-run
        raise ValueError(
            f"sample {state.sample_id!r}: the document holds a lone surrogate "
            f"(U+{ord(bad.group()):04X}) at character {bad.start()}: not valid Unicode"
        )
    return document


@dataclass(frozen=True)
class Tries:
    """How a summarizer samples and retries its length-checked calls."""

    temperature: float
    max_tries: int
    retry_temperature: float | None = None
    """Temperature of retries (``None``: ``temperature``)."""


class SummaryRun:
    """Model calls, counters and trace of one sample's summarization.

    Args:
        state: The sample's state.
        strategy: Name recorded as ``metadata["summary_strategy"]``; ``None`` continues the
            trace and counters an earlier summarization solver left (for post-processing).
        tokenizer: Counts the ``tokens`` of trace entries and every budget.
        counters: Strategy-specific counters, reported as 0 when never incremented.
        cache: Cache every call in Inspect's cache (see
            :mod:`~longform_evals.solvers.common.step_cache`), so a rerun repeats no finished step.
    """

    def __init__(
        self,
        state: TaskState,
        strategy: str | None,
        tokenizer: TokenizerLike = "cl100k_base",
        counters: Iterable[str] = (),
        cache: bool = True,
    ) -> None:
        self.state = state
        self.cache = cache
        self.model = get_model()
        self.tokenizer: Tokenizer = get_tokenizer(tokenizer)
        metadata = state.metadata
        if strategy is None:
            trace = list(metadata.get("summary_trace", []))
            stats = dict(metadata.get("summary_stats", {}))
        else:
            metadata["summary_strategy"] = strategy
            trace, stats = [], {}
        for name in (*BASE_COUNTERS, *counters):
            stats.setdefault(name, 0)
        # Stored at once and filled in place, so a sample that fails half-way still shows
        # the steps it completed.
        self.trace: list[TraceEntry] = trace
        self.stats: dict[str, Any] = stats
        self.stages: dict[str, dict[str, Any]] = (
            dict(metadata.get(STAGES_KEY, {})) if strategy is None else {}
        )
        metadata["summary_trace"] = trace
        metadata["summary_stats"] = stats
        metadata[STAGES_KEY] = self.stages

    def count(self, text: str) -> int:
        """Count tokens with the run's tokenizer."""
        return self.tokenizer.count(text)

    async def call(
        self, prompt: str, config: GenerateConfig, step: Step, attempt: int = 0
    ) -> ModelOutput:
        """One call of the evaluated model through the call path: cached per sample and try
        ``attempt``, tallied under ``step``'s kind (:data:`STEP_KIND`), counted in ``calls``
        and on the progress board."""
        output = await generate(
            self.model,
            prompt,
            config,
            step=STEP_KIND[step],
            cache=step_key(self.state, self.cache, attempt),
            progress=SUMMARIZER_PHASE,
        )
        self.bump("calls")
        return output

    def plan(self, calls: int) -> None:
        """Announce `calls` more model calls to the progress display."""
        BOARD.plan(SUMMARIZER_PHASE, calls)

    @asynccontextmanager
    async def stage(self, name: str, span_name: str | None = None) -> AsyncIterator[None]:
        """Time a stage of the strategy and count its calls in ``summary_stages[name]``
        (``{"calls", "seconds"}``, summed when a stage runs more than once, as a stage
        that stops half-way by an error is); the calls are grouped in the transcript under
        a span named ``span_name`` (default: ``name``)."""
        calls, started = int(self.stats["calls"]), time.monotonic()
        try:
            async with span(span_name or name, type="summary_stage"):
                yield
        finally:
            row = self.stages.setdefault(name, {"calls": 0, "seconds": 0.0})
            row["calls"] += int(self.stats["calls"]) - calls
            row["seconds"] = round(row["seconds"] + time.monotonic() - started, 3)

    def bump(self, name: str, by: int = 1) -> None:
        """Add ``by`` to the counter ``name``."""
        self.stats[name] = int(self.stats.get(name, 0)) + by

    async def summarize(
        self, render: Callable[[int], str], token_limit: int, tries: Tries, *, step: Step
    ) -> Outcome:
        """A summary of at most ``token_limit`` tokens, asked and checked in words
        (:func:`~longform_evals.solvers.common.summary_limits.word_limit` of it), for the
        trace step ``step``."""
        limit = word_limit(token_limit)
        return await self.generate(
            render,
            limit,
            step=step,
            max_tokens=token_limit,
            temperature=tries.temperature,
            max_tries=tries.max_tries,
            check_limit=limit,
            retry_temperature=tries.retry_temperature,
        )

    async def generate(
        self,
        render: Callable[[int], str],
        word_limit: int,
        *,
        step: Step,
        max_tokens: int,
        temperature: float,
        max_tries: int,
        check_limit: int | None,
        retry_temperature: float | None = None,
    ) -> Outcome:
        """Generate until a summary passes the checks, at most ``max_tries`` times.

        Try ``k`` (from 0) renders the prompt with ``retry_word_limit(word_limit, k)`` words;
        the output is checked against ``check_limit`` words (``None``: no length check), for
        emptiness and for being finished. After the last failed try the best candidate is
        kept (:func:`~longform_evals.solvers.common.summary_limits.choose_best`) and counted in
        ``forced_accepts``. Every try's tokens are tallied under ``step``'s kind
        (:data:`STEP_KIND`).

        Raises:
            RuntimeError: If every try came back empty.
        """
        candidates: list[Candidate] = []
        for attempt in range(max(1, max_tries)):
            prompt = render(retry_word_limit(word_limit, attempt))
            temp = temperature if attempt == 0 or retry_temperature is None else retry_temperature
            config = GenerateConfig(temperature=temp, max_tokens=max_tokens)
            output = await self.call(prompt, config, step, attempt)
            if attempt:
                self.bump("retries")
            text = output.completion.strip()
            problems = summary_problems(text, check_limit, output.stop_reason)
            candidate = Candidate(text, tuple(problems))
            rejected = [list(c.problems) for c in candidates]
            if candidate.accepted:
                return Outcome(text, attempt + 1, True, rejected)
            candidates.append(candidate)
        best = choose_best(candidates)
        if not best.text:
            raise RuntimeError(
                f"sample {self.state.sample_id!r}: the model returned an empty summary "
                f"in all {len(candidates)} tries"
            )
        self.bump("forced_accepts")
        return Outcome(best.text, len(candidates), False, [list(c.problems) for c in candidates])

    def record(self, step: Step, level: int, index: int, outcome: Outcome) -> None:
        """Append ``outcome`` to the trace."""
        self.trace.append(
            TraceEntry(
                step=step,
                level=level,
                index=index,
                tokens=self.count(outcome.text),
                words=count_words(outcome.text),
                tries=outcome.tries,
                accepted=outcome.accepted,
                problems=outcome.rejected,
                text=outcome.text,
            )
        )

    def finish(self, summary: str) -> None:
        """Make ``summary`` the sample's output and log the counters."""
        model_name = str(self.model)
        state = self.state
        state.output = ModelOutput.from_content(model=model_name, content=summary)
        state.messages.append(ChatMessageAssistant(content=summary, model=model_name))
        state.metadata["summary"] = summary
        self.stats["summary_tokens"] = self.count(summary)
        self.stats["summary_words"] = count_words(summary)
        transcript().info(
            {"strategy": state.metadata.get("summary_strategy"), "stats": dict(self.stats)},
            source="summary",
        )
