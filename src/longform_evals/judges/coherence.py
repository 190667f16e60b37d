"""The coherence judgement: "does this summary sentence confuse a reader, and how?"

Two ways of asking a generative judge, with the same output:
- `sentence` (the paper's method): one call per sentence; the prompt holds the taxonomy,
  the demonstrations and the whole summary first and the target sentence last, so every
  call of one summary shares its prefix (provider prompt caches, the local KV cache). The
  default `quoted` layout (the paper's) ends with the sentence's text and a reminder that it
  is data; the experimental `numbered` layout shows the summary one numbered sentence per
  line and ends with the sentence's number, so a call adds a few tokens to the shared prefix,
  but the 0.5B judge then fails the answer format for most sentences
  (`benchmarks/booookscore_cost.py` measures both);
- `batched`: N numbered sentences per call, answered as one JSON list (fewer calls).

A malformed answer (unknown type, no verdict, broken JSON) is sent back with the reason and
asked again, up to `max_attempts` calls in all; what still cannot be read is a parse failure,
kept in the verdict and excluded from the score by the scorer. Every attempt is a model call
in the log, and each failure is also noted in the transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
)
from pydantic import JsonValue

from longform_evals.judges.coherence_parse import (
    JudgementParseError,
    parse_batch,
    parse_judgement,
)
from longform_evals.judges.demonstrations import (
    load_demonstrations,
    numbered_lines,
    render_for_batches,
    render_for_sentences,
)
from longform_evals.judges.injection import as_data
from longform_evals.judges.steps import JUDGE
from longform_evals.models.calls import generate
from longform_evals.models.fan_out import fan_out
from longform_evals.progress import BOARD, JUDGE_PHASE
from longform_evals.prompts import load_prompt

JudgeMode = Literal["sentence", "batched"]
SentenceLayout = Literal["numbered", "quoted"]
_SENTENCE_TEMPLATES: dict[str, str] = {
    "numbered": "judge_sentence",
    "quoted": "judge_sentence_quoted",
}


@dataclass
class SentenceVerdict:
    """The judge's verdict on one summary sentence."""

    index: int
    sentence: str
    parsed: bool = False
    confused: bool | None = None
    questions: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    attempts: int = 0
    problems: list[str] = field(default_factory=list)
    truncated: int = 0
    p_confusion: float | None = None
    type_probabilities: dict[str, float] | None = None
    read_from: dict[str, int] | None = None
    """Probe modes: how many of the sentence's yes/no answers were read from log-probabilities,
    from their words (the provider gave no log-probabilities), or not at all."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class JudgeSettings:
    """How to ask the judge."""

    mode: JudgeMode = "sentence"
    batch_size: int = 10
    max_attempts: int = 3
    temperature: float = 0.0
    max_tokens: int = 160
    cache: bool = True
    """Verdicts are deterministic at temperature 0: caching them lets a summary be re-scored
    (score_only, `inspect score`) without new calls."""
    prompts_dir: str | None = None
    demonstrations: str | None = None
    layout: SentenceLayout = "quoted"


def _config(settings: JudgeSettings, max_tokens: int) -> GenerateConfig:
    return GenerateConfig(temperature=settings.temperature, max_tokens=max_tokens)


async def judge_summary(
    model: Model,
    sentences: list[str],
    settings: JudgeSettings,
    only: Sequence[int] | None = None,
    text: str | None = None,
) -> tuple[list[SentenceVerdict], int]:
    """Verdicts for the sentences of one summary, and the number of judge calls made.

    Args:
        model: the judge.
        sentences: every sentence of the summary, in order (the judge sees them all).
        settings: how to ask.
        only: in `sentence` mode, judge just these sentence indices (default: all).
        text: the summary as the judge is shown it in the `quoted` and batched prompts;
            default (the scorers'): its sentences joined by single spaces. A caller that
            reproduces another implementation's prompt byte for byte passes the text as
            written (paragraph breaks kept).
    """
    summary = " ".join(sentences) if text is None else text
    if settings.mode == "sentence":
        if settings.layout not in _SENTENCE_TEMPLATES:
            raise ValueError(
                f"unknown sentence-mode layout {settings.layout!r}; expected "
                + " or ".join(map(repr, _SENTENCE_TEMPLATES))
            )
        if settings.layout == "numbered":
            summary = numbered_lines([as_data(s) for s in sentences])
        indices = range(len(sentences)) if only is None else only
        verdicts = await fan_out(
            *[_judge_one(model, summary, i, sentences[i], settings) for i in indices]
        )
        return verdicts, sum(v.attempts for v in verdicts)
    if settings.mode == "batched":
        if settings.batch_size < 1:
            raise ValueError(f"judge batch size must be at least 1, got {settings.batch_size}")
        starts = range(0, len(sentences), settings.batch_size)
        batches = await fan_out(
            *[
                _judge_batch(model, summary, sentences, start, settings.batch_size, settings)
                for start in starts
            ]
        )
        return [v for batch, _ in batches for v in batch], sum(calls for _, calls in batches)
    raise ValueError(f"unknown judge mode {settings.mode!r}; expected 'sentence' or 'batched'")


def sentence_prompt(summary: str, index: int, sentence: str, settings: JudgeSettings) -> str:
    """The sentence-mode prompt for sentence ``index``; ``summary`` is the numbered lines
    (fenced) in the `numbered` layout, the plain summary in the `quoted` one."""
    template = load_prompt(
        "booookscore", _SENTENCE_TEMPLATES[settings.layout], settings.prompts_dir
    )
    numbered = settings.layout == "numbered"
    demos = render_for_sentences(load_demonstrations(settings.demonstrations), numbered=numbered)
    if numbered:
        return template.render(demonstrations=demos, summary=summary, number=index + 1)
    return template.render(
        demonstrations=demos, summary=as_data(summary), sentence=as_data(sentence)
    )


async def _judge_one(
    model: Model, summary: str, index: int, sentence: str, settings: JudgeSettings
) -> SentenceVerdict:
    retry = load_prompt("booookscore", "retry", settings.prompts_dir)
    messages: list[ChatMessage] = [
        ChatMessageUser(content=sentence_prompt(summary, index, sentence, settings))
    ]
    verdict = SentenceVerdict(index=index, sentence=sentence)
    BOARD.plan(JUDGE_PHASE, 1)
    for _ in range(settings.max_attempts):
        output = await generate(
            model,
            messages,
            _config(settings, settings.max_tokens),
            step=JUDGE,
            cache=settings.cache,
            progress=JUDGE_PHASE,
        )
        verdict.attempts += 1
        if output.stop_reason in ("max_tokens", "model_length"):
            verdict.truncated += 1
        try:
            judgement = parse_judgement(output.completion)
        except JudgementParseError as exc:
            verdict.problems.append(str(exc))
            transcript().info(
                {
                    "coherence_parse_failure": str(exc),
                    "sentence": index,
                    "answer": output.completion,
                },
            )
            messages = [
                *messages,
                ChatMessageAssistant(content=output.completion),
                ChatMessageUser(content=retry.render(problem=str(exc))),
            ]
            continue
        verdict.parsed = True
        verdict.confused = judgement.confused
        verdict.questions = judgement.questions
        verdict.types = judgement.types
        return verdict
    return verdict


def _batch_prompt(summary: str, batch: list[str], settings: JudgeSettings) -> str:
    """The batched-mode prompt: the summary and the batch's sentences, numbered from 1."""
    template = load_prompt("booookscore", "judge_batch", settings.prompts_dir)
    demos = render_for_batches(load_demonstrations(settings.demonstrations))
    numbered = "\n".join(f"{n}. {as_data(s)}" for n, s in enumerate(batch, start=1))
    return template.render(
        demonstrations=demos, summary=as_data(summary), numbered_sentences=numbered
    )


def _take_batch_answer(
    output: ModelOutput, verdicts: list[SentenceVerdict], pending: set[int]
) -> dict[int, str]:
    """Record one answer to a batch in the verdicts of its pending sentences (numbered from
    1), take the answered ones out of ``pending`` and return the problems of the others."""
    for n in pending:
        verdicts[n - 1].attempts += 1
        if output.stop_reason in ("max_tokens", "model_length"):
            verdicts[n - 1].truncated += 1
    try:
        judgements, problems = parse_batch(output.completion, len(verdicts))
    except JudgementParseError as exc:
        judgements, problems = {}, {n: str(exc) for n in pending}
    for n, judgement in judgements.items():
        if n in pending:
            v = verdicts[n - 1]
            v.parsed, v.confused = True, judgement.confused
            v.questions, v.types = judgement.questions, judgement.types
            pending.discard(n)
    problems = {n: p for n, p in problems.items() if n in pending}
    for n, problem in problems.items():
        verdicts[n - 1].problems.append(problem)
    return problems


async def _judge_batch(
    model: Model,
    summary: str,
    sentences: list[str],
    start: int,
    size: int,
    settings: JudgeSettings,
) -> tuple[list[SentenceVerdict], int]:
    batch = sentences[start : start + size]
    messages: list[ChatMessage] = [ChatMessageUser(content=_batch_prompt(summary, batch, settings))]
    retry = load_prompt("booookscore", "retry_batch", settings.prompts_dir)
    verdicts = [SentenceVerdict(index=start + i, sentence=s) for i, s in enumerate(batch)]
    pending = set(range(1, len(batch) + 1))
    calls = 0
    BOARD.plan(JUDGE_PHASE, 1)
    for _ in range(settings.max_attempts):
        calls += 1
        output = await generate(
            model,
            messages,
            _config(settings, settings.max_tokens * len(batch)),
            step=JUDGE,
            cache=settings.cache,
            progress=JUDGE_PHASE,
        )
        problems = _take_batch_answer(output, verdicts, pending)
        if not pending:
            break
        failures: dict[str, JsonValue] = {str(n): p for n, p in problems.items()}
        transcript().info({"coherence_parse_failure": failures, "batch_start": start})
        listing = "; ".join(f"sentence {n}: {p}" for n, p in sorted(problems.items()))
        messages = [
            *messages,
            ChatMessageAssistant(content=output.completion),
            ChatMessageUser(
                content=retry.render(
                    problems=listing, numbers=", ".join(str(n) for n in sorted(pending))
                )
            ),
        ]
    return verdicts, calls
