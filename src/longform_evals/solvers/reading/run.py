# inspect-evals-lint: ignore-file[IEBP001] -- built per sample, inside the solvers
"""Shared machinery of the reading solvers: model calls, cost accounting and the answer.

One :class:`ReadingRun` serves one question. It reads the reading-sample schema
(``metadata["document"]``, ``["question"]``, ``["doc_questions"]``, ``state.choices``),
sends every prompt through the evaluated model, and keeps ``state.metadata["reading"]``:

* ``strategy``, ``pages`` (count) and ``page_words``, ``pages_looked_up`` (page numbers;
  the retrieved pages for the retrieval baselines), ``lookup_fallbacks`` /
  ``lookup_problems`` (ignored requests), ``pagination_fallbacks``, ``gist_words``,
  ``doc_words``;
* ``context_words_max``: the most document-derived words (gists, expanded or retrieved pages,
  full or truncated text) in any one prompt for this question;
* ``compression_rate`` = 100 x (1 - context_words_max / doc_words) (the ReadAgent paper,
  arXiv:2402.09727, §4);
* ``words_consumed``: the words of every prompt sent for this question, plus its share of
  the document's pagination and gisting prompts (their words divided by
  ``metadata["doc_questions"]``, as the paper amortises them, §3.3; conditional gists are
  per question and charged in full). A follow-up call (the answer after a look-up, in the
  ``follow_up`` layout) extends the previous call's conversation, which a prefix-caching
  model has already read, so it is charged only its new turn;
* ``words_sent``: as ``words_consumed``, but every call charged its whole conversation (the
  earlier turns and replies again);
* ``calls``: step, prompt words (new) and words sent of this question's own calls.

The answer prompt lists the options as ``(A) ...`` and asks for a final "Answer: (X)" line
when the sample has choices, and asks for a short answer otherwise; the reply becomes
``state.output`` unparsed (the scorers parse it).
"""

from __future__ import annotations

import string
from typing import Any, Final, Literal

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import TaskState

from longform_evals.models.calls import generate
from longform_evals.models.step_usage import register_step_kind
from longform_evals.prompts import load_prompt
from longform_evals.solvers.common.recording import document_of
from longform_evals.solvers.common.step_cache import step_key
from longform_evals.solvers.reading.memory import (
    DocumentPages,
    GistMemory,
    MemorySettings,
    document_pages,
    words,
)
from longform_evals.solvers.settings import ANSWER_MAX_TOKENS, ReadingSettings

__all__ = [
    "ANSWER",
    "ANSWER_MAX_TOKENS",
    "LOOKUP",
    "ReadingRun",
    "format_options",
    "paged_run",
    "question_of",
]

LOOKUP: Final = register_step_kind("lookup", "ReadAgent's request for pages to read in full")
ANSWER: Final = register_step_kind(
    "answer", "the answer to a reading question (ReadAgent and the reading baselines)"
)


def question_of(state: TaskState) -> str:
    """The question: ``metadata["question"]``, else the sample input."""
    question: Any = state.metadata.get("question")
    return question if isinstance(question, str) and question.strip() else state.input_text


def answer_prompt(
    question: str,
    options: list[str],
    text: str,
    prompts_dir: str | None = None,
    follow_up: bool = False,
) -> str:
    """The answer prompt of every reading strategy: ``text`` (the context, or after a look-up
    the ``follow_up`` turn's pages), the question and its ``options`` (none: a free-form
    answer). lm-eval's plain models are asked with it, on the whole document."""
    kind = "answer_choice" if options else "answer_free"
    template = load_prompt("read_agent", kind + ("_pages" if follow_up else ""), prompts_dir)
    # The `_pages` templates name their text `pages`, the others `context`.
    fields: dict[str, object] = {"pages" if follow_up else "context": text, "question": question}
    if options:
        fields["options"] = format_options(options)
    return template.render(fields)


def format_options(options: list[str]) -> str:
    """Options as lines ``(A) text``, ``(B) text``, ...

    Raises:
        ValueError: With more options than letters.
    """
    if len(options) > len(string.ascii_uppercase):
        raise ValueError(f"{len(options)} options are more than the letters A-Z")
    return "\n".join(f"({string.ascii_uppercase[i]}) {o}" for i, o in enumerate(options))


