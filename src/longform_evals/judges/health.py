"""What a run says aloud about its judge while it runs, besides what the log's metadata holds.

A judge that runs without a calibration, that returns no log-probabilities when asked for them,
or whose answers go unread more than :data:`UNREADABLE_SHARE` of the time is announced with a
warning line, once per run and judge: Inspect shows warnings in its display (also with
`--display plain` and in CI) and keeps them in the log. A judge whose provider refuses
log-probabilities stops the run with one error naming the fix
(:class:`LogprobsRefusedError`), instead of one failed call per sample. The log-probability
checks are made on every call by the call path (:mod:`longform_evals.models.logprobs`), below
the judges; the warnings are said once per process by :mod:`longform_evals.models.announce`.

The share of unreadable answers is trusted during a run only over :data:`MIN_READINGS`
answers; a judge none of whose answers could be read is also announced when the run ends,
however few it gave (:class:`JudgeHealth`, the package's Inspect hook), since such a judge
judged nothing at all.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from inspect_ai.hooks import Hooks, RunEnd, RunStart, hooks

from longform_evals.models.announce import announce
from longform_evals.models.gguf_files import MODELS, packaged_equivalent
from longform_evals.models.grader import fallbacks_noted, forget_fallbacks
from longform_evals.models.logprobs import LogprobsRefusedError

__all__ = [
    "UNREADABLE_SHARE",
    "JudgeHealth",
    "LogprobsRefusedError",
    "announce",
    "announce_unreadable_judges",
    "note_readings",
    "register_judge_health",
]

UNREADABLE_SHARE = 0.10
"""Above this share of unreadable answers a judge is announced."""
MIN_READINGS = 20
"""Readings before the share is trusted (two unreadable answers of five say little)."""

_LOCK = threading.Lock()


@dataclass
class _Tally:
    read: int = 0
    unread: int = 0


_TALLIES: dict[tuple[str, str], _Tally] = {}


def note_readings(judge: str, kind: str, read: int, unread: int) -> None:
    """Add a sample's readable and unreadable judge answers to the run's tally for `judge`
    and `kind` (coherence, faithfulness, raters), and announce the judge once the share of
    unreadable ones passes :data:`UNREADABLE_SHARE` over at least :data:`MIN_READINGS`."""
    with _LOCK:
        tally = _TALLIES.setdefault((judge, kind), _Tally())
        tally.read += read
        tally.unread += unread
        total = tally.read + tally.unread
        share = tally.unread / total if total else 0.0
        unread_now = tally.unread
    if total >= MIN_READINGS and share > UNREADABLE_SHARE:
        announce(
            ("unreadable", judge, kind),
            f"{kind} judge {judge}: {unread_now} of {total} answers unreadable so far "
            f"({share:.0%}, above {UNREADABLE_SHARE:.0%}); they are left out of the scores and "
            "counted in each score's metadata. A judge that cannot keep the answer format "
            "needs another mode or a stronger model (docs/judges.md).",
        )


def unreadable_judges() -> list[tuple[str, str, int]]:
    """(judge, kind, answers) of every judge none of whose answers this run could be read."""
    with _LOCK:
        return [(j, k, t.unread) for (j, k), t in _TALLIES.items() if t.unread and not t.read]


def announce_unreadable_judges(run: str) -> None:
    """Announce, at the end of run `run`, every judge none of whose answers could be read,
    whatever their number (the share warning of :func:`note_readings` waits for
    :data:`MIN_READINGS`)."""
    for judge, kind, answers in unreadable_judges():
        them = "its one answer" if answers == 1 else f"any of its {answers} answers"
        announce(
            ("all unreadable", judge, kind, run),
            f"{kind} judge {judge}: could not read {them} in this run, so it judged "
            "nothing: the unread answers are left out of the scores and counted in each "
            "score's metadata. A judge that cannot keep the answer format needs another mode "
            "or a stronger model (docs/judges.md).",
        )


def reset_readings() -> None:
    """Forget the tallies (a new run in the same process)."""
    with _LOCK:
        _TALLIES.clear()


class JudgeHealth(Hooks):
    """Counts each run's judge answers (and judges taken for want of a bound role) afresh
    and, when the run ends, announces a judge none of whose answers could be read
    (:func:`announce_unreadable_judges`).

    Enabled once a judge of the package has judged, or been taken for want of a bound role,
    in this process: before, there is nothing to forget or to say, and Inspect's banner does
    not list it for a run of other tasks."""

    def enabled(self) -> bool:
        with _LOCK:
            judged = bool(_TALLIES)
        return judged or fallbacks_noted()

    async def on_run_start(self, data: RunStart) -> None:
        reset_readings()
        forget_fallbacks()  # which judges judge for want of a bound role, this run

    async def on_run_end(self, data: RunEnd) -> None:
        announce_unreadable_judges(data.run_id)


def register_judge_health() -> type[JudgeHealth]:
    """Register :class:`JudgeHealth` with Inspect (the package's entry point calls this)."""
    return hooks(
        name="longform_judge_health",
        description="longform-evals: names, at a run's end, a judge whose answers went unread",
    )(JudgeHealth)


def _calibrated_models(kind: str) -> list[str]:
    """The packaged models with a calibration file of `kind` (`coherence` covers its modes'
    files, `coherence_probe_...`)."""
    from importlib import resources

    folder = resources.files("longform_evals.judges").joinpath("calibration")
    names = [f.name for f in folder.iterdir() if f.name.startswith(f"{kind}_")]
    return [f"gguf/{m}" for m in MODELS if any(n.endswith(f"_{m}.json") for n in names)]


def uncalibrated_message(judge: str, kind: str, source: str) -> str:
    """What to tell of `judge` running `kind` judgements without a calibration (`source`:
    `uncalibrated`, with the default thresholds in brackets where the judge says them), and
    what to do about it, for this judge: a packaged model, or one served under a packaged
    model's name (which is how a served model gets a packaged calibration), is told none is
    packaged for that model; a model loaded from a file or served under another name, that a
    packaged model's weights take its calibration under its packaged name (when a packaged
    model has one of this kind); a hosted model, only to calibrate it."""
    defaults = source.removeprefix("uncalibrated").strip()
    head = (
        f"{kind} judge {judge} has no calibration: its thresholds are defaults"
        f"{' ' + defaults if defaults else ''}, not fitted to this model, so its flags may "
        "mean little."
    )
    fix = " Calibrate it (docs/judges.md) or pass a calibration file."
    served_as = packaged_equivalent(judge)
    if served_as is not None:
        return (
            f"{head} It is served under the name of the packaged model {served_as}, whose "
            f"calibration it would use, and none of kind {kind} is packaged for that model.{fix}"
        )
    if judge.startswith("gguf/") and judge.split("/", 1)[1] in MODELS:
        return f"{head} None of kind {kind} is packaged for this model.{fix}"
    calibrated = _calibrated_models(kind)
    # a file loaded by the local engine, or a model an OpenAI-compatible server names
    if judge.split("/", 1)[0] in ("gguf", "openai-api") and calibrated:
        names = ", ".join(m.split("/", 1)[1] for m in calibrated)
        return (
            f"{head}{fix} If its weights are those of a packaged model with one ({names}), "
            "run it under that name (`gguf/<name>`, or served under it, as `longform serve "
            "<name>` serves it) and it uses that model's calibration."
        )
    return head + fix


def announce_uncalibrated(judge: str, kind: str, source: str) -> None:
    """Warn once that `judge` runs `kind` judgements on default thresholds
    (:func:`uncalibrated_message` says what applies to this judge)."""
    announce(("uncalibrated", judge, kind), uncalibrated_message(judge, kind, source))
