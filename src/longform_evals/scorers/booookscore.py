"""BooookScore: the share of summary sentences that confuse no reader, judged sentence by sentence.

    score(S) = 100 x (sentences judged "no confusion") / (sentences whose verdict was read)

A sentence the summary repeats word for word counts once by default (`repeated_sentences`
`once`), as in the official package's `get_score`: its annotation file is keyed by sentence
text, so each occurrence writes the same entry again and the last one written is what it
reads. Here too the verdict of the sentence's last occurrence counts (its last readable one,
when the last could not be read). `each` counts every occurrence with its own verdict. Either
way every occurrence is judged (the same calls), every verdict is listed in the metadata with
whether it was counted, and the metadata names the rule (`repeated_sentences`).

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
from typing import Any, Literal, cast, get_args

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from longform_evals.judges.coherence.error_types import ERROR_TYPES
from longform_evals.judges.coherence.judges import CoherenceJudging, chosen_mode
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.coherence.probe import PROBES
from longform_evals.judges.statement_parts import sentence_readings
from longform_evals.judges.text_check import READING_DECIDED, TextCheck, check_text
from longform_evals.models.grader import GRADER_ROLE, grader_model, self_judged
from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.scorer_table import headline_metrics, means
from longform_evals.scorers.unscorable import reading_metrics, unscorable_metrics
from longform_evals.text.work_limits import WorkPlan, excess

# One entry of the results, the scorer's own (`scorers/scorer_table.py`): the score's mean and
# stderr, Inspect's `mean` of every other value, then the counts, one row each (entries of
# their own, four side by side, would cut the longer names).
_METRICS: list[Any] = [
    *headline_metrics("booookscore"),
    means([*(f"rate_{t}" for t in ERROR_TYPES), "parse_failure_rate", "judge_calls", "sentences"]),
    *unscorable_metrics(judged=True),
    *reading_metrics(),
]


RepeatedSentences = Literal["once", "each"]
"""How a sentence the summary repeats word for word counts: `once` (the official package's
`get_score`: one unit per distinct sentence, with its last occurrence's verdict) or `each`
(one unit per occurrence)."""


def check_repeated(repeated: str) -> RepeatedSentences:
    """``repeated`` if it is a counting rule.

    Raises:
        ValueError: naming the value and the rules.
    """
    if repeated not in get_args(RepeatedSentences):
        raise ValueError(
            f"unknown rule for repeated sentences {repeated!r}; expected 'once' or 'each'"
        )
    return cast(RepeatedSentences, repeated)


def counted_indices(
    verdicts: Sequence[SentenceVerdict],
    repeated: RepeatedSentences = "once",
    keys: Sequence[str] | None = None,
) -> list[int]:
    """The positions in ``verdicts`` (the summary's sentences in order) whose verdicts the score
    counts, in order.

    `each`: all of them. `once`: one per distinct sentence, the last occurrence whose verdict
    was read (the last occurrence, when none was): the official `get_annot` writes a repeated
    sentence's entry again at each occurrence, so `get_score` reads the last. Sentences are
    told apart by ``keys`` (one per verdict; the check's
    :attr:`~longform_evals.judges.text_check.TextCheck.sentence_keys`, the texts the official
    annotation file is keyed by), else by the verdicts' sentences.
    """
    if check_repeated(repeated) == "each":
        return list(range(len(verdicts)))
    names = [v.sentence for v in verdicts] if keys is None else list(keys)
    if len(names) != len(verdicts):
        raise ValueError(f"{len(names)} sentence keys for {len(verdicts)} verdicts")
    chosen: dict[str, int] = {}
    for i, (name, verdict) in enumerate(zip(names, verdicts, strict=True)):
        earlier = chosen.get(name)
        if earlier is None or verdict.parsed or not verdicts[earlier].parsed:
            chosen[name] = i
    return sorted(chosen.values())


def booookscore_values(
    verdicts: Sequence[SentenceVerdict],
    judge_calls: int,
    repeated: RepeatedSentences = "once",
    keys: Sequence[str] | None = None,
) -> dict[str, float]:
    """Score values of one summary from its sentence verdicts (every sentence, in order).

    Returns:
        booookscore (0-100, NaN when no counted verdict could be read), parse_failure_rate
        (share of counted sentences without a readable verdict), judge_calls, sentences (the
        summary's sentences, repeats included: what was judged), and rate_<type> (share of
        counted read sentences flagged with that type). The sentences counted are those of
        :func:`counted_indices` under ``repeated`` (and ``keys``).
    """
    counted = [verdicts[i] for i in counted_indices(verdicts, repeated, keys)]
    n = len(counted)
    read = [v for v in counted if v.parsed]
    clean = sum(1 for v in read if not v.confused)
    values: dict[str, float] = {
        "booookscore": 100.0 * clean / len(read) if read else math.nan,
        "parse_failure_rate": (n - len(read)) / n if n else math.nan,
        "judge_calls": float(judge_calls),
        "sentences": float(len(verdicts)),
        READING_DECIDED: float(sum(v.reading_decided for v in counted)),
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


def _unjudged_score(
    summary: str, check: TextCheck, mode: str, judge: str, repeated: RepeatedSentences
) -> Score:
    """The score of a summary without words: no judge call."""
    empty = {**booookscore_values([], 0, repeated), READING_DECIDED: math.nan}
    return Score(
        value={**empty, **check.values(empty["booookscore"])},
        answer=summary,
        explanation=check.explanation(),
        metadata={
            "mode": mode,
            "judge": judge,
            "repeated_sentences": repeated,
            **check.metadata(),
            "sentences": [],
        },
    )


def _explanation(
    verdicts: Sequence[SentenceVerdict], counted: Sequence[int], check: TextCheck
) -> str:
    """How many counted sentences were flagged (each listed with its types) and how many
    unread, and how many repeats were not counted."""
    units = [verdicts[i] for i in counted]
    flagged = [v for v in units if v.parsed and v.confused]
    failed = [v for v in units if not v.parsed]
    repeats = len(verdicts) - len(units)
    explanation = (
        f"{len(flagged)} of {len(units)} sentences flagged, {len(failed)} unreadable"
        + (f" ({repeats} repeated sentence(s) counted once)" if repeats else "")
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
    repeated_sentences: RepeatedSentences = "once",
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
        repeated_sentences: how a sentence the summary repeats word for word counts: `once`
            (the official package's `get_score`, the default: one unit with its last
            occurrence's verdict) or `each` (every occurrence); see :func:`counted_indices`.
            Every occurrence is judged either way.
    """
    judging = CoherenceJudging.of(judge)
    rule = check_repeated(repeated_sentences)

    async def score(state: TaskState, target: Target) -> Score:
        summary = state.output.completion if state.output else ""
        check = check_text(summary, judged=True)
        grader = grader_model(model, model_role)
        mode, _ = await chosen_mode(judging.mode, grader)
        if not check.problem:
            plan = coherence_plan(
                mode, check.sentences, judging.batch_size, judging.layout, judging.readings
            )
            over = excess(plan, what=f"booookscore ({mode} mode)")
            check = check.refused(over) if over else check
        if check.problem:
            return _unjudged_score(summary, check, mode, str(grader), rule)
        verdicts, calls, extra = await judging.judge(grader, check.sentences)
        values = booookscore_values(verdicts, calls, rule, check.sentence_keys)
        counted = counted_indices(verdicts, rule, check.sentence_keys)
        chosen = set(counted)
        return Score(
            value={**values, **check.values(values["booookscore"])},
            answer=summary,
            explanation=_explanation(verdicts, counted, check),
            metadata={
                "mode": extra.pop("mode"),
                "judge": str(grader),
                "self_judged": self_judged(grader, state.output.model if state.output else None),
                "repeated_sentences": rule,
                "counted_sentences": len(counted),
                **extra,
                **check.metadata(),
                "sentences": [
                    {**v.as_dict(), "counted": i in chosen} for i, v in enumerate(verdicts)
                ],
            },
        )

    return unless_limited(score)
