"""BooookScore: the share of summary sentences that confuse no reader, judged sentence by sentence.

    score(S) = 100 x (sentences judged "no confusion") / (sentences whose verdict was read)

The judge is the `grader` model role (the evaluated model when no role is bound). Sentences
whose verdict could not be read after the bounded retries (in `probe` mode: some active probe
gave no yes/no answer) are parse failures: excluded from the numerator and the denominator,
reported as their own rate, and listed in the metadata with the reason. This follows the
paper's formula (every sentence of the summary is a unit, however many questions it gets),
as the official package's `get_score` does on the annotation file its `get_annot` writes
(every sentence); `benchmarks/paper_booookscore.py` compares the two.

A summary without words (blank, or only fragments such as "... !!!") is not judged: its values
are NaN with the reason counted (see `longform_evals.scorers.unscorable`); the wordless
fragments of a worded summary are not judged and are listed in the metadata. A summary whose
judging would pass a work limit (`longform_evals.text.work_limits`: sentences, judge calls,
judged characters in one call or in all) is not judged either: the calls each mode would make
are planned first (:func:`coherence_plan`), and the sample is counted `over_limit` with the
limit named.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.judges.coherence.error_types import ERROR_TYPES
from longform_evals.judges.coherence.judges import CoherenceJudging, resolve_mode
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.coherence.probe import PROBES
from longform_evals.judges.statement_parts import sentence_readings
from longform_evals.judges.text_check import TextCheck, check_text
from longform_evals.models.grader import GRADER_ROLE, grader_model, self_judged
from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.unscorable import unscorable_metrics
from longform_evals.text.work_limits import WorkPlan, excess

_METRICS: dict[str, list[Any]] = {
    "booookscore": [mean(), stderr()],
    "parse_failure_rate": [mean()],
    "judge_calls": [mean()],
    "sentences": [mean()],
    **{f"rate_{t}": [mean()] for t in ERROR_TYPES},
    **unscorable_metrics(judged=True),
}


def booookscore_values(verdicts: list[SentenceVerdict], judge_calls: int) -> dict[str, float]:
    """Score values of one summary from its sentence verdicts.

    Returns:
        booookscore (0-100, NaN when no verdict could be read), parse_failure_rate (share of
        sentences without a readable verdict), judge_calls, sentences, and rate_<type> (share
        of read sentences flagged with that type).
    """
    n = len(verdicts)
    read = [v for v in verdicts if v.parsed]
    clean = sum(1 for v in read if not v.confused)
    values: dict[str, float] = {
        "booookscore": 100.0 * clean / len(read) if read else math.nan,
        "parse_failure_rate": (n - len(read)) / n if n else math.nan,
        "judge_calls": float(judge_calls),
        "sentences": float(n),
    }
    for t in ERROR_TYPES:
        values[f"rate_{t}"] = sum(1 for v in read if t in v.types) / len(read) if read else math.nan
    return values


def coherence_plan(
    mode: str,
    sentences: Sequence[str],
    batch_size: int = 10,
    layout: str = "quoted",
    with_readings: bool = False,
) -> WorkPlan:
    """The calls a coherence judge in ``mode`` makes for ``sentences`` (first tries), and the
    judged text they show: the summary in every `sentence` and `batched` call (plus the
    sentence or the batch), the earlier sentences and the sentence in every probe call (at
    most one call per probe and sentence, in `probe` and `fitted` mode). Each reading of a
    sentence (`statement_parts.sentence_readings`, with ``with_readings``) is judged like one
    more sentence, except by the `fitted` judge."""
    n = len(sentences)
    lengths = [len(s) for s in sentences]
    summary = sum(lengths) + max(n - 1, 0)
    counted = with_readings and mode != "fitted"
    listed = list(sentences)
    readings = [len(sentence_readings(listed, i)) if counted else 0 for i in range(n)]
    if mode == "batched":
        size = max(batch_size, 1)
        rounds = [sum(r > k for r in readings) for k in range(max(readings, default=0))]
        calls = sum(-(-count // size) for count in [n, *rounds])
        widest = max((sum(lengths[i : i + size]) for i in range(0, n, size)), default=0)
        return WorkPlan(n, calls, summary + widest, calls * (summary + widest))
    if mode in ("probe", "fitted"):
        # Each probe call shows the sentences up to its own: the running totals.
        upto = list(accumulate(length + 1 for length in lengths))
        asked = [1 + r for r in readings]
        judged = len(PROBES) * sum(a * t for a, t in zip(asked, upto, strict=True))
        return WorkPlan(n, len(PROBES) * sum(asked), summary, judged)
    # `sentence` mode: the `numbered` layout numbers the lines instead of quoting the sentence.
    calls = n + sum(readings)
    shown = summary + (8 * n if layout == "numbered" else max(lengths, default=0))
    return WorkPlan(n, calls, shown, calls * shown)


def _unjudged_score(summary: str, check: TextCheck, mode: str, judge: str) -> Score:
    """The score of a summary without words: no judge call."""
    empty = booookscore_values([], 0)
    return Score(
        value={**empty, **check.values(empty["booookscore"])},
        answer=summary,
        explanation=check.explanation(),
        metadata={"mode": mode, "judge": judge, **check.metadata(), "sentences": []},
    )


def _explanation(verdicts: Sequence[SentenceVerdict], check: TextCheck) -> str:
    """How many sentences were flagged (each listed with its types) and how many unread."""
    flagged = [v for v in verdicts if v.parsed and v.confused]
    failed = [v for v in verdicts if not v.parsed]
    explanation = (
        f"{len(flagged)} of {len(verdicts)} sentences flagged, {len(failed)} unreadable"
        + "".join(f"\n- [{v.index}] {', '.join(v.types)}: {v.sentence}" for v in flagged)
    )
    if check.wordless:
        explanation += f"\n{len(check.wordless)} wordless fragment(s) not judged"
    return explanation


@scorer(metrics=_METRICS)
def booookscore(
    judge: CoherenceJudging | Mapping[str, Any] | None = None,
    model: str | Model | None = None,
    model_role: str | None = GRADER_ROLE,
) -> Scorer:
    """BooookScore of the completion (the summary), judged by the `grader` role.

    Args:
        judge: how the judge is asked
            (:class:`~longform_evals.judges.coherence.judges.CoherenceJudging`, or a mapping
            of its fields, as an eval log records it); default: `auto` mode. Its `mode`:
            `sentence` (one call per sentence, the paper's method), `batched` (`batch_size`
            numbered sentences per call, JSON answers), `probe` (yes/no questions per error
            type read from log-probabilities with calibrated thresholds, or one `threshold`;
            made for small local judges), `fitted` (the probes and cheap text signals weighed
            by a model fitted on people's labels, `judges/coherence/fitted.py`), or `auto`
            (`probe` for `gguf/` judges, `sentence` otherwise). Its `layout` (`sentence`
            mode): `quoted` (each call ends with the sentence's own text) or the experimental
            `numbered` (the summary as numbered lines, each call naming its sentence by
            number; docs/booookscore.md). Also `max_attempts` (calls per sentence or batch
            before a parse failure), `cache` (Inspect's model cache, so a summary can be
            re-scored without new calls), `prompts_dir` (overriding the `booookscore/`
            templates) and `calibration` (a `probe` thresholds or `fitted` model file).
        model: the judge model (a name or a `Model`); default: the model bound to
            `model_role`.
        model_role: the role whose model judges when `model` is not given (unbound: the
            evaluated model, as in Inspect's model-graded scorers).
    """
    judging = CoherenceJudging.of(judge)

    async def score(state: TaskState, target: Target) -> Score:
        summary = state.output.completion if state.output else ""
        check = check_text(summary, judged=True)
        grader = grader_model(model, model_role)
        mode = resolve_mode(judging.mode, grader)
        if not check.problem:
            plan = coherence_plan(
                mode, check.sentences, judging.batch_size, judging.layout, judging.readings
            )
            over = excess(plan, what=f"booookscore ({mode} mode)")
            check = check.refused(over) if over else check
        if check.problem:
            return _unjudged_score(summary, check, mode, str(grader))
        verdicts, calls, extra = await judging.judge(grader, check.sentences)
        values = booookscore_values(verdicts, calls)
        return Score(
            value={**values, **check.values(values["booookscore"])},
            answer=summary,
            explanation=_explanation(verdicts, check),
            metadata={
                "mode": extra.pop("mode"),
                "judge": str(grader),
                "self_judged": self_judged(grader, state.output.model if state.output else None),
                **extra,
                **check.metadata(),
                "sentences": [v.as_dict() for v in verdicts],
            },
        )

    return unless_limited(score)
