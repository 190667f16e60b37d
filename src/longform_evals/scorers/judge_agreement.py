"""How far a judge agrees with people: the judge's verdict on every human-labelled unit.

The samples come from `longform_evals.data.labels` (BooookScore span annotations,
LongSciVerify, FABLES, LongFormFact): a summary split into units (sentences or claims), and per
annotator a flag per unit (1 = the annotator found a problem: confusing, or unfaithful). This
scorer asks the `grader` judge about the same units, the way the suite's own scorers ask it,
and records, per unit, the people's flags beside the judge's verdict at its own threshold and
its probability of a problem where it gives one. Task-level figures (precision, recall, BACC,
AUC, kappa, alpha, Kendall tau, each with a bootstrap interval) are computed from these rows
by `longform_evals.analysis.judge_agreement`.

- `coherence`: the BooookScore judge (`CoherenceJudging`, any mode). The unit's probability is
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

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from longform_evals.analysis.judge_agreement import reference_flag
from longform_evals.judges.coherence import SentenceLayout
from longform_evals.judges.coherence_judges import CoherenceJudging
from longform_evals.judges.faithfulness_judging import FaithfulnessJudging
from longform_evals.judges.statement_parts import as_statements
from longform_evals.judges.text_check import has_word, worded_sentences
from longform_evals.models.grader import GRADER_ROLE, grader_model
from longform_evals.scorers.judge_agreement_metrics import agreement_metrics
from longform_evals.scorers.limited import unless_limited
from longform_evals.vocabulary import JUDGE_KINDS, JudgeKind, ScorerMode

Kind = JudgeKind
KINDS = JUDGE_KINDS


def _unit_rows(
    metadata: Mapping[str, Any],
    verdicts: Sequence[tuple[bool | None, float | None]],
) -> list[dict[str, Any]]:
    """One row per unit: every annotator's flag, the judge's flag and probability."""
    flags: Mapping[str, Sequence[int | None]] = metadata.get("flags") or {}
    types: Sequence[Sequence[str]] = metadata.get("unit_types") or []
    rows = []
    for i, (flag, p) in enumerate(verdicts):
        rows.append(
            {
                "index": i,
                "human": {name: labels[i] for name, labels in flags.items()},
                "judge_flag": flag,
                "judge_p": p,
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
        "units": float(len(units)),
        "rated_units": float(len(rated)),
        "unjudged_units": float(len(rated) - len(both)),
    }


async def _coherence(
    state: TaskState, judging: CoherenceJudging, judge: Model
) -> tuple[list[tuple[bool | None, float | None]], list[float | None], dict[str, Any]]:
    sentences = [str(s) for s in state.metadata.get("summary_sentences") or []]
    # Wordless fragments are never shown to a judge (as in the BooookScore scorer).
    asked = [i for i, s in enumerate(sentences) if has_word(s)]
    verdicts, calls, extra = await judging.judge(judge, worded_sentences(sentences)[0])
    by_unit: dict[int, tuple[bool | None, float | None]] = {}
    for i, v in zip(asked, verdicts, strict=True):
        by_unit[i] = (v.confused if v.parsed else None, v.p_confusion if v.parsed else None)
    out = [by_unit.get(i, (None, None)) for i in range(len(sentences))]
    # BooookScore counts a sentence clean when unflagged: the judge's per-unit score.
    scores = [None if f is None else float(not f) for f, _ in out]
    meta = {
        "judge": str(judge),
        **extra,
        "judge_calls": calls,
        "verdicts": [v.as_dict() for v in verdicts],
    }
    return out, scores, meta


async def _faithfulness(
    state: TaskState, judging: FaithfulnessJudging
) -> tuple[list[tuple[bool | None, float | None]], list[float | None], dict[str, Any]]:
    if state.metadata.get("unit") == "summary":
        # The summary is the unit: the scorer's own value at its own summary threshold.
        score = await judging.score(state)
        value = score.value if isinstance(score.value, dict) else {}
        meta = dict(score.metadata or {})
        support = value.get("faithfulness")
        threshold = (meta.get("thresholds") or {}).get("faithfulness")
        if isinstance(support, (int, float)) and not math.isnan(support) and threshold is not None:
            return [(bool(support < threshold), 1.0 - float(support))], [float(support)], meta
        return [(None, None)], [None], meta
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
    supports, threshold, meta = await judging.sentence_support(state, worded, statements)
    by_unit = dict(zip(asked, supports, strict=True))
    out: list[tuple[bool | None, float | None]] = []
    scores: list[float | None] = []
    for i in range(len(sentences)):
        support = by_unit.get(i)
        out.append((None, None) if support is None else (bool(support < threshold), 1.0 - support))
        scores.append(support)
    return out, scores, meta


@scorer(metrics=agreement_metrics())
def judge_agreement(
    kind: Kind = "coherence",
    mode: ScorerMode = "auto",
    layout: SentenceLayout = "quoted",
    calibration: str | None = None,
    threshold: float | None = None,
    support_judge: str = "llm",
    chunking: str | None = None,
    prompts_dir: str | None = None,
    model: str | None = None,
    model_role: str | None = GRADER_ROLE,
) -> Scorer:
    """The judge's verdict beside people's labels on every unit of a labelled summary.

    Args:
        kind: `coherence` (the BooookScore judge) or `faithfulness` (a support judge).
        mode: coherence: the BooookScore scorer's mode (`auto`, `probe`, `sentence`,
            `batched`).
        layout: coherence, `sentence` mode: the prompt layout.
        calibration: coherence, `probe` mode: a thresholds file instead of the packaged one.
        threshold: one threshold instead of the calibrated ones (coherence `probe` mode: for
            every probe; faithfulness: the support threshold).
        support_judge: faithfulness: the judge's name (`llm` or a MiniCheck judge).
        chunking: faithfulness: how the judge reads the source (default: its calibration).
        prompts_dir: folder overriding the judges' prompt templates.
        model: the judge under study by name; default: the model bound to `model_role`.
        model_role: the role whose model judges when `model` is not given (`grader`).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected 'coherence' or 'faithfulness'")
    judging = CoherenceJudging(
        mode=mode,
        layout=layout,
        calibration=calibration,
        threshold=threshold if kind == "coherence" else None,
        prompts_dir=prompts_dir,
    )
    support = FaithfulnessJudging.build(
        support_judge,
        chunking=chunking,
        threshold=threshold if kind == "faithfulness" else None,
        judge_options={"prompts_dir": prompts_dir, "model": model, "model_role": model_role},
    )

    async def score(state: TaskState, target: Target) -> Score:
        if kind == "coherence":
            judge = grader_model(model, model_role)
            verdicts, judge_scores, meta = await _coherence(state, judging, judge)
        else:
            verdicts, judge_scores, meta = await _faithfulness(state, support)
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
                "kind": kind,
                "summary_id": str(state.sample_id),
                "system": state.metadata.get("system"),
                "group": state.metadata.get("group"),
                "summary_scores": values,
                "units": units,
                **meta,
            },
        )

    return unless_limited(score)
