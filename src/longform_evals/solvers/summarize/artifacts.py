"""Remove narration artifacts ("in this segment ...") and front matter from a summary.

Summaries built chunk by chunk tend to say "in this excerpt" or "the summary so far", and
may retell a table of contents or a copyright page. BooookScore's post-processing prompt
asks the model to delete these and change nothing else. Here a cheap regex pre-check skips
the call when nothing suspicious is present, and a guard keeps the original when the edit
removed too much.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.prompts import PromptTemplate, load_prompt
from longform_evals.solvers.common.recording import Outcome, SummaryRun
from longform_evals.solvers.common.summary_limits import TRUNCATED_STOP_REASONS, count_words
from longform_evals.text import TokenizerLike

__all__ = [
    "ARTIFACT_COUNTERS",
    "FinalStep",
    "clean_artifacts",
    "has_artifacts",
    "remove_artifacts",
]

ARTIFACT_COUNTERS = ("artifact_calls", "artifact_skips", "artifact_rejects")
"""Cleaning calls made, calls skipped by the pre-check, cleaned texts not used."""

MIN_KEPT_FRACTION = 0.5
"""A cleaned summary with fewer words than this fraction of the input is not trusted."""

_PIECE = r"(?:segments?|excerpts?|chunks?|parts?|sections?|passages?|portions?|installments?)"
_ARTIFACT_PATTERNS = [
    # "in this segment", "in the current excerpt", "of the next part", "throughout these chunks"
    rf"\b(?:in|of|from|throughout|during|within)\s+(?:this|these|the|that)\s+"
    rf"(?:(?:current|previous|next|following|latest|last|given|provided|above|new|"
    rf"present|final|first|second|third|earlier)\s+)*{_PIECE}\b",
    rf"\bthis\s+{_PIECE}\s+(?:of the (?:story|book|novel|text)\s+)?"
    r"(?:begins|opens|starts|ends|concludes|introduces|describes|covers|shows)\b",
    r"\b(?:the|this|our)\s+(?:summary|story)\s+so\s+far\b",
    r"\b(?:the|this)\s+(?:updated|running|current|previous|revised|merged)\s+summary\b",
    r"\btable\s+of\s+contents\b",
    r"\bcopyright\b|\u00a9|\ball\s+rights\s+reserved\b|\bisbn\b",
    r"\b(?:book|novel|work)\s+is\s+dedicated\b|\bdedicated\s+to\s+the\s+memory\b|\bdedication\b",
    r"\backnowledge?ments?\b|\babout\s+the\s+author\b|\bauthor's\s+note\b",
    r"\b(?:also|other\s+(?:books|works))\s+by\s+(?:the\s+)?(?:same\s+)?author\b",
    # a chapter list: two chapter headings close together
    r"\bchapters?\s+(?:\d+|[ivxlc]+|one|two|three)\b[^\n]{0,80}?\bchapters?\s+"
    r"(?:\d+|[ivxlc]+|one|two|three|four)\b",
]
_ARTIFACTS = re.compile("|".join(f"(?:{p})" for p in _ARTIFACT_PATTERNS), re.IGNORECASE)


def has_artifacts(text: str) -> bool:
    """Return whether ``text`` contains a phrase or passage the cleaning prompt targets.

    A cheap over-approximation: a hit only means the model is asked to clean the text.

    Args:
        text: A summary.

    Returns:
        True when a narration artifact ("in this segment", "the summary so far", "the
        updated summary") or front-matter material (table of contents, chapter lists,
        copyright, dedication, acknowledgments, author notes) is found.
    """
    return _ARTIFACTS.search(text) is not None


async def clean_artifacts(
    run: SummaryRun, summary: str, template: PromptTemplate, temperature: float = 0.5
) -> str:
    """Ask the model to delete artifacts from ``summary``; record the step in ``run``.

    Skips the call (counting ``artifact_skips``) when :func:`has_artifacts` finds nothing.
    Keeps the original (counting ``artifact_rejects``) when the edit is empty, was cut off,
    or has fewer than half the original's words.

    Args:
        run: The sample's summarization run.
        summary: The summary to clean.
        template: The ``summarize/artifacts`` prompt (field ``summary``).
        temperature: Sampling temperature of the cleaning call.

    Returns:
        The cleaned summary, or ``summary`` itself.
    """
    for name in ARTIFACT_COUNTERS:
        run.stats.setdefault(name, 0)
    if not has_artifacts(summary):
        run.bump("artifact_skips")
        return summary
    run.plan(1)
    n_tokens = run.count(summary)
    # Generous room: the model's tokenizer may count more tokens than ours.
    max_tokens = n_tokens + max(64, n_tokens // 4)
    output = await run.call(
        template.render(summary=summary),
        GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        "artifacts",
    )
    run.bump("artifact_calls")
    cleaned = output.completion.strip()
    usable = (
        bool(cleaned)
        and output.stop_reason not in TRUNCATED_STOP_REASONS
        and count_words(cleaned) >= MIN_KEPT_FRACTION * count_words(summary)
    )
    if not usable:
        run.bump("artifact_rejects")
    result = cleaned if usable else summary
    problems = [] if usable else [["rejected"]]
    run.record("artifacts", 0, 0, Outcome(result, 1, usable, problems))
    return result


@solver
def remove_artifacts(
    temperature: float = 0.5,
    tokenizer: TokenizerLike = "cl100k_base",
    prompts_dir: str | None = None,
    cache: bool = True,
) -> Solver:
    """Clean the current summary of narration artifacts and front matter.

    Cleans ``metadata["summary"]`` when a summarization solver left one, else the last
    output's completion. Continues that solver's ``summary_trace`` and ``summary_stats``.

    Args:
        temperature: Sampling temperature of the cleaning call.
        tokenizer: Counts tokens for the trace.
        prompts_dir: Optional folder overriding ``summarize/artifacts.txt``.
        cache: Cache every model call (Inspect's cache, keyed by sample, epoch and try), so
            a rerun or ``inspect eval-retry`` repeats no finished step; False: no caching.

    Returns:
        A solver.
    """
    template = load_prompt("summarize", "artifacts", prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        summary = state.metadata.get("summary") or state.output.completion
        if not isinstance(summary, str) or not summary.strip():
            raise ValueError(f"sample {state.sample_id!r}: there is no summary to clean")
        run = SummaryRun(state, None, tokenizer, ARTIFACT_COUNTERS, cache)
        run.finish(await clean_artifacts(run, summary, template, temperature))
        return state

    return solve


@dataclass(frozen=True)
class FinalStep:
    """The last step of a summarizer: remove artifacts if asked, then record the summary."""

    cleaner: PromptTemplate | None
    temperature: float

    @classmethod
    def load(cls, on: bool, prompts_dir: str | None, temperature: float) -> FinalStep:
        """Load the artifact-removal template when ``on`` (from ``prompts_dir`` if there)."""
        cleaner = load_prompt("summarize", "artifacts", prompts_dir) if on else None
        return cls(cleaner, temperature)

    @property
    def counters(self) -> tuple[str, ...]:
        """The artifact counters when cleaning is on, else none."""
        return ARTIFACT_COUNTERS if self.cleaner is not None else ()

    async def finish(self, run: SummaryRun, summary: str) -> None:
        """Clean ``summary`` (when on) and write it as the sample's summary."""
        if self.cleaner is not None:
            summary = await clean_artifacts(run, summary, self.cleaner, self.temperature)
        run.finish(summary)
