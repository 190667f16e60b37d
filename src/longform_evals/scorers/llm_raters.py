"""LLM raters for free-form reading answers (NarrativeQA, QMSum): LR-1 and LR-2.

Two raters on the `grader` role compare the answer with each reference answer: a strict one
(does the answer mean exactly what the reference says? YES / NO) and a permissive one (Yes /
Yes, partially / No). LR-1 is the share of exact matches, LR-2 the share of exact or partial
ones; over several references the best rating counts (the ReadAgent paper's raters, with this
project's own prompts in `prompts/raters/`). The rating is read by one of two rules:

* `verdicts` (the paper's): exact when either rater says so (strict YES or permissive plain
  Yes), partial when only the permissive rater says "Yes, partially", else none.
* `calibrated`: exact when the strict rater's P(YES) reaches the grader's calibrated
  `exact_threshold`, partial when the permissive rater's P(Yes) (which covers "Yes" and "Yes,
  partially") reaches `partial_threshold`, else none. Small graders need it: they answer the
  permissive prompt with a plain "Yes" almost whatever the answer (see
  `longform_evals.judges.rater_calibration`).

`auto` (the default) uses `calibrated` when the grader has a calibration, else `verdicts`.

A verdict that cannot be read is asked once more, with the unreadable answer shown and a
request for the verdict alone; one that still cannot be read is recorded as missing, never
read as "No". The sample then counts in `unparsed`, and its LR-1 / LR-2 count only what the
readable verdicts establish (a lower bound); metadata says whether the missing verdicts could
have changed the rating (`determined`).

An answer without words (blank, or only "..." and the like) is not rated: LR-1, LR-2 and
`unparsed` are NaN with the reason counted (see `longform_evals.scorers.unscorable`), so the
means are over rated answers and the `scored` count says how many those were.
"""

from __future__ import annotations

import asyncio
import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.judges.injection import as_data
from longform_evals.judges.rater_calibration import (
    RaterCalibration,
    check_rule,
    load_rater_calibration,
    resolve_rule,
)
from longform_evals.judges.yes_no import NO_VERDICT, YES_VERDICT, p_yes_from_logprobs
from longform_evals.models.identity import cache_policy
from longform_evals.prompts import load_prompt
from longform_evals.scorers.limited import unless_limited
from longform_evals.scorers.rouge import reference_texts
from longform_evals.scorers.unscorable import EMPTY_SUMMARY, check_text, unscorable_metrics

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
        output = await model.generate(
            messages, config=config, cache=cache_policy(model, settings.cache)
        )
        answers.append(output.completion)
        verdict = parse_verdict(output.completion)
        p_yes = p_yes_from_logprobs(output) if settings.logprobs else None
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
    verdicts = await asyncio.gather(
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


def _question(state: TaskState) -> str:
    question = state.metadata.get("question")
    return question if isinstance(question, str) and question.strip() else state.input_text


@scorer(
    metrics={
        "lr1": [mean(), stderr()],
        "lr2": [mean(), stderr()],
        "unparsed": [mean()],
        **unscorable_metrics(judged=True),
    }
)
def llm_raters(
    prompts_dir: str | None = None,
    max_tokens: int = 8,
    cache: bool = True,
    rule: str = "auto",
    calibration: str | None = None,
) -> Scorer:
    """LR-1 / LR-2 of the completion against the sample's references, rated by the `grader`.

    Values are fractions (0-1, per sample 0 or 1); multiply the means by 100 for the
    percentages the ReadAgent paper reports.

    Args:
        prompts_dir: folder overriding `raters/strict.txt`, `raters/permissive.txt` and
            `raters/retry.txt`.
        max_tokens: rater answer length (the verdict is a word or two).
        cache: cache rater calls (re-scoring costs no calls).
        rule: `auto` (calibrated when the grader has a calibration, else verdicts),
            `verdicts` (the paper's reading of the verdict words) or `calibrated` (P(yes)
            against the grader's calibrated thresholds; needs log-probabilities).
        calibration: a rater calibration file to use instead of the grader's packaged one.

    Returns:
        A scorer whose value holds `lr1` (1 for an exact match with some reference), `lr2` (1
        for an exact or partial match), `unparsed` (1 when some verdict could not be read
        even when asked again), and `empty_summary`, `no_sentences`, `scored` (NaN ratings of
        an answer without words, see `longform_evals.scorers.unscorable`); metadata holds the
        rule, every verdict text and P(yes) per reference and rater.
    """
    for name in (*RATERS, "retry"):  # a broken override fails here, not in the middle of a run
        load_prompt("raters", name, prompts_dir)
    check_rule(rule)

    async def score(state: TaskState, target: Target) -> Score:
        references = reference_texts(state, target)
        answer = state.output.completion if state.output else ""
        check = check_text(answer, judged=True)
        if check.problem:
            return Score(
                value={
                    **dict.fromkeys(("lr1", "lr2", "unparsed"), math.nan),
                    **check.values(math.nan),
                },
                answer=answer,
                explanation=f"{check.explanation('answer')}; raters not asked",
                metadata={
                    "empty_answer": check.problem == EMPTY_SUMMARY,
                    **check.metadata(),
                    "rating": None,
                    "ratings": [],
                },
            )
        model = get_model(role="grader")
        cal = load_rater_calibration(str(model), calibration)
        calibrated = resolve_rule(rule, cal, str(model))
        settings = RatingSettings(
            prompts_dir=prompts_dir, max_tokens=max_tokens, cache=cache, logprobs=calibrated
        )
        rows = await rate_answer(model, _question(state), answer, references, settings)
        bounds = [
            rate_reference_calibrated(r["strict"].p_yes, r["permissive"].p_yes, cal)
            if calibrated
            else rate_reference(r["strict"].verdict, r["permissive"].verdict)
            for r in rows
        ]
        lower: Rating = "none"
        upper: Rating = "none"
        for low, high in bounds:
            lower, upper = _best(lower, low), _best(upper, high)
        missing = sum(
            (v.p_yes if calibrated else v.verdict) is None for r in rows for v in r.values()
        )
        best = max(range(len(rows)), key=lambda i: _RANK[bounds[i][0]])
        metadata: dict[str, Any] = {
            "empty_answer": False,
            **check.metadata(),
            "grader": str(model),
            "rule": "calibrated" if calibrated else "verdicts",
            "calibration": cal.source,
            **(
                {"exact_threshold": cal.exact_threshold, "partial_threshold": cal.partial_threshold}
                if calibrated
                else {}
            ),
            "rating": lower,
            "determined": lower == upper,
            "unparsed_verdicts": missing,
            "ratings": [
                {
                    "reference": ref,
                    "rating": bound[0],
                    **{
                        rater: {
                            "verdict": row[rater].verdict,
                            "p_yes": row[rater].p_yes,
                            "answers": row[rater].answers,
                        }
                        for rater in RATERS
                    },
                }
                for ref, row, bound in zip(references, rows, bounds, strict=True)
            ],
        }
        return Score(
            value={
                "lr1": int(lower == "exact"),
                "lr2": int(lower != "none"),
                "unparsed": int(missing > 0),
                **check.values(0.0),
            },
            answer=answer,
            explanation=(
                f"{lower} match (best: reference {best + 1} of {len(references)}"
                + (f"; {missing} verdict(s) unreadable" if missing else "")
                + (", calibrated P(yes) thresholds" if calibrated else "")
                + ")"
            ),
            metadata=metadata,
        )

    return unless_limited(score)
