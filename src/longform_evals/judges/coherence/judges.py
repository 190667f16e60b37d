"""The coherence judges, one table: how each BooookScore mode asks a judge model about the
sentences of a summary, beside the faithfulness judges' table
(`judges/faithfulness/support_judges.py`).

Every entry takes the checked options (:class:`CoherenceJudging`), the judge model and the
sentences, and gives the verdicts and the calls made; it may add to the metadata it is handed
(where its thresholds came from, its prompt layout). :meth:`CoherenceJudging.judge` resolves
`auto`, names the packaged judge card that applies, announces an uncalibrated judge or one
whose verdicts go unread, and counts how answers were read. The BooookScore scorer and the
judge-agreement scorer both ask through it, so their verdicts are the same.

Every verdict is also given in the unit-judge shape (`judges/unit_judge.py`: flag, probability,
readable, answer) by :func:`unit_verdict`, and :class:`CoherenceUnitJudge` is the table as a
:class:`~longform_evals.judges.unit_judge.UnitJudge` (the judge-agreement scorer asks it).

To add a coherence judge: one module in `judges/coherence/` with its call site and one entry
here; its name is then a mode of the BooookScore and judge-agreement scorers, of their tasks'
`judge_mode` / `mode`, of a plan's `judge.mode` and of `longform judge-card --mode`
(:func:`coherence_modes`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from inspect_ai.model import Model
from inspect_ai.solver import TaskState

from longform_evals.judges.cards import card_name
from longform_evals.judges.coherence.fitted import fitted_asked, fitted_summary, load_fitted
from longform_evals.judges.coherence.paper import (
    JudgeSettings,
    SentenceLayout,
    SentenceVerdict,
    judge_summary,
)
from longform_evals.judges.coherence.probe import (
    ProbeSettings,
    probe_summary,
    probes_at,
    thresholds_for,
)
from longform_evals.judges.health import announce_uncalibrated, note_readings
from longform_evals.judges.logged_fields import LoggedFields
from longform_evals.judges.registry import (
    JudgeEntry,
    JudgeWork,
    judge_entry,
    judge_names,
    register_judge,
)
from longform_evals.judges.unit_judge import JudgedUnits, UnitVerdict
from longform_evals.models.announce import announce
from longform_evals.models.gguf_files import packaged_equivalent
from longform_evals.models.grader import GRADER_ROLE, grader_model
from longform_evals.models.logprobs import logprobs_missing, refusal_advice
from longform_evals.models.replay import ReplayModelAPI, stands_for
from longform_evals.vocabulary import ScorerMode

__all__ = [
    "MODE_NOTE",
    "CoherenceJudge",
    "CoherenceJudging",
    "CoherenceUnitJudge",
    "chosen_mode",
    "coherence_modes",
    "resolve_mode",
    "unit_verdict",
]


MODE_NOTE = "mode_note"
"""Score metadata key: why the judge was asked in another mode than its name calls for."""


def coherence_modes() -> tuple[str, ...]:
    """Every mode a coherence judge may be asked in: `auto` and each coherence judge of the
    registry (`judges/registry.py`)."""
    return ("auto", *judge_names("coherence"))


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :func:`coherence_modes`.

    Raises:
        ValueError: naming the mode and the known ones.
    """
    if mode not in coherence_modes():
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(coherence_modes())}")
    return mode


def resolve_mode(mode: ScorerMode, model: Model) -> str:
    """`auto`: log-probability probes for embedded local judges (or a replay of one), the
    paper's method otherwise. The `fitted` judge is not chosen by `auto`: it agrees better with
    people's labels but does not react to a single planted error (docs/judges.md)."""
    return mode_for_judge(mode, stands_for(model))


async def chosen_mode(mode: ScorerMode, model: Model) -> tuple[str, str | None]:
    """The mode a coherence judge is asked in, and a note where `auto` takes another method
    than the judge's name calls for.

    `auto` picks the probe method for a judge that is (or serves) a packaged model, whose
    calibration is for that method; a judge reached through a provider (a server under any
    route, `openai/` included) gets it only when the provider returns log-probabilities, which
    one call finds out (:func:`logprobs_missing`). Without them the judge is asked in the
    paper's sentence method, and that is said once in the run's log and recorded in each
    score (`mode_note`), so a leaderboard row names it.
    """
    resolved = resolve_mode(mode, model)
    name = str(model)
    in_process = name.startswith("gguf/") or stands_for(model) == name
    if mode != "auto" or resolved != "probe" or in_process or isinstance(model.api, ReplayModelAPI):
        return resolved, None
    missing = await logprobs_missing(model)
    if missing is None:
        return resolved, None
    note = (
        f"auto mode asks the judge {name} in the paper's sentence method, not the probe "
        f"method its packaged model ({stands_for(model)}) is calibrated for: it gives no "
        f"log-probabilities ({missing}). {refusal_advice(name)}"
    )
    announce(("auto mode", name), note)
    return "sentence", note


