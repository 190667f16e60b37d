"""Incremental updating end to end: updates, compression, artifact removal."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from longform_evals.solvers import incremental_update
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.incremental import growth_target
from longform_evals.text import chunk_text
from solvers.summary_support import ARTIFACTS, COMPRESS, INIT, UPDATE, make_book, words_asked

RunEval = Callable[..., Any]
SMALL = SummarySettings(chunk_size=200, context_window=1500, max_summary_tokens=120)
BOOK = make_book(12)
N_CHUNKS = len(chunk_text(BOOK, SMALL.chunk_size))


def _words(label: str, n: int) -> str:
    """Exactly ``n`` words, starting with ``label`` and ending with a full stop."""
    head = label.split()
    return " ".join(head + ["word"] * (n - len(head) - 1) + ["end."])


def _update(long_at: set[int]) -> Callable[[str, int], str]:
    """Updates of 20 words, except 150 words (over 120 tokens) at the given call indices."""

    def respond(text: str, k: int) -> str:
        return _words(f"In this segment update{k}", 150 if k in long_at else 20)

    return respond


def _clean(text: str, k: int) -> str:
    """Delete the artifact phrase from the summary quoted in the cleaning prompt."""
    summary = text.split('Summary to clean:\n"""\n')[1].split('\n"""')[0]
    return summary.replace("In this segment ", "")


def _rules(long_at: set[int], compress: Any = None) -> list[dict[str, Any]]:
    return [
        {"pattern": ARTIFACTS, "response": _clean},
        {"pattern": COMPRESS, "response": compress or _words("compressed", 15)},
        {"pattern": INIT, "response": _words("init", 20)},
        {"pattern": UPDATE, "response": _update(long_at)},
    ]


def test_growth_target() -> None:
    assert [growth_target(585, j, 4) for j in range(4)] == [146, 292, 439, 585]
    assert growth_target(585, 0, 100) == 50  # floor
    assert growth_target(30, 0, 100) == 30  # never above the limit
    assert growth_target(585, 0, 1) == 585


def test_end_to_end_with_one_compression(run_eval: RunEval) -> None:
    assert N_CHUNKS >= 4
    log, sample, model = run_eval(incremental_update(SMALL), _rules({1}), BOOK)
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert stats["chunks"] == N_CHUNKS and stats["updates"] == N_CHUNKS - 1
    assert stats["compressions"] == 1
    assert stats["artifact_calls"] == 1
    assert stats["calls"] == len(model.calls) == N_CHUNKS + 1 + 1
    steps = [(t["step"], t["index"]) for t in sample.metadata["summary_trace"]]
    assert steps[:4] == [("chunk", 0), ("update", 1), ("update", 2), ("compress", 2)]
    assert steps[-1] == ("artifacts", 0)
    # compression asks for the share of the limit read so far, at temperature 1
    (compress_call,) = [c for c in model.calls if "Summary to shorten" in c.prompt]
    assert "(150 words now)" in compress_call.prompt
    assert words_asked(compress_call.prompt) == growth_target(78, 2, N_CHUNKS)
    assert compress_call.config.temperature == 1.0
    # the next update continues from the compressed summary
    after = [c for c in model.calls if "Next passage of the story:" in c.prompt][2]
    assert "compressed word" in after.prompt and "update1" not in after.prompt
    # updates ask for a word count growing with the share read
    updates = [c for c in model.calls if "Next passage of the story:" in c.prompt]
    asked = [words_asked(c.prompt) for c in updates]
    assert asked == [growth_target(78, j, N_CHUNKS) for j in range(1, N_CHUNKS)]
    last_update = sample.metadata["summary_trace"][-2]["text"]
    assert last_update.startswith("In this segment update")
    assert sample.output.completion == last_update.replace("In this segment ", "")
    assert sample.metadata["summary"] == sample.output.completion


def test_every_long_update_is_compressed(run_eval: RunEval) -> None:
    log, sample, _ = run_eval(incremental_update(SMALL), _rules({0, 2, 3}), BOOK)
    assert log.status == "success"
    assert sample.metadata["summary_stats"]["compressions"] == 3


def test_compression_is_retried_until_short_enough(run_eval: RunEval) -> None:
    compress = [_words("still long", 100), _words("compressed", 15)]
    rules = _rules({1}, compress)
    rules[1]["exhausted"] = "repeat_last"
    log, sample, _ = run_eval(incremental_update(SMALL), rules, BOOK)
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert stats["compressions"] == 1 and stats["retries"] == 1
    (entry,) = [t for t in sample.metadata["summary_trace"] if t["step"] == "compress"]
    assert entry["tries"] == 2 and entry["accepted"] and entry["problems"] == [["over_limit"]]


def test_unfinished_update_is_regenerated(run_eval: RunEval) -> None:
    rules = _rules(set())
    rules[3] = {
        "pattern": UPDATE,
        "response": ["cut off in the", _words("update", 20)],
        "exhausted": "repeat_last",
    }
    log, sample, _ = run_eval(
        incremental_update(replace(SMALL, remove_artifacts=False)), rules, BOOK
    )
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert stats["retries"] == 1 and stats["forced_accepts"] == 0
    assert "artifact_calls" not in stats
    assert sample.metadata["summary_trace"][1]["tries"] == 2


def test_single_chunk(run_eval: RunEval) -> None:
    log, sample, model = run_eval(incremental_update(SMALL), _rules(set()), make_book(1, 2))
    assert log.status == "success"
    stats = sample.metadata["summary_stats"]
    assert (stats["chunks"], stats["updates"], stats["compressions"]) == (1, 0, 0)
    assert stats["artifact_skips"] == 1 and len(model.calls) == 1
    assert sample.output.completion.startswith("init")


def test_impossible_configuration_fails_early() -> None:
    with pytest.raises(ValueError, match="context_window"):
        incremental_update(
            SummarySettings(chunk_size=1000, context_window=2000, max_summary_tokens=400)
        )
