"""A BooookScore run whose judge's provider drops its temperature stops at once with one short
error naming the fix, its other judge calls cancelled; the same judge sending it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from helpers import OFFLINE_RULES
from longform_evals.data.books import bundled_summaries_dir
from longform_evals.models.scripted import scripted_calls

FROST_HOLD = bundled_summaries_dir() / "the_frost_hold.jsonl"
TOTAL_CALLS = 186
"""The probe judge's calls on the bundled summary (24 sentences)."""
LATENCY = 0.2
"""Seconds each scripted call takes: the calls overlap, as a server's do."""


def _run(tmp_path: Path, name: str, **args: Any) -> EvalLog:
    grader = get_model(
        f"scripted/{name}", rules=OFFLINE_RULES, latency=LATENCY, memoize=False, **args
    )
    [log] = inspect_eval(
        "longform_evals/booookscore",
        model=grader,
        task_args={
            "score_only": True,
            "data": str(FROST_HOLD),
            "judge_mode": "probe",
            "judge_cache": False,
        },
        log_dir=str(tmp_path),
        display="none",
    )
    return log


def test_a_judge_sending_its_settings_runs(tmp_path: Path) -> None:
    log = _run(tmp_path, "sends_all")
    assert log.status == "success", log.error
    assert log.samples and log.samples[0].scores
    value = log.samples[0].scores["booookscore"].value
    assert isinstance(value, dict) and value["judge_calls"] == TOTAL_CALLS
    [event, *_] = [e for e in log.samples[0].events if isinstance(e, ModelEvent)]
    assert event.call is not None and event.call.request["config"]["temperature"] == 0.0


def test_a_judge_whose_provider_drops_temperature_stops_the_run_at_once(tmp_path: Path) -> None:
    log = _run(tmp_path, "drops_temperature", drop_settings="temperature")
    assert log.status == "error" and log.error is not None
    message = log.error.message
    assert len(message) < 600, message
    assert "JudgeSettingsError" in message and "temperature=0.0 asked" in message
    assert "openai-api/<service>/<model>" in message
    # The first checked answer stopped the sample: the calls in flight were cancelled.
    made = len(scripted_calls("drops_temperature"))
    assert 0 < made < TOTAL_CALLS / 4, made
