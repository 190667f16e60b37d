"""The bundled inputs the checks perturb, and one call of a real scorer on one answer."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from functools import cache

from inspect_ai.dataset import Sample
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState

from longform_evals.checks.judge import with_judge
from longform_evals.data.books import bundled_summaries_dir, load_books, load_summaries
from longform_evals.data.booksum import load_booksum
from longform_evals.data.planted.support import PlantedCluster, load_planted_support
from longform_evals.data.reading import load_reading
from longform_evals.data.squality import load_squality
from longform_evals.models.fan_out import fan_out

_MODEL = "checks/none"
"""The model name a check's TaskState carries: no model is called, the answer is given."""


def score_answer(scorer: Scorer, sample: Sample, answer: str) -> Score:
    """The score `scorer` gives `answer` as the completion of `sample`.

    Calls the scorer's own function on a TaskState, as Inspect does after a solver, so a check
    measures the shipped scorer and not a copy of its formula. Outside an eval there is no
    transcript, so the `unless_limited` wrapper finds no limit and scores.
    """
    return asyncio.run(_call(scorer, sample, answer))


def score_judged(scorer: Scorer, items: Sequence[tuple[Sample, str]]) -> list[Score]:
    """The scores `scorer` gives each (sample, answer), judged by the checks' judge
    (:mod:`longform_evals.checks.judge`) bound to the `grader` role; the items are scored
    concurrently, as Inspect scores the samples of an eval."""

    async def all_items() -> list[Score]:
        return await fan_out(*[_call(scorer, s, a) for s, a in items])

    return with_judge(all_items)


def _state(sample: Sample, answer: str) -> TaskState:
    return TaskState(
        model=ModelName(_MODEL),
        sample_id=sample.id or "check",
        epoch=1,
        input=sample.input,
        messages=[],
        target=Target(sample.target),
        choices=sample.choices,
        metadata=dict(sample.metadata or {}),
        output=ModelOutput.from_content(_MODEL, answer),
    )


async def _call(scorer: Scorer, sample: Sample, answer: str) -> Score:
    score = await scorer(_state(sample, answer), Target(sample.target))
    if score is None:
        raise RuntimeError(f"the scorer gave no score for sample {sample.id!r}")
    return score


def values(score: Score, keys: tuple[str, ...]) -> dict[str, float]:
    """The named entries of a dict-valued score, as floats."""
    value = score.value
    if not isinstance(value, dict):
        raise TypeError(f"expected a dict-valued score, got {value!r}")
    return {k: float(value[k]) for k in keys}


def respace(text: str) -> str:
    """A whitespace-only change: doubled spaces between words, blank lines between paragraphs,
    a leading and a trailing space. The words and their order stay the same."""
    return " " + re.sub(r"\n+", "\n\n\n", text.replace(" ", "  ")) + " \n"


# The fixtures are read once per process: checks share them and they do not change.


@cache
def summary_samples() -> tuple[Sample, ...]:
    """Reference-summary samples: BookSum chapters and SQuALITY questions."""
    return (*load_booksum(), *load_squality())


@cache
def frost_hold() -> tuple[str, str]:
    """The bundled summary of The Frost Hold and the book's text."""
    [given] = load_summaries(bundled_summaries_dir() / "the_frost_hold.jsonl")
    [book] = [s for s in load_books() if s.id == "the_frost_hold"]
    meta, book_meta = given.metadata or {}, book.metadata or {}
    return str(meta["summary"]), str(book_meta["document"])


@cache
def quality_samples() -> tuple[Sample, ...]:
    """The bundled QuALITY questions (options and gold letter)."""
    return tuple(load_reading("quality"))


@cache
def planted_clusters() -> tuple[PlantedCluster, ...]:
    """The planted faithfulness set."""
    return tuple(load_planted_support())
