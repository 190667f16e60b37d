"""Artifact removal: the regex pre-check, the guard, and the stand-alone solver."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from longform_evals.solvers import hierarchical_merge, remove_artifacts
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.artifacts import has_artifacts
from solvers.summary_support import ARTIFACTS, CHUNK, make_book

RunEval = Callable[..., Any]
SMALL = SummarySettings(chunk_size=200, context_window=1200, max_summary_tokens=120)
DIRTY = "In this segment, Anna meets Tomas on the bridge. They agree to sail north together."
CLEAN = "Anna meets Tomas on the bridge. They agree to sail north together."


@pytest.mark.parametrize(
    "text",
    [
        "In this segment, Anna meets Tomas.",
        "In the current excerpt Anna leaves.",
        "Throughout these chunks the war goes on.",
        "The story so far has shown a feud.",
        "In the updated summary, Tomas is dead.",
        "This part of the story introduces Anna.",
        "The book opens with a table of contents.",
        "Copyright 1999 by the author. All rights reserved.",
        "The novel is dedicated to his mother.",
        "Chapter 1: The Bridge. Chapter 2: The Sea.",
        "The acknowledgments thank the editor.",
    ],
)
def test_has_artifacts_finds_them(text: str) -> None:
    assert has_artifacts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Anna meets Tomas on the bridge and they sail north.",
        "He took part in the race and won the silver cup.",
        "The summary of the trial was read aloud in court.",
        "She sectioned the orange and shared it.",
    ],
)
def test_has_artifacts_leaves_plain_narrative_alone(text: str) -> None:
    assert not has_artifacts(text)


def _pipeline(cleaned: str, summary: str = DIRTY) -> tuple[list[Any], list[dict[str, Any]]]:
    solver = [hierarchical_merge(SMALL), remove_artifacts()]
    rules = [{"pattern": ARTIFACTS, "response": cleaned}, {"pattern": CHUNK, "response": summary}]
    return solver, rules


def test_solver_cleans_and_continues_the_trace(run_eval: RunEval) -> None:
    solver, rules = _pipeline(CLEAN)
    log, sample, model = run_eval(solver, rules, make_book(1, 2))
    assert log.status == "success"
    assert sample.output.completion == sample.metadata["summary"] == CLEAN
    assert sample.messages[-1].text == CLEAN
    stats = sample.metadata["summary_stats"]
    assert stats["calls"] == len(model.calls) == 2
    assert (stats["artifact_calls"], stats["artifact_skips"], stats["artifact_rejects"]) == (
        1,
        0,
        0,
    )
    assert stats["chunks"] == 1  # the strategy's counters are kept
    steps = [t["step"] for t in sample.metadata["summary_trace"]]
    assert steps == ["chunk", "artifacts"]
    assert sample.metadata["summary_strategy"] == "hierarchical_merge"
    (call,) = [c for c in model.calls if "Summary to clean:" in c.prompt]
    assert DIRTY in call.prompt


def test_clean_summary_skips_the_call(run_eval: RunEval) -> None:
    solver, rules = _pipeline("unused", summary=CLEAN)
    log, sample, model = run_eval(solver, rules, make_book(1, 2))
    assert log.status == "success"
    assert sample.output.completion == CLEAN
    stats = sample.metadata["summary_stats"]
    assert (stats["artifact_calls"], stats["artifact_skips"]) == (0, 1)
    assert len(model.calls) == 1


@pytest.mark.parametrize("cleaned", ["", "Tomas."])
def test_guard_keeps_the_original_when_too_much_is_removed(run_eval: RunEval, cleaned: str) -> None:
    solver, rules = _pipeline(cleaned)
    log, sample, _ = run_eval(solver, rules, make_book(1, 2))
    assert log.status == "success"
    assert sample.output.completion == DIRTY
    assert sample.metadata["summary_stats"]["artifact_rejects"] == 1
    last = sample.metadata["summary_trace"][-1]
    assert last["step"] == "artifacts" and not last["accepted"] and last["text"] == DIRTY


def test_solver_without_a_summary_is_an_error(run_eval: RunEval) -> None:
    log, _, _ = run_eval(remove_artifacts(), [], "some book", sample_id="no-summary")
    assert log.status == "error"
    assert log.error is not None and "no-summary" in log.error.message
