"""LLM raters for free-form reading answers (NarrativeQA, QMSum): LR-1 and LR-2.

Two raters on the `grader` role compare the answer with each reference answer: a strict one
(does the answer mean exactly what the reference says? YES / NO) and a permissive one (Yes /
Yes, partially / No). LR-1 is the share of exact matches, LR-2 the share of exact or partial
ones; over several references the best rating counts (the raters of ReadAgent, "A
Human-Inspired Reading Agent with Gist Memory of Very Long Contexts", arXiv:2402.09727, with this
project's own prompts in `prompts/raters/`). Asking the raters and reading their verdicts is
`longform_evals.judges.raters.rating`; this module is its Inspect scorer. The rating is read by one
of two rules:

* `verdicts` (the paper's): exact when either rater says so (strict YES or permissive plain
  Yes), partial when only the permissive rater says "Yes, partially", else none.
* `calibrated`: exact when the strict rater's P(YES) reaches the grader's calibrated
  `exact_threshold`, partial when the permissive rater's P(Yes) (which covers "Yes" and "Yes,
  partially") reaches `partial_threshold`, else none. Small graders need it: they answer the
  permissive prompt with a plain "Yes" almost whatever the answer (see
  `longform_evals.judges.raters.calibration`).

`auto` (the default) uses `calibrated` when the grader has a calibration, else `verdicts`.

A verdict that cannot be read is asked once more, with the unreadable answer shown and a
request for the verdict alone; one that still cannot be read is recorded as missing, never
read as "No". The sample then counts in `unparsed`. Its LR-1 (LR-2) is still read where the
readable verdicts settle it (an exact match with another reference, say, or "No" from both
raters where only a partial match is in doubt) and is NaN, unreadable, where a missing verdict
could make it 1 or 0: it is then left out of the mean rather than counted as a miss, and
metadata says whether the whole rating was settled (`determined`).

An answer without words (blank, or only "..." and the like) is not rated: LR-1, LR-2 and
`unparsed` are NaN with the reason counted (see `longform_evals.scorers.unscorable`), so the
means are over rated answers and the `scored` count says how many those were.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.judges.health import note_readings
from longform_evals.judges.raters.calibration import (
    RaterCalibration,
    check_rule,
    load_rater_calibration,
    resolve_rule,
)
from longform_evals.judges.raters.rating import (
    RATERS,
    Rated,
    RatingSettings,
    check_prompts,
    rate_answer,
    rated,
)
from longform_evals.judges.text_check import EMPTY_SUMMARY, TextCheck, check_text
from longform_evals.models.grader import GRADER_ROLE, grader_model, self_judged
from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.references import reference_texts
from longform_evals.scorers.unscorable import unscorable_metrics


def _question(state: TaskState) -> str:
    question = state.metadata.get("question")
    return question if isinstance(question, str) and question.strip() else state.input_text


def _unrated_score(answer: str, check: TextCheck) -> Score:
    """The score of an answer without words: NaN ratings, no rater asked."""
    return Score(
        value={**dict.fromkeys(("lr1", "lr2", "unparsed"), math.nan), **check.values(math.nan)},
        answer=answer,
        explanation=f"{check.explanation('answer')}; raters not asked",
        metadata={
            "empty_answer": check.problem == EMPTY_SUMMARY,
            **check.metadata(),
            "rating": None,
            "ratings": [],
        },
    )


def _metadata(
    grader: str,
    cal: RaterCalibration,
    calibrated: bool,
    references: list[str],
    result: Rated,
    check: TextCheck,
) -> dict[str, Any]:
    """The rule and thresholds used, the rating, and every verdict per reference and rater."""
    return {
        "empty_answer": False,
        **check.metadata(),
        "grader": grader,
        "judge_card": None,  # no card kind covers the raters: said outright
        "rule": "calibrated" if calibrated else "verdicts",
        "calibration": cal.source,
        **(
            {"exact_threshold": cal.exact_threshold, "partial_threshold": cal.partial_threshold}
            if calibrated
            else {}
        ),
        "rating": result.lower,
        "determined": result.lower == result.upper,
        "unparsed_verdicts": result.missing,
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
            for ref, row, bound in zip(references, result.rows, result.bounds, strict=True)
        ],
    }


def _explanation(result: Rated, n_references: int, calibrated: bool) -> str:
    missing = result.missing
    return (
        f"{result.lower} match (best: reference {result.best + 1} of {n_references}"
        + (f"; {missing} verdict(s) unreadable" if missing else "")
        + (", calibrated P(yes) thresholds" if calibrated else "")
        + ")"
    )


@scorer(
    metrics=[
        *unscorable_metrics(judged=True),
        {"lr1": [mean(), stderr()], "lr2": [mean(), stderr()], "unparsed": [mean()]},
    ]
)
def llm_raters(
    prompts_dir: str | None = None,
    max_tokens: int = 8,
    cache: bool = True,
    rule: str = "auto",
    calibration: str | None = None,
    model: str | Model | None = None,
    model_role: str | None = GRADER_ROLE,
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
        model: the rater model (a name or a `Model`); default: the model bound to
            `model_role`.
        model_role: the role whose model rates when `model` is not given (unbound: the
            evaluated model, as in Inspect's model-graded scorers).

    Returns:
        A scorer whose value holds `lr1` (1 for an exact match with some reference), `lr2` (1
        for an exact or partial match), `unparsed` (1 when some verdict could not be read
        even when asked again), and `empty_summary`, `no_sentences`, `scored` (NaN ratings of
        an answer without words, see `longform_evals.scorers.unscorable`); metadata holds the
        rule, every verdict text and P(yes) per reference and rater.
    """
    check_prompts(prompts_dir)  # a broken override fails here, not in the middle of a run
    check_rule(rule)

    async def score(state: TaskState, target: Target) -> Score:
        references = reference_texts(state, target)
        answer = state.output.completion if state.output else ""
        check = check_text(answer, judged=True)
        if check.problem:
            return _unrated_score(answer, check)
        rater = grader_model(model, model_role)
        cal = load_rater_calibration(str(rater), calibration)
        calibrated = resolve_rule(rule, cal, str(rater))
        settings = RatingSettings(
            prompts_dir=prompts_dir, max_tokens=max_tokens, cache=cache, logprobs=calibrated
        )
        rows = await rate_answer(rater, _question(state), answer, references, settings)
        result = rated(rows, cal, calibrated)
        asked = sum(len(r) for r in rows)
        note_readings(str(rater), "raters", asked - result.missing, result.missing)
        return Score(
            value={
                "lr1": result.lr1,
                "lr2": result.lr2,
                "unparsed": int(result.missing > 0),
                **check.values(0.0),
            },
            answer=answer,
            explanation=_explanation(result, len(references), calibrated),
            metadata={
                **_metadata(str(rater), cal, calibrated, references, result, check),
                "self_judged": self_judged(rater, state.output.model if state.output else None),
            },
        )

    return unless_limited(score)