class ReadingRun:
    """Calls, counters and the answer of one question (see the module docstring).

    Args:
        state: The sample's state.
        strategy: Recorded as ``metadata["reading"]["strategy"]``.
        temperature: Temperature of the look-up and answer calls.
        answer_max_tokens: Token limit of the answer.
        prompts_dir: Optional folder overriding ``read_agent/`` templates.
        cache: Cache the look-up and answer calls (see
            :mod:`~longform_evals.solvers.common.step_cache`).
    """

    def __init__(
        self,
        state: TaskState,
        strategy: str,
        *,
        temperature: float,
        answer_max_tokens: int,
        prompts_dir: str | None,
        cache: bool = False,
    ) -> None:
        self.state = state
        self.cache = cache
        self.model = get_model()
        self.document = document_of(state)
        self.doc_words = words(self.document)
        self.question = question_of(state)
        self.options = [c.value for c in state.choices]
        n: Any = state.metadata.get("doc_questions", 1)
        self.doc_questions = n if isinstance(n, int) and n >= 1 else 1
        self.temperature = temperature
        self.answer_max_tokens = answer_max_tokens
        self.prompts_dir = prompts_dir
        self._own_words = 0
        self._sent_words = 0
        self._shared_words = 0.0
        # The last call's conversation and its words, which a follow-up call extends.
        self._history: list[ChatMessage] = []
        self._history_words = 0
        self.info: dict[str, Any] = {
            "strategy": strategy,
            "pages": 0,
            "pages_looked_up": [],
            "lookup_fallbacks": 0,
            "lookup_problems": [],
            "pagination_fallbacks": 0,
            "gist_words": 0,
            "doc_words": self.doc_words,
            "doc_questions": self.doc_questions,
            "context_words_max": 0,
            "compression_rate": None,
            "words_consumed": None,
            "words_sent": None,
            "calls": [],
        }
        # Stored at once and filled in place, so a failed sample shows how far it got.
        state.metadata["reading"] = self.info

    @classmethod
    def answering(
        cls,
        state: TaskState,
        strategy: str,
        answer: ReadingSettings,
        *,
        prompts_dir: str | None,
        cache: bool,
    ) -> ReadingRun:
        """A run that answers with ``answer``'s temperature and token limit."""
        return cls(
            state,
            strategy,
            temperature=answer.temperature,
            answer_max_tokens=answer.answer_max_tokens,
            prompts_dir=prompts_dir,
            cache=cache,
        )

    @property
    def task(self) -> str:
        """The question, with its options for a multiple-choice sample (look-up prompts)."""
        if not self.options:
            return self.question
        return f"{self.question}\n\nOptions:\n{format_options(self.options)}"

    def use_pages(self, pages: DocumentPages) -> None:
        """Charge this question its share of the document's pagination."""
        self._shared_words += pages.prompt_words / self.doc_questions
        self.info.update(
            pages=len(pages.pages),
            page_words=pages.page_words,
            pagination_fallbacks=pages.fallbacks,
            pagination_calls=pages.calls,
            pagination_prompt_words=pages.prompt_words,
            pages_forced=pages.forced,
        )
        if pages.fallback_answers:
            self.info["pagination_fallback_answers"] = pages.fallback_answers

    def use_gists(self, gists: GistMemory, conditional: bool) -> None:
        """Charge this question its share of the gisting (all of it when conditional)."""
        self._shared_words += gists.prompt_words / (1 if conditional else self.doc_questions)
        self.info.update(
            gist_words=gists.words,
            gist_calls=gists.calls,
            gist_prompt_words=gists.prompt_words,
            empty_gists=gists.empty,
            gists_cut=gists.cut,
            conditional=conditional,
        )

    def problems(self, problems: list[str]) -> None:
        """Record ignored look-up requests."""
        self.info["lookup_problems"].extend(problems)
        self.info["lookup_fallbacks"] = len(self.info["lookup_problems"])

    async def ask(
        self,
        step: Literal["lookup", "answer"],
        prompt: str,
        context_words: int,
        max_tokens: int,
        *,
        follow_up: bool = False,
    ) -> str:
        """Send one prompt; ``context_words`` are the document-derived words the model sees
        in the call. With ``follow_up`` the prompt is a new user turn after the previous
        call's prompt and reply, so that conversation is a shared prefix. The call's tokens
        are tallied under ``step`` (:mod:`longform_evals.models.step_usage`)."""
        self.info["context_words_max"] = max(self.info["context_words_max"], context_words)
        prompt_words = words(prompt)
        earlier = self._history if follow_up else []
        sent_words = prompt_words + (self._history_words if follow_up else 0)
        self._own_words += prompt_words
        self._sent_words += sent_words
        self.info["calls"].append(
            {"step": step, "prompt_words": prompt_words, "words_sent": sent_words}
        )
        messages: list[ChatMessage] = [*earlier, ChatMessageUser(content=prompt)]
        output = await generate(
            self.model,
            messages,
            GenerateConfig(temperature=self.temperature, max_tokens=max_tokens),
            step=step,
            cache=step_key(self.state, self.cache),
        )
        self.info["calls"][-1]["reply"] = output.completion
        self._history = [*messages, output.message]
        self._history_words = sent_words + words(output.completion)
        if step == "answer":
            self.state.output = output
            self.state.messages.append(output.message)
        return output.completion

    async def answer(self, context: str, context_words: int) -> TaskState:
        """Answer the question from ``context`` and fill in the final numbers."""
        return await self._answer(context, context_words, follow_up=False)

    async def answer_follow_up(self, pages: str, context_words: int) -> TaskState:
        """Answer in a new turn after the look-up, showing only the ``pages`` asked for (the
        memory is the look-up prompt, earlier in the conversation)."""
        return await self._answer(pages, context_words, follow_up=True)

    async def _answer(self, text: str, context_words: int, *, follow_up: bool) -> TaskState:
        prompt = answer_prompt(self.question, self.options, text, self.prompts_dir, follow_up)
        await self.ask("answer", prompt, context_words, self.answer_max_tokens, follow_up=follow_up)
        return self._finish()

    def _finish(self) -> TaskState:
        self.info["compression_rate"] = 100.0 * (
            1 - self.info["context_words_max"] / max(1, self.doc_words)
        )
        self.info["words_consumed"] = self._own_words + self._shared_words
        self.info["words_sent"] = self._sent_words + self._shared_words
        return self.state


async def paged_run(
    state: TaskState, strategy: str, settings: MemorySettings, answer: ReadingSettings
) -> tuple[ReadingRun, DocumentPages]:
    """The question's run, with the document's pages (made or reused) charged to it."""
    run = ReadingRun.answering(
        state, strategy, answer, prompts_dir=settings.prompts_dir, cache=settings.cache
    )
    pages = await document_pages(run.model, run.document, state.metadata, state.epoch, settings)
    run.use_pages(pages)
    return run, pages
