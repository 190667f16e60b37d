"""The LLM raters' judgement (LR-1 / LR-2): ask the strict and permissive raters, read their
verdicts, rate an answer against its references.

Two raters compare an answer with each reference answer: a strict one (does the answer mean
exactly what the reference says? YES / NO) and a permissive one (Yes / Yes, partially / No);
over several references the best rating counts (the ReadAgent paper's raters, "A Human-Inspired
Reading Agent with Gist Memory of Very Long Contexts", arXiv:2402.09727, with this project's own
prompts in `prompts/raters/`). A rating is read by one of two rules: `verdicts` (the paper's:
exact when either rater says so, partial when only the permissive one says "Yes, partially")
or `calibrated` (P(yes) against the thresholds of `judges/rater_calibration.py`). A verdict
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
)

from longform_evals.judges.injection import as_data
from longform_evals.judges.rater_calibration import RaterCalibration
from longform_evals.judges.steps import JUDGE
from longform_evals.judges.yes_no import (
    NO_VERDICT,
    YES_VERDICT,
    impossible_logprobs,
    p_yes_from_logprobs,
)
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

_LABEL = re.compile(
    r"^[\W_]*(?:final\s+)?(?:verdict|answer|rating|response|grade|judge?ment)[\W_]*?[:\-]",
    re.IGNORECASE,
)
_START = re.compile(
    r"^[\W_]*(?:(?P<yes>yes)|(?P<partial>partial(?:ly)?|partly)|(?P<no>no))\b", re.IGNORECASE
)
_PARTIAL = re.compile(r"\b(?:partial(?:ly)?|partly|in\s+part)\b", re.IGNORECASE)


def parse_verdict(text: str) -> Verdict | None:
    """A rater's verdict: `yes`, `partial` ("Yes, partially", "Partially") or `no`.

    The verdict word at the start decides (after markdown, punctuation and a label such as
    "Verdict:"); a "yes" whose first line also says "partially" is partial. Otherwise the text
    decides when it mentions only one kind of verdict. A yes or partial answer that also says
    no, or a no that also says yes, is hedged or double and None ("Yes, but no.", "Yes or no",
    "yes/no"); a "no" followed by a word is no verdict ("Yes. There is no difference." is yes;
    see `longform_evals.judges.yes_no`). Anything else is None.
    """
    body = _LABEL.sub("", text.strip(), count=1)
    has_yes, has_no = bool(YES_VERDICT.search(body)), bool(NO_VERDICT.search(body))
    start = _START.match(body)
    if start:
        if start.group("no"):
            return None if has_yes else "no"
        if has_no:
            return None
        if start.group("yes"):
            first_line = body[start.end() :].split("\n", 1)[0]
            return "partial" if _PARTIAL.search(first_line) else "yes"
        return "partial"
    kinds: set[Verdict] = set()
    if _PARTIAL.search(body):
        kinds.add("partial")
    elif has_yes:
        kinds.add("yes")
    if has_no:
        kinds.add("no")
    return kinds.pop() if len(kinds) == 1 else None


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


def _p_from_verdict(verdict: Verdict | None) -> float | None:
    return None if verdict is None else 0.0 if verdict == "no" else 1.0


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
        broken = settings.logprobs and impossible_logprobs(output)
        verdict = None if broken else parse_verdict(output.completion)
        p_yes = p_yes_from_logprobs(output) if settings.logprobs and not broken else None
        if p_yes is None:
            p_yes = _p_from_verdict(verdict)
        if verdict is not None or (settings.logprobs and p_yes is not None):
            return RaterVerdict(verdict, answers, p_yes)
        # Temperature 0 on the same prompt would repeat the same answer: the retry differs.
        messages = [
            *messages,
            ChatMessageAssistant(content=output.completion),
            ChatMessageUser(content=retry.render(choices=_CHOICES.get(rater, _CHOICES["strict"]))),
        ]
    return RaterVerdict(None, answers, None)


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
