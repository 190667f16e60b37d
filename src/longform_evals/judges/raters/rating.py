"""The LLM raters' judgement (LR-1 / LR-2): ask the strict and permissive raters, read their
verdicts, rate an answer against its references.

Two raters compare an answer with each reference answer: a strict one (does the answer mean
exactly what the reference says? YES / NO) and a permissive one (Yes / Yes, partially / No);
over several references the best rating counts (the ReadAgent paper's raters, "A Human-Inspired
Reading Agent with Gist Memory of Very Long Contexts", arXiv:2402.09727, with this project's own
prompts in `prompts/raters/`). A rating is read by one of two rules: `verdicts` (the paper's:
exact when either rater says so, partial when only the permissive one says "Yes, partially")
or `calibrated` (P(yes) against the thresholds of `judges/raters/calibration.py`). A verdict
that cannot be read is asked once more; one that still cannot be read is missing, never "No",
and the rating is then known only between bounds (:class:`Rated`): LR-1 and LR-2 are read
where the bounds settle them and are unreadable (NaN) where they do not. The `llm_raters` scorer
(`scorers/llm_raters.py`) wraps this for Inspect.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
)

from longform_evals.judges.injection import as_data
from longform_evals.judges.raters.calibration import RaterCalibration
from longform_evals.judges.registry import JudgeEntry, register_judge
from longform_evals.judges.steps import JUDGE
from longform_evals.judges.verdict_text import TextVerdict, answer_form, negated_at, read_answer
from longform_evals.judges.yes_no import token_reading
from longform_evals.models.calls import generate
from longform_evals.models.fan_out import fan_out
from longform_evals.prompts import load_prompt

__all__ = [
    "RATERS",
    "Rated",
    "RaterVerdict",
    "Rating",
    "RatingSettings",
    "Verdict",
    "ask_rater",
    "check_prompts",
    "parse_verdict",
    "rate_answer",
    "rate_reference",
    "rate_reference_calibrated",
    "rated",
]

Verdict = Literal["yes", "partial", "no"]
Rating = Literal["exact", "partial", "none"]
RATERS: tuple[str, ...] = ("strict", "permissive")
_RANK: dict[Rating, int] = {"none": 0, "partial": 1, "exact": 2}
_CHOICES: dict[str, str] = {"strict": "YES or NO", "permissive": "Yes, Yes, partially, or No"}

_PARTIAL_WORDS = {"partial": "partial", "partially": "partial", "partly": "partial"}
_PARTIAL = re.compile(r"\b(?:partial(?:ly)?|partly|in\s+part)\b", re.IGNORECASE)


def parse_verdict(text: str) -> Verdict | None:
    """A rater's verdict: `yes`, `partial` ("Yes, partially", "Partially") or `no`.

    Read in answer position only, by the rule of `longform_evals.judges.verdict_text`: the
    first word (after markdown, punctuation and a label such as "Verdict:") is the verdict, and
    a "yes" whose first line also says "partially" (not negated) is partial. A first word that
    is no verdict ("The two answers agree, so YES.", "Not really"), a quoted or negated
    verdict, or a later verdict of the other kind ("Yes, but no.", "Partially; no") leaves the
    answer unreadable: None, asked once more, never inferred.
    """
    verdict = _text_verdict(text)
    return None if verdict is None else _verdict_kind(text, verdict)


def _text_verdict(text: str) -> TextVerdict | None:
    return read_answer(text, _PARTIAL_WORDS, {"partial": "yes"})


def _verdict_kind(text: str, verdict: TextVerdict) -> Verdict | None:
    if verdict.kind == "no":
        return "no"
    if verdict.kind == "partial":
        return "partial"
    norm = answer_form(text)
    first_line = norm[verdict.end :].split("\n", 1)[0]
    partial = _PARTIAL.search(first_line)
    if partial is None:
        return "yes"
    return None if negated_at(norm, verdict.end + partial.start()) else "partial"


def _best(a: Rating, b: Rating) -> Rating:
    return a if _RANK[a] >= _RANK[b] else b


def rate_reference(strict: Verdict | None, permissive: Verdict | None) -> tuple[Rating, Rating]:
    """The `verdicts` rating against one reference, as (lower, upper) bounds over missing ones.

    Exact when the strict rater says yes or the permissive one says a plain yes; partial when
    the permissive one says partially; otherwise none. With both verdicts read the bounds agree.
    """

    def rating(s: Verdict | None, p: Verdict | None) -> Rating:
        if s == "yes" or p == "yes":
            return "exact"
        return "partial" if p == "partial" else "none"

    return rating(strict, permissive), rating(strict or "yes", permissive or "yes")


def rate_reference_calibrated(
    p_strict: float | None, p_permissive: float | None, calibration: RaterCalibration
) -> tuple[Rating, Rating]:
    """The `calibrated` rating against one reference, as (lower, upper) bounds.

    Exact when the strict P(YES) reaches the exact threshold; partial when the permissive
    P(Yes) reaches the partial threshold; otherwise none. A missing probability counts as 0
    for the lower bound and 1 for the upper one.
    """

    def rating(s: float, p: float) -> Rating:
        if s >= calibration.exact_threshold:
            return "exact"
        return "partial" if p >= calibration.partial_threshold else "none"

    def known(x: float | None, default: float) -> float:
        return default if x is None else x

    return (
        rating(known(p_strict, 0.0), known(p_permissive, 0.0)),
        rating(known(p_strict, 1.0), known(p_permissive, 1.0)),
    )


@dataclass(frozen=True)
class RaterVerdict:
    """One rater's verdict on one (answer, reference) pair."""

    verdict: Verdict | None
    answers: list[str]
    """The rater's answer text, and the retry's when the first could not be read."""
    p_yes: float | None = None
    """P(yes) of the first answer token (yes or partially, for the permissive rater), when
    log-probabilities were asked for; else from the verdict word (1.0 / 0.0)."""


