"""How far a judge agrees with people: the judge's verdict on every human-labelled unit.

The samples come from `longform_evals.data.labels` (BooookScore span annotations,
LongSciVerify, FABLES, LongFormFact): a summary split into units (sentences or claims), and per
annotator a flag per unit (1 = the annotator found a problem: confusing, or unfaithful). This
scorer asks the `grader` judge about the same units, the way the suite's own scorers ask it,
and records, per unit, the people's flags beside the judge's verdict at its own threshold and
its probability of a problem where it gives one. Task-level figures (precision, recall, BACC,
AUC, kappa, alpha, Kendall tau, each with a bootstrap interval) are computed from these rows
by `longform_evals.analysis.judge_agreement`.

The judge is an :class:`~longform_evals.judges.agreement_judge.AgreementJudge`; each unit's
verdict is in the unit-judge shape (`judges/unit_judge.py`).

- `coherence`: the BooookScore judge (the coherence table, any mode). The unit's probability is
  the probe judge's P(confusion); the paper's sentence mode gives verdicts only.
- `faithfulness`: the faithfulness scorer against the sample's source document(s); a sentence's
  probability of a problem is 1 - its support (max over documents), flagged below the judge's
  calibrated sentence threshold. Summary-level labels (LongFormFact qmsum, multinews) make the
  summary the unit, flagged below the summary threshold of the scorer's aggregation.

Units the judge could not read (an unreadable answer, a wordless fragment, which no judge is
asked about) keep their human labels and a verdict of None, so the figures count them as
unjudged instead of losing them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from longform_evals.analysis.judge_agreement import reference_flag
from longform_evals.judges.agreement_judge import AgreementJudge
from longform_evals.judges.faithfulness.judging import FaithfulnessJudging
from longform_evals.judges.statement_parts import as_statements
from longform_evals.judges.text_check import has_word, worded_sentences
from longform_evals.judges.unit_judge import UnitJudge, UnitVerdict, support_verdict
from longform_evals.models.grader import GRADER_ROLE
from longform_evals.scorers.judge_agreement_metrics import agreement_metrics
from longform_evals.scorers.limits import unless_limited

_UNREAD = UnitVerdict(None, None, False, "")
"""A unit no judge was asked about (a wordless fragment, an unrated sentence)."""


def _unit_rows(
    metadata: Mapping[str, Any], verdicts: Sequence[UnitVerdict]
) -> list[dict[str, Any]]:
    """One row per unit: every annotator's flag, the judge's flag and probability."""
    flags: Mapping[str, Sequence[int | None]] = metadata.get("flags") or {}
    types: Sequence[Sequence[str]] = metadata.get("unit_types") or []
    rows = []
    for i, verdict in enumerate(verdicts):
        rows.append(
            {
                "index": i,
                "human": {name: labels[i] for name, labels in flags.items()},
                "judge_flag": verdict.flag,
                "judge_p": verdict.probability,
                "types": list(types[i]) if i < len(types) else [],
            }
        )
    return rows


def _summary_values(
    units: list[dict[str, Any]], judge_scores: Sequence[float | None]
) -> dict[str, float]:
    """Per-summary values: the share of units people (by majority) and the judge left
    unflagged, over the units people rated and the judge read; the judge's own score of those
    units (its metric: BooookScore's share unflagged, or mean support); and counts."""
    rated = [
        (u, s)
        for u, s in zip(units, judge_scores, strict=True)
        if reference_flag(u["human"]) is not None
    ]
    both = [(u, s) for u, s in rated if u["judge_flag"] is not None]
    agree = [reference_flag(u["human"]) == int(bool(u["judge_flag"])) for u, _ in both]
    scores = [s for _, s in both if s is not None]
    return {
        "agreement": sum(agree) / len(agree) if agree else math.nan,
        "human_score": (
            sum(1 for u, _ in rated if reference_flag(u["human"]) == 0) / len(rated)
            if rated
            else math.nan
        ),
        "judge_score": sum(scores) / len(scores) if scores else math.nan,
        "summaries": 1.0,
        "units": float(len(units)),
        "rated_units": float(len(rated)),
        "unjudged_units": float(len(rated) - len(both)),
    }


_Judged = tuple[list[UnitVerdict], list[float | None], dict[str, Any]]


async def _coherence(state: TaskState, judge: UnitJudge) -> _Judged:
    sentences = [str(s) for s in state.metadata.get("summary_sentences") or []]
    # Wordless fragments are never shown to a judge (as in the BooookScore scorer).
    asked = [i for i, s in enumerate(sentences) if has_word(s)]
    judged = await judge.judge_units(state, worded_sentences(sentences)[0])
    by_unit = dict(zip(asked, zip(judged.verdicts, judged.scores, strict=True), strict=True))
    out = [by_unit.get(i, (_UNREAD, None)) for i in range(len(sentences))]
    return [v for v, _ in out], [s for _, s in out], judged.metadata


async def _summary_unit(state: TaskState, judging: FaithfulnessJudging) -> _Judged:
    """The summary is the unit: the scorer's own value at its own summary threshold."""
    score = await judging.score(state)
    value = score.value if isinstance(score.value, dict) else {}
    meta = dict(score.metadata or {})
    support = value.get("faithfulness")
    threshold = (meta.get("thresholds") or {}).get("faithfulness")
    if isinstance(support, (int, float)) and not math.isnan(support) and threshold is not None:
        return [support_verdict(float(support), threshold)], [float(support)], meta
    return [_UNREAD], [None], meta


async def _faithfulness(state: TaskState, judging: FaithfulnessJudging) -> _Judged:
    if state.metadata.get("unit") == "summary":
        return await _summary_unit(state, judging)
    sentences = [str(s) for s in state.metadata.get("summary_sentences") or []]
    flags: Mapping[str, Sequence[int | None]] = state.metadata.get("flags") or {}
    # Only the units someone rated are asked (LongSciVerify rates three sentences of each
    # summary); each sentence is judged on its own, so this changes no verdict.
    asked = [
        i
        for i, s in enumerate(sentences)
        if has_word(s) and any(labels[i] is not None for labels in flags.values())
    ]
    hosts = as_statements(worded_sentences(sentences)[0])
    worded = worded_sentences(sentences[i] for i in asked)[0]
    # an aside sentence is judged with the summary sentence it follows, asked or not
    position = {i: k for k, i in enumerate(i for i, s in enumerate(sentences) if has_word(s))}
    statements = [hosts[position[i]] for i in asked]
    judged = await judging.judge_units(state, worded, statements)
    by_unit = dict(zip(asked, zip(judged.verdicts, judged.scores, strict=True), strict=True))
    out = [by_unit.get(i, (_UNREAD, None)) for i in range(len(sentences))]
    return [v for v, _ in out], [s for _, s in out], judged.metadata


@scorer(metrics=agreement_metrics())
def judge_agreement(
    judge: AgreementJudge | Mapping[str, Any] | None = None,
    model: str | None = None,
    model_role: str | None = GRADER_ROLE,
) -> Scorer:
    """The judge's verdict beside people's labels on every unit of a labelled summary.

    Args:
        judge: the judge under study and how it is asked
            (:class:`~longform_evals.judges.agreement_judge.AgreementJudge`, or a mapping of
            its fields: `kind`, `mode`, `layout`, `calibration`, `threshold`,
            `support_judge`, `chunking`, `prompts_dir`); default: the coherence judge in
            `auto` mode.
        model: the judge under study by name; default: the model bound to `model_role`.
        model_role: the role whose model judges when `model` is not given (`grader`).
    """
    spec = AgreementJudge.of(judge)
    kind = spec.kind
    unit_judge = spec.unit_judge(model, model_role)

    async def score(state: TaskState, target: Target) -> Score:
        if isinstance(unit_judge, FaithfulnessJudging):
            verdicts, judge_scores, meta = await _faithfulness(state, unit_judge)
        else:
            verdicts, judge_scores, meta = await _coherence(state, unit_judge)
        units = _unit_rows(state.metadata, verdicts)
        values = _summary_values(units, judge_scores)
        flagged = sum(1 for u in units if u["judge_flag"])
        return Score(
            value=values,
            answer=state.output.completion if state.output else "",
            explanation=(
                f"judge flagged {flagged} of {len(units)} units; people's reference flagged "
                f"{sum(1 for u in units if reference_flag(u['human']) == 1)}; agreement on "
                f"{values['agreement']:.2f} of the units both read"
            ),
            metadata={
                # the judge's own metadata first: its keys (a faithfulness score's source
                # `units`) must not replace the agreement rows below
                **{k: v for k, v in meta.items() if k != "units"},
                "source_units": meta.get("units"),
                "kind": kind,
                "summary_id": str(state.sample_id),
                "system": state.metadata.get("system"),
                "group": state.metadata.get("group"),
                "summary_scores": values,
                "units": units,
            },
        )

    return unless_limited(score)