def mode_for_judge(mode: str, judge: str | None) -> str:
    """:func:`resolve_mode` from the judge's name (a served packaged model counts as the
    embedded one), for the dry run's estimate, which has no model yet."""
    if mode != "auto":
        return mode
    name = (packaged_equivalent(judge) or judge) if judge else ""
    return "probe" if name.startswith("gguf/") else "sentence"


@dataclass(frozen=True)
class CoherenceJudging(LoggedFields):
    """How a scorer asks its coherence judge: the judge object the BooookScore scorer takes,
    checked, applied to sentences through the coherence judge of the registry
    (`judges/registry.py`) its mode names.

    Attributes:
        mode: `sentence`, `batched`, `probe`, `fitted` or `auto` (see :func:`resolve_mode`).
        batch_size: sentences per call in `batched` mode.
        max_attempts: calls per sentence (or batch) before a verdict is a parse failure.
        cache: cache judge calls (a summary can be re-scored without new calls).
        prompts_dir: folder overriding the `booookscore/` prompt templates.
        calibration: `probe` mode thresholds file, or `fitted` mode model file.
        threshold: `probe` mode: one threshold for every type, overriding the calibration.
        layout: `sentence` mode prompt layout, `quoted` or `numbered`.
        readings: `sentence`, `batched` and `probe` modes: a sentence judged clear is also
            judged without its suspect pieces (in another language than the summary's,
            naming the verdict word, or addressed to the judge) and the most confusing
            verdict kept, so a note to the judge cannot clear it
            (`statement_parts.sentence_readings`; docs/judges.md). A sentence without a
            suspect piece, nearly every summary sentence, costs nothing more.
    """

    mode: ScorerMode = "auto"
    batch_size: int = 10
    max_attempts: int = 3
    cache: bool = True
    prompts_dir: str | None = None
    calibration: str | None = None
    threshold: float | None = None
    layout: SentenceLayout = "quoted"
    readings: bool = True

    FIELDS_NAME = "coherence judge fields"

    def __post_init__(self) -> None:
        if self.layout not in get_args(SentenceLayout):
            raise ValueError(f"unknown layout {self.layout!r}; expected 'numbered' or 'quoted'")
        check_mode(self.mode)

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
        resolved, note = await chosen_mode(self.mode, judge)
        # A card measures the packaged calibration: with another one, no card applies.
        own = self.calibration is None and self.threshold is None
        card = card_name(stands_for(judge), "coherence", resolved) if own else None
        extra: dict[str, Any] = {"mode": resolved, "judge_card": card}
        if note:
            extra[MODE_NOTE] = note
        ask = judge_entry("coherence", resolved).run
        verdicts, calls = await ask(self, judge, sentences, extra)
        return verdicts, calls, extra


def unit_verdict(verdict: SentenceVerdict) -> UnitVerdict:
    """A coherence verdict in the unit-judge shape: flagged when the sentence confuses, the
    probe judges' P(confusion) as its probability. The answer is the verdict as read (the
    judges keep no answer text; the transcript has it) or, unread, why it could not be."""
    if not verdict.parsed:
        return UnitVerdict(None, None, False, "; ".join(verdict.problems))
    if not verdict.confused:
        answer = "No confusion"
    else:
        answer = "\n".join(
            [*(f"Question: {q}" for q in verdict.questions), f"Types: {', '.join(verdict.types)}"]
        )
    return UnitVerdict(verdict.confused, verdict.p_confusion, True, answer)


