"""A sample stopped by an Inspect limit is reported as limited, never scored as if finished."""

from __future__ import annotations

import math
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai import score
from inspect_ai.log import EvalLog

from longform_evals.data.books import bundled_books_dir
from longform_evals.data.reading import reading_fixture
from longform_evals.scorers.booookscore import booookscore as booookscore_scorer
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.reading import quality

SUMMARY = "A summary of the part. It is short."


def _run(tmp_path: Path, **limits: int) -> EvalLog:
    task = booookscore(data=str(bundled_books_dir() / "the_frost_hold.txt"), chunk_size=512)
    [log] = inspect_eval(
        task,
        model="scripted/limits",
        model_args={"default_response": SUMMARY},
        log_dir=str(tmp_path),
        display="none",
        **limits,
    )
    assert log.status == "success" and log.samples is not None and log.results is not None
    return log


def test_a_token_limited_summary_is_counted_as_limited_not_scored(tmp_path: Path) -> None:
    log = _run(tmp_path, token_limit=3000)
    [sample] = log.samples or []
    assert sample.limit is not None and sample.limit.type == "token"
    scores = sample.scores or {}
    for name in ("booookscore", "summary_statistics"):
        score = scores[name]
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert score.reason == "limit"
        assert "token limit (3000)" in (score.explanation or "")
    assert scores["limited"].value == {"limited": 1.0}
    results = {s.name: s for s in (log.results.scores if log.results else [])}
    assert results["booookscore"].unscored_samples == 1
    assert results["booookscore"].scored_samples == 0
    assert results["limited"].metrics["mean"].value == 1.0


def test_a_message_limit_is_reported_too(tmp_path: Path) -> None:
    log = _run(tmp_path, message_limit=1)
    [sample] = log.samples or []
    assert sample.limit is not None and sample.limit.type == "message"
    assert (sample.scores or {})["booookscore"].reason == "limit"
    assert (sample.scores or {})["limited"].value == {"limited": 1.0}


def test_a_finished_sample_is_scored_and_not_limited(tmp_path: Path) -> None:
    log = _run(tmp_path)
    [sample] = log.samples or []
    scores = sample.scores or {}
    assert sample.limit is None
    assert scores["limited"].value == {"limited": 0.0}
    assert isinstance(scores["summary_statistics"].value, dict)
    assert scores["summary_statistics"].value["summary_words"] > 0


def test_reading_scorers_skip_a_limited_answer(tmp_path: Path) -> None:
    task = quality(data=str(reading_fixture("quality")), strategy="full")
    [log] = inspect_eval(
        task,
        model="scripted/limits",
        model_args={"default_response": "Answer: (A)"},
        log_dir=str(tmp_path),
        display="none",
        limit=1,
        token_limit=10,
    )
    [sample] = log.samples or []
    scores = sample.scores or {}
    assert sample.limit is not None and sample.limit.type == "token"
    assert scores["choice_accuracy"].reason == scores["reading_stats"].reason == "limit"
    assert scores["limited"].value == {"limited": 1.0}


def test_rescoring_a_limited_log_keeps_it_unscored(tmp_path: Path) -> None:
    log = _run(tmp_path, token_limit=3000)
    rescored = score(log, booookscore_scorer(), action="overwrite")
    [sample] = rescored.samples or []
    assert (sample.scores or {})["booookscore"].reason == "limit"
