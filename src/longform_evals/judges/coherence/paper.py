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
from dataclasses import asdict, dataclass, field, replace
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

from longform_evals.judges.coherence.demonstrations import (
    load_demonstrations,
    numbered_lines,
    render_for_batches,
    render_for_sentences,
)
from longform_evals.judges.coherence.parse import (
    JudgementParseError,
    parse_batch,
    parse_judgement,
)
from longform_evals.judges.injection import as_data
from longform_evals.judges.statement_parts import sentence_readings
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
    readings: int = 0
    """How many other readings of the sentence were judged (`statement_parts.sentence_readings`:
    without its suspect pieces); the most confusing is kept."""
    more_confusing: str | None = None
    """The reading judged more confusing than the sentence as written, whose judgement was
    kept (None: the sentence's own); a note to the judge left out shows up here."""

    @property
    def reading_decided(self) -> bool:
        """Whether a reading, not the sentence as written, decided the verdict: it was more
        confusing, or unreadable where the sentence was read."""
        return self.more_confusing is not None or any(
            p.startswith("reading ") for p in self.problems
        )

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
    readings: bool = False
    """Also judge each sentence's readings (without its suspect pieces: in another language,
    naming the verdict word or addressed to the judge, `statement_parts.sentence_readings`)
    and keep the most confusing verdict."""


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
        if settings.readings:
            verdicts = await fan_out(
                *[_sentence_readings(model, sentences, text, v, settings) for v in verdicts]
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
        verdicts = [v for batch, _ in batches for v in batch]
        calls = sum(n for _, n in batches)
        if settings.readings:
            verdicts, more = await _batched_readings(model, sentences, text, verdicts, settings)
            calls += more
        return verdicts, calls
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


def _in_place(sentences: list[str], text: str | None, index: int, reading: str) -> str:
    """The summary as the judge is shown it, with sentence `index` replaced by `reading`."""
    if text is None:
        return " ".join([*sentences[:index], reading, *sentences[index + 1 :]])
    return text.replace(sentences[index], reading, 1)


async def _sentence_readings(
    model: Model,
    sentences: list[str],
    text: str | None,
    verdict: SentenceVerdict,
    settings: JudgeSettings,
) -> SentenceVerdict:
    """`sentence` mode: judge the readings of the verdict's sentence one by one, each in the
    sentence's place in the summary, until one is confused or unreadable, and keep the most
    confusing verdict (:func:`most_confusing`). A sentence confused as written, or
    unreadable, costs no extra call."""
    i = verdict.index
    if verdict.confused or not verdict.parsed:
        return verdict
    readings: list[str] = []
    others: list[SentenceVerdict] = []
    for reading in sentence_readings(sentences, i):
        swapped = [*sentences[:i], reading, *sentences[i + 1 :]]
        summary = (
            numbered_lines([as_data(s) for s in swapped])
            if settings.layout == "numbered"
            else _in_place(sentences, text, i, reading)
        )
        other = await _judge_one(model, summary, i, reading, settings)
        readings.append(reading)
        others.append(other)
        if other.confused or not other.parsed:
            break
    return most_confusing(verdict, readings, others) if readings else verdict


async def _batched_readings(
    model: Model,
    sentences: list[str],
    text: str | None,
    verdicts: list[SentenceVerdict],
    settings: JudgeSettings,
) -> tuple[list[SentenceVerdict], int]:
    """`batched` mode: the readings of the sentences read as clear, judged in rounds, round
    k holding the k-th reading of every sentence still clear in batches, shown in a summary
    where those sentences read so; then the most confusing verdict of each sentence.
    Returns the verdicts and the extra calls."""
    readings = {
        v.index: sentence_readings(sentences, v.index)
        for v in verdicts
        if v.parsed and not v.confused
    }
    others: dict[int, list[SentenceVerdict]] = {i: [] for i in readings}
    calls = 0
    for k in range(max(map(len, readings.values()), default=0)):
        # A sentence leaves the rounds at its first confused or unreadable reading.
        idx = [
            i
            for i, rs in readings.items()
            if len(rs) > k and all(o.parsed and not o.confused for o in others[i])
        ]
        swapped = list(sentences)
        summary = text
        for i in idx:
            swapped[i] = readings[i][k]
            summary = None if summary is None else summary.replace(sentences[i], swapped[i], 1)
        summary = " ".join(swapped) if summary is None else summary
        listed = [swapped[i] for i in idx]
        size = settings.batch_size
        batches = await fan_out(
            *[
                _judge_batch(model, summary, listed, start, size, settings)
                for start in range(0, len(listed), size)
            ]
        )
        for batch, n in batches:
            calls += n
            for v in batch:  # a batch numbers the listed readings, not the summary
                others[idx[v.index]].append(v)
    out = [
        most_confusing(v, readings[v.index][: len(others[v.index])], others[v.index])
        if others.get(v.index)
        else v
        for v in verdicts
    ]
    return out, calls


def most_confusing(
    whole: SentenceVerdict, readings: list[str], others: list[SentenceVerdict]
) -> SentenceVerdict:
    """The verdict on a sentence given the verdicts on its readings: confused when the
    sentence or any reading is (the first confused reading named in `more_confusing` when
    the sentence as written was not), with every type and question found; unreadable when
    any of them is, the unreadable readings named in `problems`. Calls add up."""
    out = replace(whole, questions=list(whole.questions), types=list(whole.types))
    out.problems = list(whole.problems)
    out.readings = len(readings)
    out.attempts += sum(o.attempts for o in others)
    out.truncated += sum(o.truncated for o in others)
    unread = [(r, o) for r, o in zip(readings, others, strict=True) if not o.parsed]
    for r, o in unread:
        out.problems.append(f"reading {r!r}: {'; '.join(o.problems) or 'unreadable'}")
    if unread or not whole.parsed:
        out.parsed, out.confused = False, None
        return out
    confused = [(r, o) for r, o in zip(readings, others, strict=True) if o.confused]
    if confused and not whole.confused:
        out.confused, out.more_confusing = True, confused[0][0]
    for _, o in confused:
        out.types += [x for x in o.types if x not in out.types]
        out.questions += [q for q in o.questions if q not in out.questions]
    return out
