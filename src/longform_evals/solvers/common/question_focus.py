"""Question-focused summaries: a summarization strategy's prompts carry the sample's question.

A strategy created with ``question_key`` loads its templates from the ``focused/`` subfolder
of its prompt folder (``summarize/focused/chunk.txt`` instead of ``summarize/chunk.txt``), so
a strategy's templates, plain and focused, are one folder. Those templates have
one more field, ``{question}``, placed after the document (or the summaries) they quote, so
the long prefix of a call is the same for every question about one story and provider
prompt caches and local KV caches are reused across questions. Before a sample's first call
the question, ``state.metadata[question_key]``, is filled into the templates
(:meth:`~longform_evals.prompts.PromptTemplate.fill`), so the code that renders them is the
same with or without focus.

Budgets worked out when a solver is created reserve :data:`QUESTION_RESERVE_TOKENS` tokens
for the question; a longer question fails its sample with an error rather than overflow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.solver import TaskState

from longform_evals.prompts import PromptError, PromptTemplate, load_prompt
from longform_evals.text import TokenizerLike, get_tokenizer

__all__ = [
    "FOCUSED",
    "QUESTION_FIELD",
    "QUESTION_RESERVE_TOKENS",
    "Focus",
    "FocusedPrompts",
]

QUESTION_FIELD = "question"
FOCUSED = "focused"
"""The subfolder of a strategy's prompt folder holding its question-focused templates."""
QUESTION_RESERVE_TOKENS = 100
"""Tokens a focused prompt keeps for the question (SQuALITY's run to about 30)."""

# Stands in for the question when budgets are worked out: one token per word in cl100k.
_STAND_IN = " ".join(["x"] * QUESTION_RESERVE_TOKENS)


@dataclass(frozen=True)
class Focus:
    """Whether, and from where, a strategy takes a question to focus its summary on.

    Args:
        question_key: The metadata key holding the question; ``None`` summarizes without one
            (the plain templates).
        tokenizer: Counts the question's tokens against the reserve.
    """

    question_key: str | None = None
    tokenizer: TokenizerLike = "cl100k_base"

    def load(self, method: str, name: str, prompts_dir: str | None) -> PromptTemplate:
        """The template ``<method>/<name>``, or ``<method>/focused/<name>`` with a question.

        Raises:
            PromptError: Also when ``prompts_dir`` has a ``<method>_focused/`` folder (the
                layout before focused templates moved into their strategy's folder), which
                would otherwise be ignored without a word.
        """
        _refuse_old_layout(method, prompts_dir)
        if self.question_key is None:
            return load_prompt(method, name, prompts_dir)
        return load_prompt(
            f"{method}/{FOCUSED}", name, prompts_dir, required_fields=(QUESTION_FIELD,)
        )

    def planning(self, template: PromptTemplate) -> PromptTemplate:
        """``template`` for working out budgets: a question of the reserved size filled in."""
        if QUESTION_FIELD not in template.fields:
            return template
        return template.fill(**{QUESTION_FIELD: _STAND_IN})

    def question(self, state: TaskState) -> str | None:
        """The sample's question (``None`` without focus).

        Raises:
            ValueError: If focus is on and the sample has no question, or one longer than
                the reserve; the message names the sample.
        """
        if self.question_key is None:
            return None
        value: Any = (state.metadata or {}).get(self.question_key)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(
                f"sample {state.sample_id!r}: a question-focused summary needs the question "
                f"as a non-empty string in metadata[{self.question_key!r}], found {value!r}"
            )
        question = value.strip()
        tokens = get_tokenizer(self.tokenizer).count(question)
        if tokens > QUESTION_RESERVE_TOKENS:
            raise ValueError(
                f"sample {state.sample_id!r}: the question has {tokens} tokens; focused "
                f"prompts keep room for {QUESTION_RESERVE_TOKENS}"
            )
        return question

    def bind(self, state: TaskState) -> Callable[[PromptTemplate], PromptTemplate]:
        """A function that fills the sample's question into a template (identity without
        focus, or for a template without the field).

        Raises:
            ValueError: As :meth:`question`, at once rather than at the first call.
        """
        question = self.question(state)

        def fill(template: PromptTemplate) -> PromptTemplate:
            if question is None or QUESTION_FIELD not in template.fields:
                return template
            return template.fill(**{QUESTION_FIELD: question})

        return fill


def _refuse_old_layout(method: str, prompts_dir: str | None) -> None:
    if not prompts_dir:
        return
    old = Path(prompts_dir).expanduser() / f"{method}_{FOCUSED}"
    if old.is_dir():
        raise PromptError(
            f"prompts_dir has {old}, which is no longer read: question-focused templates "
            f"are in the {FOCUSED}/ subfolder of their strategy's folder; move its files "
            f"to {old.parent / method / FOCUSED}"
        )


class FocusedPrompts:
    """A strategy's templates by name, loaded through one :class:`Focus`.

    ``planning()`` gives them as budgets see them (the question's reserve in place of a
    question), ``bind(state)`` with the sample's question filled in.
    """

    def __init__(
        self, focus: Focus, method: str, names: Sequence[str], prompts_dir: str | None
    ) -> None:
        self.focus = focus
        self.templates = {name: focus.load(method, name, prompts_dir) for name in names}

    def planning(self) -> dict[str, PromptTemplate]:
        return {name: self.focus.planning(t) for name, t in self.templates.items()}

    def bind(self, state: TaskState) -> dict[str, PromptTemplate]:
        """The templates for one sample; raises ValueError when focus is on and the sample
        has no question."""
        fill = self.focus.bind(state)
        return {name: fill(t) for name, t in self.templates.items()}