@dataclass(frozen=True)
class RatingSettings:
    """How the raters are asked."""

    prompts_dir: str | None = None
    max_tokens: int = 8
    cache: bool = True
    logprobs: bool = False
    top_logprobs: int = 10


def _read_rater(output: ModelOutput, logprobs: bool) -> tuple[Verdict | None, float | None]:
    """The verdict and P(yes) of one answer, by the one reading of `judges.yes_no`: with
    log-probabilities asked for, an answer whose numbers are impossible, or whose first token
    gives another verdict than its words, is unreadable (both None)."""
    words = _text_verdict(output.completion)
    verdict = None if words is None else _verdict_kind(output.completion, words)
    if verdict is None or words is None:
        return None, None
    p_yes, source = (
        token_reading(output, words, frozenset({"partial"})) if logprobs else (None, "text")
    )
    if source == "unreadable":
        return None, None
    return verdict, p_yes if p_yes is not None else (0.0 if verdict == "no" else 1.0)


async def ask_rater(
    model: Model, prompt: str, settings: RatingSettings, rater: str = "strict"
) -> RaterVerdict:
    """Ask one rater; when its answer cannot be read, show it and ask for the verdict alone."""
    config = GenerateConfig(
        temperature=0.0,
        max_tokens=settings.max_tokens,
        logprobs=settings.logprobs or None,
        top_logprobs=settings.top_logprobs if settings.logprobs else None,
    )
    retry = load_prompt("raters", "retry", settings.prompts_dir)
    messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
    answers: list[str] = []
    for _ in (1, 2):
        output = await generate(model, messages, config, step=JUDGE, cache=settings.cache)
        answers.append(output.completion)
        verdict, p_yes = _read_rater(output, settings.logprobs)
        if verdict is not None:
            return RaterVerdict(verdict, answers, p_yes)
        # Temperature 0 on the same prompt would repeat the same answer: the retry differs.
        messages = [
            *messages,
            ChatMessageAssistant(content=output.completion),
            ChatMessageUser(content=retry.render(choices=_CHOICES.get(rater, _CHOICES["strict"]))),
        ]
    return RaterVerdict(None, answers, None)