@dataclass(frozen=True)
class CoherenceUnitJudge:
    """The coherence table as a unit judge: `judging` asked of the model `model` names, else
    the one bound to `model_role` (as Inspect's model-graded scorers find theirs)."""

    judging: CoherenceJudging
    model: str | Model | None = None
    model_role: str | None = GRADER_ROLE

    async def judge_units(
        self, state: TaskState, units: list[str], statements: list[str] | None = None
    ) -> JudgedUnits:
        """Verdicts on the sentences ``units`` (each judged in the summary's order; a
        coherence judge reads no statements)."""
        judge = grader_model(self.model, self.model_role)
        verdicts, calls, extra = await self.judging.judge(judge, units)
        shaped = [unit_verdict(v) for v in verdicts]
        # BooookScore counts a sentence clean when unflagged: the judge's per-unit score.
        scores = [None if v.flag is None else float(not v.flag) for v in shaped]
        metadata = {
            "judge": str(judge),
            **extra,
            "judge_calls": calls,
            "verdicts": [v.as_dict() for v in verdicts],
        }
        return JudgedUnits(shaped, scores, metadata)


CoherenceJudge = Callable[
    [CoherenceJudging, Model, list[str], dict[str, Any]],
    Awaitable[tuple[list[SentenceVerdict], int]],
]
"""(options, judge model, sentences, metadata to add to) -> (verdicts, calls made)."""


async def _fitted(
    options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
) -> tuple[list[SentenceVerdict], int]:
    """The fitted judge: probes and text signals weighed by a model fitted on people's labels."""
    fitted = load_fitted(str(judge), options.calibration)
    if fitted is None:
        raise ValueError(
            f"no fitted coherence judge is packaged for {judge}: use mode=probe, or fit "
            "one on people's labels (benchmarks/coherence_human_fit.py) and pass it as "
            "calibration=FILE"
        )
    extra["calibration"] = fitted.source
    settings = ProbeSettings(cache=options.cache, prompts_dir=options.prompts_dir)
    return await fitted_summary(judge, sentences, settings, fitted)


async def _probe(
    options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
) -> tuple[list[SentenceVerdict], int]:
    """Calibrated yes/no probes read from log-probabilities (small local judges)."""
    settings = ProbeSettings(
        cache=options.cache,
        prompts_dir=options.prompts_dir,
        calibration=options.calibration,
        threshold=options.threshold,
        readings=options.readings,
    )
    extra["calibration"] = thresholds_for(str(judge), settings)[1]
    return await probe_summary(judge, sentences, settings)


def _paper(mode: Literal["sentence", "batched"]) -> CoherenceJudge:
    """The paper's prompt, one sentence per call (`sentence`) or several (`batched`)."""

    async def ask(
        options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
    ) -> tuple[list[SentenceVerdict], int]:
        settings = JudgeSettings(
            mode=mode,
            batch_size=options.batch_size,
            max_attempts=options.max_attempts,
            cache=options.cache,
            prompts_dir=options.prompts_dir,
            layout=options.layout,
            readings=options.readings,
        )
        if mode == "sentence":
            extra["layout"] = options.layout
        return await judge_summary(judge, sentences, settings)

    return ask


def _probe_calls(work: JudgeWork, fitted: bool = False) -> float:
    """Calls of the probe (or fitted) judge on ``work.items`` sentences: one per probe its
    calibration (or fitted weights) switches on, fewer for the first sentence
    (`probe.probes_at`)."""
    if fitted:
        found = load_fitted(work.judge) if work.judge else None
        on = fitted_asked(found) if found is not None else None
    else:
        on, _ = thresholds_for(work.judge or "", ProbeSettings())
    return float(sum(len(probes_at(i, on)) for i in range(work.items)))


_CARD_SETTINGS = ("layout", "calibration", "threshold", "prompts_dir")

for _entry in (
    JudgeEntry("coherence", "sentence", _paper("sentence"), CoherenceJudging,
               lambda w: float(w.items), card_settings=_CARD_SETTINGS),
    JudgeEntry("coherence", "batched", _paper("batched"), CoherenceJudging,
               lambda w: float(-(-w.items // (w.batch or CoherenceJudging.batch_size))),
               card_settings=_CARD_SETTINGS),
    JudgeEntry("coherence", "probe", _probe, CoherenceJudging, _probe_calls,
               calibration_kind="coherence_probe", card_settings=_CARD_SETTINGS),
    JudgeEntry("coherence", "fitted", _fitted, CoherenceJudging,
               lambda w: _probe_calls(w, fitted=True), calibration_kind="coherence_fitted",
               card_settings=_CARD_SETTINGS),
):  # fmt: skip
    register_judge(_entry)
"""The coherence judges, one per BooookScore mode (`auto` resolves to one of them)."""
