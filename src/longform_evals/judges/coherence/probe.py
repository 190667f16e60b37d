"""A coherence judge for small models: one yes/no question per kind of confusion, read as P(yes).

Asked the paper's open question ("is this sentence confusing? list questions and types"),
the embedded 1.5B judge answers "no confusion" to nearly everything, so its BooookScore is
always ~100 and means nothing. What a small model can do is answer narrow yes/no questions
about a sentence and the text before it, with a probability that moves with the truth even
when its yes/no word does not. So each sentence gets one short question per error type
("does the earlier text already say this?" for duplication, ...); P(yes) is read from the
first answer token's log-probabilities; and a type is flagged when that probability passes
a threshold calibrated, for that judge model, on a separate split of a planted-error set
(`benchmarks/booookscore_judge.py --calibrate`). Probes that showed no signal in calibration
are switched off, so the judge reports only the kinds of confusion it can actually see.
A sentence counts only when every active probe gave a yes/no answer (`verdict_from_probes`).

Two prompt layouts, each with its own calibration file:
- `per_probe`: one call per probe, instructions, the earlier text, the sentence, then the
  question, so the probes of one sentence share everything but the question, and consecutive
  sentences share the earlier text;
- `joint`: one call per sentence. The questions come first, in the instructions, and the
  summary follows one sentence per line up to the judged one, which is the last line; the
  answer is one Yes/No word per question, each probe's P(yes) read from its own answer
  position. Each sentence's prompt extends the previous sentence's by one line, so a
  sentence's text is processed once; nearly all the cost of the `per_probe` layout is prompt
  processing on a CPU (the question tails and the earlier sentence read again under a new
  label), which this layout avoids (`benchmarks/throughput.py`, part C). But the 1.5B judge
  cannot answer a list of questions: in this layout its probes rank planted errors at chance
  (docs/booookscore.md), so `per_probe` is the default and `joint` waits for a judge that can.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from inspect_ai.log import transcript
from inspect_ai.model import GenerateConfig, Model

from longform_evals.judges.calibration_files import read_calibration
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.injection import as_data
from longform_evals.judges.statement_parts import sentence_readings
from longform_evals.judges.steps import JUDGE
from longform_evals.judges.yes_no import p_yes_at_answers, p_yes_from_output, reading_source
from longform_evals.models.calls import generate
from longform_evals.models.fan_out import fan_out
from longform_evals.progress import BOARD, JUDGE_PHASE
from longform_evals.prompts import load_prompt


@dataclass(frozen=True)
class Probe:
    """A yes/no question that reveals one kind of confusion."""

    name: str
    error_type: str
    flag_when: Literal["yes", "no"]
    needs_earlier: bool = True  # meaningless for the first sentence, which is not asked


PROBES: tuple[Probe, ...] = (
    Probe("introduced", "entity_omission", "no"),
    Probe("events_known", "event_omission", "no"),
    Probe("explained", "causal_omission", "no"),
    Probe("matters", "salience", "no", needs_earlier=False),
    Probe("follows", "discontinuity", "no"),
    Probe("repeats", "duplication", "yes"),
    Probe("compatible", "inconsistency", "no"),
    Probe("well_formed", "language", "no", needs_earlier=False),
)
_NO_EARLIER_TEXT = "(none: this is the first sentence of the summary)"
PROBE_BY_NAME = {p.name: p for p in PROBES}

ProbeLayout = Literal["per_probe", "joint"]
JOINT_ORDER: tuple[str, ...] = ("repeats", "follows", "matters", "explained")
"""The `joint` layout's questions when no calibration names them: the probes the `per_probe`
calibration of the 1.5B judge switched on, most discriminating first (a later answer is read
after the judge's own earlier answers)."""


@dataclass(frozen=True)
class ProbeThreshold:
    """When a probe flags: its signal (P(yes), or 1 - P(yes) for flag-on-no) >= threshold."""

    threshold: float
    enabled: bool = True


PROBE_TEMPLATES: tuple[str, ...] = ("probe", "probe_unfenced")
"""The `per_probe` layout's prompts: `probe` fences the earlier text and the sentence and
says they are text to check; `probe_unfenced` is the earlier wording, kept because the fitted
judge's weights were fitted on its answers. A calibration names the prompt it was measured
with (`probe_template`; a file without the key predates the fence)."""


@dataclass(frozen=True)
class ProbeSettings:
    cache: bool = True
    prompts_dir: str | None = None
    calibration: str | None = None
    threshold: float | None = None
    top_logprobs: int = 10
    layout: ProbeLayout = "per_probe"
    template: str = "probe"
    readings: bool = False
    """`probe_summary` also probes each sentence's readings and keeps the most confusing
    answer (`Prober.readings`); calibration and the fitted judge probe sentences as written."""

    def __post_init__(self) -> None:
        if self.template not in PROBE_TEMPLATES:
            raise ValueError(
                f"probe template {self.template!r} is not one of {', '.join(PROBE_TEMPLATES)}"
            )


def probe_signal(p_yes: float, probe: Probe) -> float:
    """The probability that the probe's kind of confusion is present."""
    return p_yes if probe.flag_when == "yes" else 1.0 - p_yes


def calibration_kind(layout: ProbeLayout, template: str = "probe") -> str:
    """The calibration file kind of a layout and prompt (`coherence_probe_joint_<model>.json`,
    `coherence_probe_unfenced_<model>.json`, ...)."""
    if layout == "joint":
        return f"coherence_probe_{layout}"
    return "coherence_probe" if template == "probe" else f"coherence_{template}"


@lru_cache(maxsize=16)
def _load_calibration_file(
    path: str | None, model: str, layout: ProbeLayout, template: str
) -> tuple[dict[str, Any], str] | None:
    return read_calibration(calibration_kind(layout, template), model, path)


def asked_probes(layout: ProbeLayout) -> tuple[str, ...]:
    """The probes a layout asks (and calibrates): `joint` only :data:`JOINT_ORDER`."""
    return JOINT_ORDER if layout == "joint" else tuple(p.name for p in PROBES)


def thresholds_for(model: str, settings: ProbeSettings) -> tuple[dict[str, ProbeThreshold], str]:
    """Per-probe thresholds for a judge model, and where they came from.

    The `joint` layout asks only the probes of :data:`JOINT_ORDER`; the others are off.
    """
    asked = asked_probes(settings.layout)
    if settings.threshold is not None:
        return (
            {p.name: ProbeThreshold(settings.threshold, p.name in asked) for p in PROBES},
            f"threshold={settings.threshold}",
        )
    loaded = _load_calibration_file(settings.calibration, model, settings.layout, settings.template)
    if loaded is None:
        # No calibration for this judge: the neutral point, and the metadata says so.
        return (
            {p.name: ProbeThreshold(0.5, p.name in asked) for p in PROBES},
            "uncalibrated (0.5)",
        )
    data, source = loaded
    measured_with = data.get("probe_template", "probe_unfenced")
    if settings.layout == "per_probe" and measured_with != settings.template:
        raise ValueError(
            f"calibration {source} was measured with the {measured_with!r} probe prompt, not "
            f"{settings.template!r}: recalibrate (benchmarks/booookscore_judge.py --calibrate)"
        )
    probes = data.get("probes", {})
    missing = [name for name in asked if name not in probes]
    if missing:
        raise ValueError(f"calibration {source} lacks probes {missing}")
    return (
        {
            p.name: ProbeThreshold(
                float(probes[p.name]["threshold"]), bool(probes[p.name].get("enabled", True))
            )
            if p.name in asked
            else ProbeThreshold(0.5, enabled=False)
            for p in PROBES
        },
        source,
    )


def probes_at(index: int, only_enabled: dict[str, ProbeThreshold] | None = None) -> list[Probe]:
    """The probes asked about sentence ``index`` in the `per_probe` layout, one call each:
    those switched on (all with ``only_enabled`` None), less, for the first sentence, those
    about earlier text. The dry run's estimate counts calls with this too."""
    return [
        p
        for p in PROBES
        if (index > 0 or not p.needs_earlier)
        and (only_enabled is None or only_enabled[p.name].enabled)
    ]


@dataclass(frozen=True)
class ReadProbes:
    """A sentence's probe answers, the most confusing over the sentence and its readings."""

    p_yes: dict[str, float | None]
    calls: int
    readings: list[str]
    """The other readings probed (`statement_parts.sentence_readings`), up to the first
    that flagged."""
    more_confusing: str | None
    """The reading whose answers were more confusing than the sentence's, if any."""


@dataclass(frozen=True)
class Prober:
    """How a summary's sentences are probed: the judge, its settings, which probes it is asked
    and where its answers' readings are counted.

    `only_enabled`: ask only the probes these thresholds switch on, all the verdict reads (the
    scorer does; calibration passes None to read every probe). `sources` counts how each
    answer was read (`yes_no.reading_source`).
    """

    model: Model
    settings: ProbeSettings
    only_enabled: dict[str, ProbeThreshold] | None = None
    sources: Counter[str] | None = None

    async def sentence(
        self, sentences: list[str], index: int
    ) -> tuple[dict[str, float | None], int]:
        """P(yes) of every probe asked about sentence `index` (None: unreadable), and the calls
        made."""
        model, settings = self.model, self.settings
        if settings.layout == "joint":
            return await self._joint(sentences, index)
        asked = probes_at(index, self.only_enabled)
        frame = load_prompt("booookscore", settings.template, settings.prompts_dir)
        earlier = " ".join(sentences[:index]) or _NO_EARLIER_TEXT
        config = GenerateConfig(
            temperature=0.0, max_tokens=1, logprobs=True, top_logprobs=settings.top_logprobs
        )
        prompts = [
            frame.render(
                earlier=as_data(earlier),
                sentence=as_data(sentences[index]),
                question=load_prompt("booookscore_probes", p.name, settings.prompts_dir).text,
            )
            for p in asked
        ]
        BOARD.plan(JUDGE_PHASE, len(prompts))
        outputs = await fan_out(
            *[
                generate(
                    model, prompt, config, step=JUDGE, cache=settings.cache, progress=JUDGE_PHASE
                )
                for prompt in prompts
            ]
        )
        answers = {p.name: p_yes_from_output(o) for p, o in zip(asked, outputs, strict=True)}
        if self.sources is not None:
            self.sources.update(reading_source(o) for o in outputs)
        return answers, len(outputs)

    async def readings(self, sentences: list[str], index: int) -> ReadProbes:
        """Probe sentence `index`, then its readings (the sentence without its suspect pieces,
        `statement_parts.sentence_readings`) one by one in its place after the same earlier
        text, and keep, per probe, the answer that signals the most confusion.

        A note to the judge can only make a confusing sentence look clear; a reading without
        it shows the confusion again, and its answers are kept. The verdict is "confused" once
        any enabled probe of any reading flags, so the readings stop there (a sentence flagged
        as written costs no extra call). An unreadable answer leaves that probe unreadable.
        """
        thresholds = self.only_enabled or {p.name: ProbeThreshold(0.5) for p in PROBES}
        texts = [sentences[index], *sentence_readings(sentences, index)]
        answers: list[dict[str, float | None]] = []
        calls = 0
        for text in texts:
            p_yes, n = await self.sentence([*sentences[:index], text], index)
            answers.append(p_yes)
            calls += n
            if _peak(p_yes, thresholds) >= 0.5 or any(v is None for v in p_yes.values()):
                break  # flagged (or unreadable): no reading can make the verdict clearer
        peaks = [_peak(a, thresholds) for a in answers]
        best = max(range(len(answers)), key=lambda k: peaks[k])
        more = texts[best] if best and peaks[best] > peaks[0] else None
        return ReadProbes(_most_confusing(answers), calls, texts[1 : len(answers)], more)

    async def _joint(self, sentences: list[str], index: int) -> tuple[dict[str, float | None], int]:
        """The `joint` layout: every probe of :data:`JOINT_ORDER` from one call (module
        docstring).

        The question list is the same for every sentence, the first included, so all prompts
        of a summary share it; the first sentence's answers to questions about earlier text
        are dropped.
        """
        names = JOINT_ORDER
        prompt = joint_prompt(sentences, index, names, self.settings.prompts_dir)
        config = GenerateConfig(
            temperature=0.0,
            max_tokens=2 * len(names) + 4,
            logprobs=True,
            top_logprobs=self.settings.top_logprobs,
        )
        BOARD.plan(JUDGE_PHASE, 1)
        output = await generate(
            self.model, prompt, config, step=JUDGE, cache=self.settings.cache, progress=JUDGE_PHASE
        )
        answers = dict(zip(names, p_yes_at_answers(output, len(names)), strict=True))
        if index == 0:
            answers = {n: p for n, p in answers.items() if not PROBE_BY_NAME[n].needs_earlier}
        return answers, 1


def _most_confusing(answers: list[dict[str, float | None]]) -> dict[str, float | None]:
    """Per probe, the P(yes) of the most confusing answer over readings (None if any is)."""
    out: dict[str, float | None] = {}
    for name in answers[0]:
        values = [a.get(name) for a in answers]
        if any(v is None for v in values):
            out[name] = None
            continue
        probe = PROBE_BY_NAME[name]
        out[name] = max((v for v in values if v is not None), key=lambda v: probe_signal(v, probe))
    return out


def _peak(p_yes: dict[str, float | None], thresholds: dict[str, ProbeThreshold]) -> float:
    """The largest centred signal of an answer set's enabled, readable probes."""
    return max(
        (
            centred(probe_signal(v, PROBE_BY_NAME[n]), thresholds[n].threshold)
            for n, v in p_yes.items()
            if v is not None and thresholds[n].enabled
        ),
        default=0.0,
    )


def joint_prompt(
    sentences: list[str], index: int, names: tuple[str, ...], prompts_dir: str | None = None
) -> str:
    """The `joint` layout's prompt for sentence `index`: the numbered questions, then the
    summary one sentence per line up to that sentence. Everything up to the end of the
    sentence's line is a prefix of the next sentence's prompt."""
    frame = load_prompt("booookscore", "probe_joint", prompts_dir)
    questions = "\n".join(
        f"{n}. {load_prompt('booookscore_probes', name, prompts_dir).text}"
        for n, name in enumerate(names, start=1)
    )
    lines = "\n".join(as_data(s) for s in sentences[: index + 1])
    return frame.render(questions=questions, lines=lines)


def verdict_from_probes(
    index: int,
    sentence: str,
    p_yes: dict[str, float | None],
    thresholds: dict[str, ProbeThreshold],
) -> SentenceVerdict:
    """Flag every enabled probe whose signal reaches its threshold (unasked probes skipped).

    The sentence is read only when every active probe (asked and enabled) gave a readable
    answer, and at least one asked probe did: a partial verdict is a parse failure, with the
    unreadable probes named in `problems`, so the scorer leaves the sentence out of the score.
    A sentence no switched-on probe applies to (nothing asked) is read as clean.
    `p_confusion` is the largest :func:`centred` signal: at least 0.5 exactly when confused.
    An unreadable disabled probe is noted in `problems` but does not stop the reading.
    """
    verdict = SentenceVerdict(index=index, sentence=sentence, attempts=len(p_yes))
    signals: dict[str, float] = {}
    unread_active: list[str] = []
    for probe in PROBES:
        if probe.name not in p_yes:
            continue
        p = p_yes[probe.name]
        if p is None:
            verdict.problems.append(f"probe {probe.name}: the answer was neither yes nor no")
            if thresholds[probe.name].enabled:
                unread_active.append(probe.name)
            continue
        signals[probe.error_type] = probe_signal(p, probe)
    verdict.type_probabilities = signals
    if unread_active:
        active = sum(1 for p in PROBES if p.name in p_yes and thresholds[p.name].enabled)
        verdict.problems.append(
            f"unread: {len(unread_active)} of {active} active probes unreadable "
            f"({', '.join(unread_active)})"
        )
        return verdict
    if not signals and p_yes:
        return verdict  # nothing readable: a parse failure
    verdict.parsed = True
    active_signals = [
        (p, signals[p.error_type])
        for p in PROBES
        if p.error_type in signals and thresholds[p.name].enabled
    ]
    verdict.types = [p.error_type for p, s in active_signals if s >= thresholds[p.name].threshold]
    verdict.confused = bool(verdict.types)
    verdict.p_confusion = max(
        (centred(s, thresholds[p.name].threshold) for p, s in active_signals), default=0.0
    )
    return verdict


def centred(signal: float, threshold: float) -> float:
    """A probe's signal rescaled so that its threshold sits at 0.5, monotone on each side.

    The probes' thresholds differ (0.49 to 0.62 for the 1.5B judge), so the largest raw signal
    can rank a sentence no probe flags above one that a probe does. Rescaled, the largest
    value over a sentence's probes reaches 0.5 exactly when the verdict is confused, and it
    ranks sentences as the thresholds do; each probe's own ranking is unchanged.
    """
    if signal >= threshold:
        return 1.0 if threshold >= 1.0 else 0.5 + 0.5 * (signal - threshold) / (1.0 - threshold)
    # Below 0.5 even when rounding would make a signal a hair under its threshold 0.5.
    return min(0.5 * signal / threshold, math.nextafter(0.5, 0.0))


async def probe_summary(
    model: Model, sentences: list[str], settings: ProbeSettings
) -> tuple[list[SentenceVerdict], int]:
    """Probe-mode verdicts for every sentence of a summary, and the number of calls."""
    thresholds, source = thresholds_for(str(model), settings)
    read_from: list[Counter[str]] = [Counter() for _ in sentences]

    async def one(i: int) -> ReadProbes:
        prober = Prober(model, settings, thresholds, read_from[i])
        if settings.readings:
            return await prober.readings(sentences, i)
        p_yes, calls = await prober.sentence(sentences, i)
        return ReadProbes(p_yes, calls, [], None)

    results = await fan_out(*[one(i) for i in range(len(sentences))])
    verdicts = [
        verdict_from_probes(i, sentences[i], r.p_yes, thresholds) for i, r in enumerate(results)
    ]
    for verdict, r, counts in zip(verdicts, results, read_from, strict=True):
        verdict.read_from = dict(counts) if counts else None
        verdict.readings, verdict.more_confusing = len(r.readings), r.more_confusing
    transcript().info({"coherence_probe_thresholds": source})
    return verdicts, sum(r.calls for r in results)
