"""ROUGE F-measure of the completion against one or more reference texts.

Works for any task whose references are the sample's `target` (a string or a list of strings)
or `metadata["references"]`: free-form reading answers (NarrativeQA, QMSum) and summaries.
Scores come from `rouge_score` (Google's reimplementation of ROUGE-1.5.5, the one most papers
report): its default tokenizer lower-cases, keeps only ASCII letters and digits, and with
`stemmer=True` applies the Porter stemmer, so worded text without ASCII letters or digits
("北京很大。") scores 0. An answer without words in any script (blank, "...") is not scored: its
F-measures are NaN with the reason counted (see `longform_evals.scorers.unscorable`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Protocol

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.judges.text_check import EMPTY_SUMMARY, check_text
from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.references import reference_texts
from longform_evals.scorers.unscorable import unscorable_metrics

DEFAULT_VARIANTS: tuple[str, ...] = ("rouge1", "rouge2", "rougeL")
_VARIANT = re.compile(r"rouge[1-9]|rougeL|rougeLsum")


class _RougeScorer(Protocol):
    """The part of `rouge_score.rouge_scorer.RougeScorer` used here."""

    def score(self, target: str, prediction: str) -> dict[str, Any]: ...


def rouge_values(
    scorer_: _RougeScorer, prediction: str, references: Sequence[str], variants: Sequence[str]
) -> tuple[dict[str, float], list[dict[str, float]]]:
    """Per variant, the best F-measure over the references; and every reference's F-measures.

    The best is taken per variant independently (the convention of `rouge_score`'s
    `score_multi` and of multi-reference QA reporting), so rouge1 and rougeL may come from
    different references.
    """
    per_reference = [
        {v: float(result[v].fmeasure) for v in variants}
        for result in (scorer_.score(ref, prediction) for ref in references)
    ]
    best = {v: max(row[v] for row in per_reference) for v in variants}
    return best, per_reference


def _argmax(values: list[float]) -> int:
    return max(range(len(values)), key=values.__getitem__)


# Every variant's name starts with "rouge" (`_VARIANT`): the glob leaves out the counted values.
@scorer(metrics=[*unscorable_metrics(), {"rouge*": [mean(), stderr()]}])
def rouge(variants: Sequence[str] = DEFAULT_VARIANTS, stemmer: bool = True) -> Scorer:
    """ROUGE F-measure (0-1) of the completion, best over the sample's references per variant.

    Args:
        variants: `rouge1`..`rouge9` (n-gram overlap), `rougeL` (longest common subsequence)
            and `rougeLsum` (summary-level LCS over newline-separated sentences).
        stemmer: apply the Porter stemmer before matching (the usual setting).

    Returns:
        A scorer whose value holds one F-measure per variant and `empty_summary`,
        `no_sentences`, `scored` (an answer without words has NaN F-measures, see
        `longform_evals.scorers.unscorable`); metadata holds every reference's F-measures,
        which reference was best per variant, `empty_answer` and `unscorable` (the reason).
    """
    names = list(variants)
    unknown = [v for v in names if not _VARIANT.fullmatch(v)]
    if not names or unknown:
        raise ValueError(
            f"unknown ROUGE variant(s) {unknown or names}; use rouge1..rouge9, rougeL, rougeLsum"
        )
    # Imported here: the scorer registry is imported by Inspect at startup, rouge_score
    # pulls in nltk.
    from rouge_score import rouge_scorer, tokenizers  # type: ignore[import-untyped]

    # Its default tokenizer, given explicitly: left to choose it, RougeScorer logs "Using
    # default tokenizer." through absl, whose first log call installs a stderr handler on the
    # root logger (`logging.basicConfig()`), so every library's debug logger would print.
    tokenizer = tokenizers.DefaultTokenizer(use_stemmer=stemmer)
    scorer_: _RougeScorer = rouge_scorer.RougeScorer(
        names, use_stemmer=stemmer, tokenizer=tokenizer
    )

    async def score(state: TaskState, target: Target) -> Score:
        references = reference_texts(state, target)
        answer = state.output.completion if state.output else ""
        check = check_text(answer)
        if check.problem:
            return Score(
                value={**dict.fromkeys(names, math.nan), **check.values(math.nan)},
                answer=answer,
                explanation=check.explanation("answer"),
                metadata={
                    "empty_answer": check.problem == EMPTY_SUMMARY,
                    **check.metadata(),
                    "references": len(references),
                },
            )
        best, per_reference = rouge_values(scorer_, answer, references, names)
        return Score(
            value={**best, **check.values(best[names[0]])},
            answer=answer,
            explanation=", ".join(f"{v} {best[v]:.3f}" for v in names)
            + f" (best of {len(references)} reference(s))",
            metadata={
                "empty_answer": False,
                **check.metadata(),
                "references": len(references),
                "per_reference": per_reference,
                "best_reference": {v: _argmax([row[v] for row in per_reference]) for v in names},
            },
        )

    return unless_limited(score)
