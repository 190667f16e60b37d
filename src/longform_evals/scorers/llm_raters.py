"""LLM raters for free-form reading answers (NarrativeQA, QMSum): LR-1 and LR-2.

Two raters on the `grader` role compare the answer with each reference answer: a strict one
(does the answer mean exactly what the reference says? YES / NO) and a permissive one (Yes /
Yes, partially / No). Against one reference the answer is an *exact* match when either rater
says so (strict YES or permissive plain Yes), a *partial* match when only the permissive rater
says "Yes, partially", else no match; over several references the best rating counts. LR-1 is
the share of exact matches, LR-2 the share of exact or partial ones (the ReadAgent paper's
raters, with this project's own prompts in `prompts/raters/`).

A verdict that cannot be read is asked once more; one that still cannot be read is recorded as
missing, never read as "No". The sample then counts in `unparsed`, and its LR-1 / LR-2 count
only what the readable verdicts establish (a lower bound); metadata says whether the missing
verdicts could have changed the rating (`determined`).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.prompts import load_prompt
from longform_evals.scorers.rouge import reference_texts

Verdict = Literal["yes", "partial", "no"]
Rating = Literal["exact", "partial", "none"]
RATERS: tuple[str, ...] = ("strict", "permissive")
_RANK: dict[Rating, int] = {"none": 0, "partial": 1, "exact": 2}

_LABEL = re.compile(
    r"^[\W_]*(?:final\s+)?(?:verdict|answer|rating|response|grade|judge?ment)[\W_]*?[:\-]",
    re.IGNORECASE,
)
_START = re.compile(
    r"^[\W_]*(?:(?P<yes>yes)|(?P<partial>partial(?:ly)?|partly)|(?P<no>no))\b", re.IGNORECASE
)
_PARTIAL = re.compile(r"\b(?:partial(?:ly)?|partly|in\s+part)\b", re.IGNORECASE)
_YES = re.compile(r"\byes\b", re.IGNORECASE)
_NO = re.compile(r"\bno\b", re.IGNORECASE)


def parse_verdict(text: str) -> Verdict | None:
    """A rater's verdict: `yes`, `partial` ("Yes, partially", "Partially") or `no`.

    The verdict word at the start decides (after markdown, punctuation and a label such as
    "Verdict:"); a "yes" whose first line also says "partially" is partial. Otherwise the text
    decides when it mentions only one kind of verdict. Anything else is None.
    """
    body = _LABEL.sub("", text.strip(), count=1)
    start = _START.match(body)
    if start:
        if start.group("yes"):
            first_line = body[start.end() :].split("\n", 1)[0]
            return "partial" if _PARTIAL.search(first_line) else "yes"
        return "partial" if start.group("partial") else "no"
    kinds: set[Verdict] = set()
    if _PARTIAL.search(body):
        kinds.add("partial")
    elif _YES.search(body):
        kinds.add("yes")
    if _NO.search(body):
        kinds.add("no")
    return kinds.pop() if len(kinds) == 1 else None


def rate_reference(strict: Verdict | None, permissive: Verdict | None) -> tuple[Rating, Rating]:
    """The rating against one reference, as (lower, upper) bounds over missing verdicts.

    Exact when the strict rater says yes or the permissive one says a plain yes; partial when
    the permissive one says partially; otherwise none. With both verdicts read the bounds agree.
    """

    def rating(s: Verdict | None, p: Verdict | None) -> Rating:
        if s == "yes" or p == "yes":
            return "exact"
        return "partial" if p == "partial" else "none"

    return rating(strict, permissive), rating(strict or "yes", permissive or "yes")


@dataclass(frozen=True)
class RaterVerdict:
    """One rater's verdict on one (answer, reference) pair."""

    verdict: Verdict | None
    answers: list[str]
    """The rater's answer text, and the retry's when the first could not be read."""


@dataclass(frozen=True)
class RatingSettings:
    """How the raters are asked."""

    prompts_dir: str | None = None
    max_tokens: int = 16
    cache: bool = True


async def ask_rater(model: Model, prompt: str, settings: RatingSettings) -> RaterVerdict:
    """Ask one rater; ask once more when its answer cannot be read."""
    config = GenerateConfig(temperature=0.0, max_tokens=settings.max_tokens)
    answers: list[str] = []
    for attempt in (1, 2):
        # The retry is cached under its own key: the same prompt would otherwise hit the
        # cached unreadable answer.
        cache: CachePolicy | bool = (
            CachePolicy(expiry=None, scopes={"rater_attempt": str(attempt)} if attempt > 1 else {})
            if settings.cache
            else False
        )
        output = await model.generate(prompt, config=config, cache=cache)
        answers.append(output.completion)
        verdict = parse_verdict(output.completion)
        if verdict is not None:
            return RaterVerdict(verdict, answers)
    return RaterVerdict(None, answers)


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
                templates[rater].render(question=question, reference=ref, answer=answer),
                settings,
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


@scorer(metrics={"lr1": [mean(), stderr()], "lr2": [mean(), stderr()], "unparsed": [mean()]})
def llm_raters(prompts_dir: str | None = None, max_tokens: int = 16, cache: bool = True) -> Scorer:
    """LR-1 / LR-2 of the completion against the sample's references, rated by the `grader`.

    Values are fractions (0-1, per sample 0 or 1); multiply the means by 100 for the
    percentages the ReadAgent paper reports.

    Args:
        prompts_dir: folder overriding `raters/strict.txt` and `raters/permissive.txt`.
        max_tokens: rater answer length (the verdict is a word or two).
        cache: cache rater calls (re-scoring costs no calls).

    Returns:
        A scorer whose value holds `lr1` (1 for an exact match with some reference), `lr2` (1
        for an exact or partial match) and `unparsed` (1 when some verdict could not be read
        even when asked again); metadata holds every verdict text per reference and rater.
    """
    settings = RatingSettings(prompts_dir=prompts_dir, max_tokens=max_tokens, cache=cache)
    for rater in RATERS:  # a broken override fails here, not in the middle of a run
        load_prompt("raters", rater, prompts_dir)

    async def score(state: TaskState, target: Target) -> Score:
        references = reference_texts(state, target)
        answer = state.output.completion if state.output else ""
        if not answer.strip():
            return Score(
                value={"lr1": 0, "lr2": 0, "unparsed": 0},
                answer=answer,
                explanation="empty answer: no match, raters not asked",
                metadata={"empty_answer": True, "rating": "none", "ratings": []},
            )
        model = get_model(role="grader")
        rows = await rate_answer(model, _question(state), answer, references, settings)
        bounds = [rate_reference(r["strict"].verdict, r["permissive"].verdict) for r in rows]
        lower = max((b[0] for b in bounds), key=_RANK.__getitem__)
        upper = max((b[1] for b in bounds), key=_RANK.__getitem__)
        missing = sum(v.verdict is None for r in rows for v in r.values())
        best = max(range(len(rows)), key=lambda i: _RANK[bounds[i][0]])
        metadata: dict[str, Any] = {
            "empty_answer": False,
            "grader": str(model),
            "rating": lower,
            "determined": lower == upper,
            "unparsed_verdicts": missing,
            "ratings": [
                {
                    "reference": ref,
                    "rating": bound[0],
                    **{
                        rater: {"verdict": row[rater].verdict, "answers": row[rater].answers}
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
            },
            answer=answer,
            explanation=(
                f"{lower} match (best: reference {best + 1} of {len(references)}"
                + (f"; {missing} verdict(s) unreadable" if missing else "")
                + ")"
            ),
            metadata=metadata,
        )

    return score
