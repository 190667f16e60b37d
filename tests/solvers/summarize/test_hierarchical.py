"""Hierarchical merging end to end against the scripted model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from longform_evals.solvers import hierarchical_merge
from longform_evals.solvers.settings import SummarySettings
from longform_evals.text import chunk_text
from solvers.summary_support import CHUNK, MERGE, MERGE_CONTEXT, make_book, obedient, words_asked

RunEval = Callable[..., Any]
SMALL = SummarySettings(chunk_size=200, context_window=1200, max_summary_tokens=120)


def _rules(chunk_words: int = 20) -> list[dict[str, Any]]:
    return [
        {"pattern": CHUNK, "response": obedient("chunk", chunk_words)},
        {"pattern": MERGE_CONTEXT, "response": obedient("ctxmerge", 30)},
        {"pattern": MERGE, "response": obedient("merge", 30)},
    ]


def test_end_to_end_builds_levels_and_logs_the_trace(run_eval: RunEval) -> None:
    book = make_book(60)
    n_chunks = len(chunk_text(book, SMALL.chunk_size))
    log, sample, model = run_eval(hierarchical_merge(SMALL), _rules(), book)
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    trace = sample.metadata["summary_trace"]
    assert stats["chunks"] == n_chunks > 20
    assert stats["levels"] >= 3  # the 20-word chunk summaries do not fit in one merge
    assert stats["calls"] == len(model.calls) == n_chunks + stats["merges"]
    assert stats["retries"] == stats["forced_accepts"] == 0
    # every chunk summary, in order, then merges level by level, ending in one summary
    chunks = [t for t in trace if t["step"] == "chunk"]
    assert [t["index"] for t in chunks] == list(range(n_chunks))
    merges = [t for t in trace if t["step"] == "merge"]
    levels = [t["level"] for t in merges]
    assert levels == sorted(levels) and levels[0] == 1 and levels[-1] == stats["levels"] - 1
    assert levels.count(levels[-1]) == 1 and levels.count(1) > 1
    assert set(trace[0]) >= {"step", "level", "index", "tokens", "words", "tries", "accepted"}
    assert all(t["accepted"] and t["tries"] == 1 for t in trace)
    # the first merge of a level has no earlier context; later ones do
    n_levels_merged = stats["levels"] - 1
    with_context = [c for c in model.calls if "(earlier context):" in c.prompt]
    assert len(with_context) == stats["merges"] - n_levels_merged
    # chunk summaries were limited to a share of the merge budget
    first_chunk_call = next(c for c in model.calls if "Passage from the story:" in c.prompt)
    assert first_chunk_call.config.max_tokens == stats["chunk_summary_tokens"] < 120
    assert first_chunk_call.config.temperature == 0.5
    # the final summary is the output, the last assistant message and in metadata
    summary = sample.metadata["summary"]
    assert summary == merges[-1]["text"] == sample.output.completion
    assert sample.messages[-1].role == "assistant" and sample.messages[-1].text == summary
    # and all of it survives the round trip through the log file
    on_disk = read_eval_log(log.location)
    assert on_disk.samples is not None
    assert on_disk.samples[0].metadata["summary_trace"] == trace
    assert on_disk.samples[0].metadata["summary_stats"] == stats
    assert on_disk.samples[0].metadata["summary_strategy"] == "hierarchical_merge"
    infos = [e for e in on_disk.samples[0].events if e.event == "info" and e.source == "summary"]
    assert len(infos) == 1 and infos[0].data == {"strategy": "hierarchical_merge", "stats": stats}


def test_single_chunk_needs_no_merge(run_eval: RunEval) -> None:
    log, sample, model = run_eval(hierarchical_merge(SMALL), _rules(), make_book(1, 2))
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert (stats["chunks"], stats["levels"], stats["merges"], len(model.calls)) == (1, 1, 0, 1)
    assert sample.output.completion.startswith("chunk0")


@pytest.mark.parametrize(
    "bad",
    [
        " ".join(["far too long"] * 40) + ".",  # over the word limit
        "an unfinished summary that trails off and",  # no closing punctuation
        "",  # empty
    ],
)
def test_a_bad_summary_is_regenerated_with_fewer_words(run_eval: RunEval, bad: str) -> None:
    rules = [{"pattern": CHUNK, "response": [bad, "A good summary."], "exhausted": "repeat_last"}]
    log, sample, model = run_eval(hierarchical_merge(SMALL), rules, make_book(1, 2))
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert (stats["calls"], stats["retries"], stats["forced_accepts"]) == (2, 1, 0)
    (entry,) = sample.metadata["summary_trace"]
    assert entry["tries"] == 2 and entry["accepted"] and len(entry["problems"]) == 1
    assert sample.output.completion == "A good summary."
    first, second = (words_asked(c.prompt) for c in model.calls)
    assert first == 78 and second == round(78 * 0.9)  # 0.65 * 120 tokens, then 10 % less


def test_best_candidate_is_kept_after_the_last_try(run_eval: RunEval) -> None:
    tries = [
        " ".join(["long"] * 100) + ".",
        " ".join(["longish"] * 90) + ".",
        "cut off here",
    ]
    rules = [{"pattern": CHUNK, "response": tries, "exhausted": "repeat_last"}]
    log, sample, _ = run_eval(hierarchical_merge(SMALL, max_tries=3), rules, make_book(1, 2))
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert (stats["calls"], stats["retries"], stats["forced_accepts"]) == (3, 2, 1)
    (entry,) = sample.metadata["summary_trace"]
    assert entry["tries"] == 3 and not entry["accepted"]
    assert entry["problems"] == [["over_limit"], ["over_limit"], ["unfinished"]]
    assert entry["words"] == 90  # the shortest finished candidate


def test_always_empty_fails_the_sample(run_eval: RunEval) -> None:
    rules = [{"pattern": CHUNK, "response": ""}]
    log, _, _ = run_eval(hierarchical_merge(SMALL, max_tries=2), rules, make_book(1, 2))
    assert log.status == "error"
    assert log.error is not None and "empty summary in all 2 tries" in log.error.message


def test_empty_document_is_an_error_naming_the_sample(run_eval: RunEval) -> None:
    log, _, _ = run_eval(hierarchical_merge(SMALL), _rules(), "  \n ", sample_id="blank-7")
    assert log.status == "error"
    assert log.error is not None
    assert "blank-7" in log.error.message and "empty" in log.error.message


def test_impossible_configuration_fails_early() -> None:
    with pytest.raises(ValueError, match="context_window"):
        hierarchical_merge(SummarySettings(chunk_size=2048, context_window=2048))
    with pytest.raises(ValueError, match="fewer than two summaries"):
        hierarchical_merge(
            SummarySettings(chunk_size=100, context_window=1500, max_summary_tokens=500)
        )