for _rater in RATERS:  # LR-1 reads the strict rater's verdicts, LR-2 both
    register_judge(
        JudgeEntry(
            "rater",
            _rater,
            ask_rater,
            RatingSettings,
            lambda work: float(work.items),  # one call per reference (a retry comes on top)
            calibration_kind="raters",
        )
    )


async def rate_answer(
    model: Model, question: str, answer: str, references: list[str], settings: RatingSettings
) -> list[dict[str, RaterVerdict]]:
    """Both raters' verdicts on the answer against every reference, all asked concurrently."""
    templates = {r: load_prompt("raters", r, settings.prompts_dir) for r in RATERS}
    pairs = [(ref, rater) for ref in references for rater in RATERS]
    # Line breaks and doubled spaces in an answer say nothing about it; raters see one space.
    answer = " ".join(answer.split())
    verdicts = await fan_out(
        *[
            ask_rater(
                model,
                templates[rater].render(
                    question=as_data(question), reference=as_data(ref), answer=as_data(answer)
                ),
                settings,
                rater,
            )
            for ref, rater in pairs
        ]
    )
    n = len(RATERS)
    return [
        dict(zip(RATERS, verdicts[i * n : (i + 1) * n], strict=True))
        for i in range(len(references))
    ]


def check_prompts(prompts_dir: str | None) -> None:
    """Load every rater template once, so a broken override fails before a run starts."""
    for name in (*RATERS, "retry"):
        load_prompt("raters", name, prompts_dir)


@dataclass(frozen=True)
class Rated:
    """An answer's rating over all its references, from both raters' verdicts."""

    rows: list[dict[str, RaterVerdict]]
    """Per reference, each rater's verdict."""
    bounds: list[tuple[Rating, Rating]]
    """Per reference, the (lower, upper) rating over the missing verdicts."""
    lower: Rating
    """The best rating the readable verdicts establish (what LR-1 / LR-2 count)."""
    upper: Rating
    """The best rating the missing verdicts could still give."""
    missing: int
    """Verdicts (or, calibrated, probabilities) that could not be read."""
    best: int
    """Index of the reference the rating comes from."""

    @property
    def lr1(self) -> float:
        """LR-1 (an exact match with some reference): 1 or 0 where the readable verdicts settle
        it, NaN where a missing verdict could make it either (unreadable, not a 0)."""
        return _settled(self.lower == "exact", self.upper == "exact")

    @property
    def lr2(self) -> float:
        """LR-2 (at least a partial match), as :attr:`lr1`."""
        return _settled(self.lower != "none", self.upper != "none")


def _settled(at_least: bool, at_most: bool) -> float:
    """1 when even the lower bound holds, 0 when even the upper bound fails, else NaN."""
    if at_least:
        return 1.0
    return math.nan if at_most else 0.0


def rated(
    rows: list[dict[str, RaterVerdict]], calibration: RaterCalibration, calibrated: bool
) -> Rated:
    """The best rating over references, by the calibrated or the verdicts rule."""
    bounds = [
        rate_reference_calibrated(r["strict"].p_yes, r["permissive"].p_yes, calibration)
        if calibrated
        else rate_reference(r["strict"].verdict, r["permissive"].verdict)
        for r in rows
    ]
    lower: Rating = "none"
    upper: Rating = "none"
    for low, high in bounds:
        lower, upper = _best(lower, low), _best(upper, high)
    missing = sum((v.p_yes if calibrated else v.verdict) is None for r in rows for v in r.values())
    best = max(range(len(rows)), key=lambda i: _RANK[bounds[i][0]])
    return Rated(rows, bounds, lower, upper, missing, best)
