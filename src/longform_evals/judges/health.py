"""What a run says aloud about its judge while it runs, besides what the log's metadata holds.

A judge that runs without a calibration, that returns no log-probabilities when asked for them,
or whose answers go unread more than :data:`UNREADABLE_SHARE` of the time is announced with a
warning line, once per run and judge: Inspect shows warnings in its display (also with
`--display plain` and in CI) and keeps them in the log. A judge whose provider refuses
log-probabilities stops the run with one error naming the fix
(:class:`LogprobsRefusedError`), instead of one failed call per sample. The log-probability
checks are made on every call by the call path (:mod:`longform_evals.models.logprobs`), below
the judges; the warnings are said once per process by :mod:`longform_evals.models.announce`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from longform_evals.models.announce import announce
from longform_evals.models.logprobs import LogprobsRefusedError

__all__ = [
    "UNREADABLE_SHARE",
    "LogprobsRefusedError",
    "announce",
    "note_readings",
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


def announce_uncalibrated(judge: str, kind: str, source: str) -> None:
    """Warn once that `judge` runs `kind` judgements on default thresholds."""
    announce(
        ("uncalibrated", judge, kind),
        f"{kind} judge {judge} has no calibration ({source}): its thresholds are defaults, "
        "not fitted to this model, so its flags may mean little. Calibrate it "
        "(docs/judges.md) or pass a calibration file; a model served by `longform serve` "
        "under a packaged model's name uses that model's calibration.",
    )
