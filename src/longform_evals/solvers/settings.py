"""The settings every strategy of a family shares, and their defaults, in one place.

The solvers' signatures and the tasks' parameters take their defaults from here, so a default
changed here changes everywhere. This module imports no solver, so every solver can import it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from longform_evals.solvers.common.summary_limits import WORD_RATIO, word_limit

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_MAX_SUMMARY_TOKENS",
    "DEFAULT_TEMPERATURE",
    "NEXUS_DEFAULTS",
    "NEXUS_TEMPERATURE",
    "MultidocSettings",
    "ReadingSettings",
    "SummarySettings",
]

DEFAULT_CHUNK_SIZE = 2048
"""Most tokens (cl100k) per chunk: BooookScore's setting (§5)."""

DEFAULT_CONTEXT_WINDOW = 8192
"""Tokens the summarizer reads and writes in one call: a conservative choice for open models."""

DEFAULT_MAX_SUMMARY_TOKENS = 900
"""Token limit of a summary (G_n): BooookScore's setting (§5)."""

DEFAULT_TEMPERATURE = 0.5
"""Sampling temperature of summaries, merges and updates: BooookScore's setting (§5)."""

NEXUS_TEMPERATURE = 0.3
"""Sampling temperature of every NexusSum call: the paper's setting."""

ANSWER_MAX_TOKENS = 512
"""Token limit of a reading strategy's answer: the prompts ask for the answer alone; the room
is for models that explain anyway, so their answer line is not cut off."""

MULTIDOC_SUMMARY_TOKENS = 400
"""Token limit of every multi-document summary (intermediate and final)."""


@dataclass(frozen=True)
class SummarySettings:
    """What a task tells any summarization strategy; each strategy reads the fields it uses.

    Attributes:
        chunk_size: Most tokens per chunk (chunking strategies).
        context_window: Tokens the summarizer reads and writes in one call.
        max_summary_tokens: Token limit of the summary; ignored when ``target_words`` is set.
        target_words: The summary length in words, for tasks that ask for one; strategies
            that budget tokens then get :attr:`summary_tokens` from it.
        temperature: Sampling temperature; ``None``: the strategy's own default.
        remove_artifacts: Clean "in this segment"-style artifacts; ``None``: the strategy's
            own default (on for incremental updating only, as in BooookScore).
        prompts_dir: Folder overriding packaged prompt templates.
        question_key: Focus the prompts on the question in ``metadata[question_key]``.
        cache: Cache every model call (Inspect's cache).
    """

    chunk_size: int = DEFAULT_CHUNK_SIZE
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_summary_tokens: int = DEFAULT_MAX_SUMMARY_TOKENS
    target_words: int | None = None
    temperature: float | None = None
    remove_artifacts: bool | None = None
    prompts_dir: str | None = None
    question_key: str | None = None
    cache: bool = True

    @property
    def summary_tokens(self) -> int:
        """The summary's token limit (prompts ask for ``WORD_RATIO`` words per token)."""
        if self.target_words is None:
            return self.max_summary_tokens
        return max(1, round(self.target_words / WORD_RATIO))

    @property
    def summary_words(self) -> int:
        """The summary's length in words, for strategies that are asked in words."""
        if self.target_words is None:
            return word_limit(self.max_summary_tokens)
        return self.target_words

    def temperature_or(self, default: float) -> float:
        """The temperature set, else the strategy's ``default``."""
        return default if self.temperature is None else self.temperature

    def remove_artifacts_or(self, default: bool) -> bool:
        """Whether to remove artifacts: the value set, else the strategy's ``default``."""
        return default if self.remove_artifacts is None else self.remove_artifacts

    def _repr_params_(self) -> dict[str, Any]:
        """The fields, for the solver's parameters in the eval log (Inspect calls this)."""
        return asdict(self)


@dataclass(frozen=True)
class ReadingSettings:
    """What a task tells any reading strategy (each also takes options of its own).

    Attributes:
        temperature: Temperature of the answer (pagination and gisting use 0).
        answer_max_tokens: Token limit of the answer.
        prompts_dir: Folder overriding packaged ``read_agent/`` templates.
        cache: Cache every model call (Inspect's cache, no expiry).
    """

    temperature: float = 0.0
    answer_max_tokens: int = ANSWER_MAX_TOKENS
    prompts_dir: str | None = None
    cache: bool = True

    def _repr_params_(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MultidocSettings:
    """What a task tells any multi-document strategy.

    Attributes:
        max_summary_tokens: Token limit of every summary (intermediate and final); prompts ask
            for 0.65 times as many words.
        context_window: Tokens the model reads and writes in one call; documents are cut to
            fit, fairly among them.
        temperature: Sampling temperature of every call.
        max_tries: Tries for a summary that is empty, too long or unfinished.
        tokenizer: Name of the tokenizer counting tokens (cl100k by default).
        prompts_dir: Folder overriding packaged ``multidoc/`` templates.
        cache: Cache every model call (keyed by sample, epoch and try).
    """

    max_summary_tokens: int = MULTIDOC_SUMMARY_TOKENS
    context_window: int = DEFAULT_CONTEXT_WINDOW
    temperature: float = DEFAULT_TEMPERATURE
    max_tries: int = 3
    tokenizer: str = "cl100k_base"
    prompts_dir: str | None = None
    cache: bool = True

    def _repr_params_(self) -> dict[str, Any]:
        return asdict(self)


NEXUS_DEFAULTS = SummarySettings(target_words=900)
"""What :func:`~longform_evals.solvers.nexus.pipeline.nexus_sum` and its stages use when given
no settings: a 900-word target (the solvers' own default before the shared settings)."""
