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
fragments of a worded summary are not judged and are listed in the metadata.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.judges.cards import card_name
from longform_evals.judges.coherence import (
    JudgeSettings,
    SentenceLayout,
    SentenceVerdict,
    judge_summary,
)
from longform_evals.judges.coherence_fitted import fitted_summary, load_fitted
from longform_evals.judges.coherence_probe import ProbeSettings, probe_summary, thresholds_for
from longform_evals.judges.coherence_types import ERROR_TYPES
from longform_evals.judges.health import announce_uncalibrated, note_readings
from longform_evals.models.grader import GRADER_ROLE, grader_model
from longform_evals.models.replay import stands_for
from longform_evals.scorers.limited import unless_limited
from longform_evals.scorers.unscorable import TextCheck, check_text, unscorable_metrics
from longform_evals.vocabulary import ScorerMode

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


def resolve_mode(
    mode: ScorerMode, model: Model
) -> Literal["sentence", "batched", "probe", "fitted"]:
    """`auto`: log-probability probes for embedded local judges (or a replay of one), the
    paper's method otherwise. The `fitted` judge is not chosen by `auto`: it agrees better with
    people's labels but does not react to a single planted error (docs/judges.md)."""
    if mode != "auto":
        return mode
    return "probe" if stands_for(model).startswith("gguf/") else "sentence"


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


@dataclass(frozen=True)
class CoherenceJudging:
    """How the scorer asks its judge: the scorer's arguments, checked, applied to sentences.

    The judge-agreement task asks its judge through this too, so its verdicts are the ones
    the BooookScore scorer would give."""

    mode: ScorerMode = "auto"
    batch_size: int = 10
    max_attempts: int = 3
    cache: bool = True
    prompts_dir: str | None = None
    calibration: str | None = None
    threshold: float | None = None
    layout: SentenceLayout = "quoted"

    def __post_init__(self) -> None:
        if self.layout not in get_args(SentenceLayout):
            raise ValueError(f"unknown layout {self.layout!r}; expected 'numbered' or 'quoted'")
        if self.mode not in get_args(ScorerMode):
            raise ValueError(
                f"unknown mode {self.mode!r}; expected one of {', '.join(get_args(ScorerMode))}"
            )

    async def judge(
        self, judge: Model, sentences: list[str]
    ) -> tuple[list[SentenceVerdict], int, dict[str, Any]]:
        """Verdicts on `sentences`, the judge calls made, and what the metadata should say of
        how they were asked (`mode`, the packaged judge card that applies as `judge_card`,
        and the calibration or the layout). A judge running uncalibrated, or whose verdicts
        go unread too often, is announced during the run (`judges/health.py`)."""
        verdicts, calls, extra = await self._ask(judge, sentences)
        source = str(extra.get("calibration", ""))
        if source.startswith("uncalibrated"):
            announce_uncalibrated(str(judge), "coherence", source)
        parsed = sum(1 for v in verdicts if v.parsed)
        note_readings(str(judge), "coherence", parsed, len(verdicts) - parsed)
        read_from: Counter[str] = Counter()
        for v in verdicts:
            read_from.update(v.read_from or {})
        if read_from:
            extra["answers_read_from"] = dict(read_from)
        return verdicts, calls, extra

    async def _ask(
        self, judge: Model, sentences: list[str]
    ) -> tuple[list[SentenceVerdict], int, dict[str, Any]]:
        resolved = resolve_mode(self.mode, judge)
        # A card measures the packaged calibration: with another one, no card applies.
        own = self.calibration is None and self.threshold is None
        card = card_name(stands_for(judge), "coherence", resolved) if own else None
        extra: dict[str, Any] = {"mode": resolved, "judge_card": card}
        if resolved == "fitted":
            fitted = load_fitted(str(judge), self.calibration)
            if fitted is None:
                raise ValueError(
                    f"no fitted coherence judge is packaged for {judge}: use mode=probe, or fit "
                    "one on people's labels (benchmarks/coherence_human_fit.py) and pass it as "
                    "calibration=FILE"
                )
            extra["calibration"] = fitted.source
            settings = ProbeSettings(cache=self.cache, prompts_dir=self.prompts_dir)
            verdicts, calls = await fitted_summary(judge, sentences, settings, fitted)
            return verdicts, calls, extra
        if resolved == "probe":
            probe_settings = ProbeSettings(
                cache=self.cache,
                prompts_dir=self.prompts_dir,
                calibration=self.calibration,
                threshold=self.threshold,
            )
            extra["calibration"] = thresholds_for(str(judge), probe_settings)[1]
            verdicts, calls = await probe_summary(judge, sentences, probe_settings)
            return verdicts, calls, extra
        verdicts, calls = await judge_summary(
            judge,
            sentences,
            JudgeSettings(
                mode=resolved,
                batch_size=self.batch_size,
                max_attempts=self.max_attempts,
                cache=self.cache,
                prompts_dir=self.prompts_dir,
                layout=self.layout,
            ),
        )
        if resolved == "sentence":
            extra["layout"] = self.layout
        return verdicts, calls, extra


