"""What a run says aloud about its judge: no calibration, too many unreadable answers
(judges/health.py). Refused and missing log-probabilities are the call path's
(tests/models/test_call_path.py)."""

from __future__ import annotations

import logging

import pytest

from longform_evals.judges import health
from longform_evals.judges.health import LogprobsRefusedError, note_readings
from longform_evals.models import announce
from longform_evals.models.logprobs import LogprobsRefusedError as CallPathError


@pytest.fixture(autouse=True)
def _fresh_tallies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(announce, "_ANNOUNCED", set())
    monkeypatch.setattr(health, "_TALLIES", {})


def test_the_refusal_error_is_still_importable_from_health() -> None:
    assert LogprobsRefusedError is CallPathError


def test_unreadable_share_is_announced_past_ten_percent(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        note_readings("judge/a", "coherence", read=18, unread=2)  # 10 %: not above
        assert not caplog.records
        note_readings("judge/a", "coherence", read=0, unread=1)  # 3 of 21
        note_readings("judge/a", "coherence", read=0, unread=5)  # said once
    [record] = caplog.records
    assert "3 of 21 answers unreadable" in record.getMessage()


def test_few_readings_are_not_enough_to_announce(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        note_readings("judge/b", "raters", read=1, unread=4)
    assert not caplog.records


def test_uncalibrated_judge_is_announced_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        health.announce_uncalibrated("openai-api/x/y", "coherence", "uncalibrated (0.5)")
        health.announce_uncalibrated("openai-api/x/y", "coherence", "uncalibrated (0.5)")
    [record] = caplog.records
    assert "has no calibration" in record.getMessage()
