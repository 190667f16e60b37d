"""What a run says aloud about its judge: no calibration, too many unreadable answers, none
readable at all (judges/health.py). Refused and missing log-probabilities are the call path's
(tests/models/test_call_path.py)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model

from longform_evals.judges import health
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.judges.health import LogprobsRefusedError, note_readings
from longform_evals.models import announce
from longform_evals.models.logprobs import LogprobsRefusedError as CallPathError
from longform_evals.scorers.booookscore import booookscore
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.solvers.summarize.given import given_summary

SUMMARY = "Mara keeps the light. Tom fixes the lamp."


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


# --------------------------------------------------------------------------------------------
# A judge none of whose answers could be read: announced when the run ends, however short.


def test_a_judge_that_read_nothing_is_named_at_the_end(caplog: pytest.LogCaptureFixture) -> None:
    note_readings("judge/mute", "coherence", read=0, unread=2)  # too few for the share
    note_readings("judge/some", "coherence", read=1, unread=3)  # read something: no
    with caplog.at_level(logging.WARNING, logger=announce.__name__):
        health.announce_unreadable_judges("run-1")
        health.announce_unreadable_judges("run-1")  # said once per run
    [record] = caplog.records
    assert record.getMessage().startswith(
        "coherence judge judge/mute: could not read any of its 2 answers in this run"
    )


def test_a_new_run_counts_its_own_answers() -> None:
    note_readings("judge/mute", "coherence", read=0, unread=2)
    asyncio.run(health.JudgeHealth().on_run_start(_run_start()))
    note_readings("judge/mute", "coherence", read=5, unread=0)
    assert health.unreadable_judges() == []


def test_the_hook_is_off_until_a_judge_has_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    # (so Inspect's banner does not list it for runs of other tasks)
    from longform_evals.models import grader

    monkeypatch.setattr(grader, "_fell_back", {})
    hook = health.JudgeHealth()
    assert not hook.enabled()
    note_readings("judge/a", "raters", read=1, unread=0)
    assert hook.enabled()


def _run_start() -> Any:
    from inspect_ai.hooks import RunStart

    return RunStart(eval_set_id=None, run_id="run-2", task_names=[])


def test_a_short_run_whose_sentence_judge_reads_nothing_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two sentences, judged one by one (the paper's mode) by a judge that never gives a
    verdict: 2 answers, far below the 20 the share waits for, and said when the run ends."""
    import longform_evals._registry  # noqa: F401  (the entry point registers the hooks)

    sample = Sample(
        id="s",
        input="Summarize.",
        metadata={"documents": ["Mara keeps the light."], "summary": SUMMARY},
    )
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=given_summary(),
        scorer=booookscore(CoherenceJudging(mode="sentence", cache=False)),
    )
    mumbler = get_model("scripted/mumbler", default_response="Perhaps.", memoize=False)
    with caplog.at_level(logging.WARNING, logger=announce.__name__):
        [log] = inspect_eval(
            task,
            model=get_model("scripted/writer", default_response="-", memoize=False),
            model_roles={"grader": mumbler},
            log_dir=str(tmp_path),
            display="none",
        )
    assert log.status == "success", log.error
    assert log.samples and log.samples[0].scores
    assert log.samples[0].scores["booookscore"].value["parse_failure_rate"] == 1.0  # type: ignore[index]
    said = [r.getMessage() for r in caplog.records if "could not read" in r.getMessage()]
    assert said == [
        "coherence judge scripted/mumbler: could not read any of its 2 answers in this run, so "
        "it judged nothing: the unread answers are left out of the scores and counted in each "
        "score's metadata. A judge that cannot keep the answer format needs another mode or a "
        "stronger model (docs/judges.md)."
    ]


# --------------------------------------------------------------------------------------------
# The calibration warning says what applies to this judge.


@pytest.mark.parametrize(
    ("judge", "says", "never"),
    [
        # served under a packaged name: it already takes that model's calibration; none exists
        (
            "openai-api/longform/qwen2.5-coder-0.5b",
            "served under the name of the packaged model gguf/qwen2.5-coder-0.5b",
            "longform serve",
        ),
        ("gguf/qwen2.5-coder-0.5b", "None of kind coherence is packaged for this model", "serve"),
        # a file, or a server under another name: a packaged model's weights can be named so
        ("gguf/mymodel", "`longform serve <name>`", "None of kind"),
        ("openai-api/vllm/my-qwen", "a packaged model with one (qwen2.5-coder-1.5b)", "None of"),
        # a hosted model: only calibrating it applies
        ("openai/gpt-4o-mini", "Calibrate it", "serve"),
    ],
)
def test_the_calibration_warning_fits_the_judge(judge: str, says: str, never: str) -> None:
    message = health.uncalibrated_message(judge, "coherence", "uncalibrated (0.5)")
    assert message.startswith(f"coherence judge {judge} has no calibration: its thresholds ")
    assert says in message and never not in message, message


def _faithfulness_run(tmp_path: Path, threshold: float | None) -> list[str]:
    sample = Sample(
        id="s",
        input="Summarize.",
        metadata={"documents": ["Mara keeps the light."], "summary": "Mara keeps the light."},
    )
    scorer = faithfulness(threshold=threshold, judge_options={"cache": False})
    task = Task(dataset=MemoryDataset([sample]), solver=given_summary(), scorer=scorer)
    verifier = get_model("scripted/uncalibrated", default_response="Yes", memoize=False)
    [log] = inspect_eval(
        task,
        model=get_model("scripted/writer", default_response="-", memoize=False),
        model_roles={"grader": verifier},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples, log.error
    return [
        e.message.message
        for e in log.samples[0].events
        if e.event == "logger" and "has no calibration" in e.message.message
    ]


def test_a_threshold_the_user_gave_is_not_called_a_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(_faithfulness_run(tmp_path / "default", None)) == 1
    monkeypatch.setattr(announce, "_ANNOUNCED", set())  # (said once per process)
    assert _faithfulness_run(tmp_path / "given", 0.5) == []