@scorer(metrics=_METRICS)
def booookscore(
    mode: ScorerMode = "auto",
    batch_size: int = 10,
    max_attempts: int = 3,
    cache: bool = True,
    prompts_dir: str | None = None,
    calibration: str | None = None,
    threshold: float | None = None,
    layout: SentenceLayout = "quoted",
    model: str | Model | None = None,
    model_role: str | None = GRADER_ROLE,
) -> Scorer:
    """BooookScore of the completion (the summary), judged by the `grader` role.

    Args:
        mode: `sentence` (one call per sentence, the paper's method), `batched` (N numbered
            sentences per call, JSON answers), `probe` (yes/no questions per error type read
            from log-probabilities with calibrated thresholds; made for small local judges),
            `fitted` (the probes and cheap text signals weighed by a model fitted on people's
            labels, `judges/coherence_fitted.py`), or `auto` (`probe` for `gguf/` judges,
            `sentence` otherwise).
        batch_size: sentences per call in `batched` mode.
        max_attempts: calls per sentence (or batch) before a verdict counts as a parse failure.
        cache: cache judge calls (Inspect's model cache), so a summary can be re-scored
            without new calls.
        prompts_dir: folder overriding the `booookscore/` prompt templates.
        calibration: `probe` mode thresholds file, or `fitted` mode model file (default: the
            packaged one for the judge).
        threshold: `probe` mode: one threshold for every type, overriding the calibration.
        layout: `sentence` mode prompt: `quoted` (each call ends with the sentence's own text)
            or the experimental `numbered` (the summary as numbered lines, each call naming
            its sentence by number: a few new prompt tokens per call; docs/booookscore.md).
        model: the judge model (a name or a `Model`); default: the model bound to
            `model_role`.
        model_role: the role whose model judges when `model` is not given (unbound: the
            evaluated model, as in Inspect's model-graded scorers).
    """
    judging = CoherenceJudging(
        mode=mode,
        batch_size=batch_size,
        max_attempts=max_attempts,
        cache=cache,
        prompts_dir=prompts_dir,
        calibration=calibration,
        threshold=threshold,
        layout=layout,
    )

    async def score(state: TaskState, target: Target) -> Score:
        summary = state.output.completion if state.output else ""
        check = check_text(summary, judged=True)
        judge = grader_model(model, model_role)
        if check.problem:
            return _unjudged_score(summary, check, resolve_mode(mode, judge), str(judge))
        verdicts, calls, extra = await judging.judge(judge, check.sentences)
        values = booookscore_values(verdicts, calls)
        return Score(
            value={**values, **check.values(values["booookscore"])},
            answer=summary,
            explanation=_explanation(verdicts, check),
            metadata={
                "mode": extra.pop("mode"),
                "judge": str(judge),
                **extra,
                **check.metadata(),
                "sentences": [v.as_dict() for v in verdicts],
            },
        )

    return unless_limited(score)
