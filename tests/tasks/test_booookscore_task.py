"""The booookscore task end to end with a scripted model: every strategy, score_only, re-scoring."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from helpers import needs_smollm2
from longform_evals.data.books import DataError, bundled_books_dir, load_books, load_summaries
from longform_evals.tasks.booookscore import booookscore

SUMMARY = (
    "Ines Calloway, an insurance assessor, studies a frozen orchard. She finds a faulty sensor."
)
JUDGE_OK = {"pattern": "Sentence to judge", "response": "No confusion."}


def _model(rules: list[dict[str, Any]], name: str = "scripted/books") -> Any:
    return get_model(name, rules=rules, default_response=SUMMARY, memoize=False)


def _value(log: EvalLog, scorer: str = "booookscore") -> dict[str, float]:
    assert log.samples and log.samples[0].scores
    value = log.samples[0].scores[scorer].value
    assert isinstance(value, dict)
    return value  # type: ignore[return-value]


def test_bundled_books_are_long_enough_for_two_merge_levels() -> None:
    from longform_evals.text import chunk_text

    books = load_books()
    assert len(books) >= 2
    for sample in books:
        text = sample.metadata["document"]  # type: ignore[index]
        assert len(text.split()) >= 4000
        assert len(chunk_text(text, 512)) >= 10


@pytest.mark.parametrize("strategy", ["hierarchical", "incremental", "full"])
def test_every_strategy_end_to_end(tmp_path: Path, strategy: str) -> None:
    book = bundled_books_dir() / "the_frost_hold.txt"
    task = booookscore(strategy=strategy, data=str(book), chunk_size=512, judge_mode="sentence")
    [log] = inspect_eval(task, model=_model([JUDGE_OK]), log_dir=str(tmp_path))
    assert log.status == "success", log.error
    value = _value(log)
    assert value["booookscore"] == 100.0 and value["judge_calls"] == 2
    assert log.samples
    meta = log.samples[0].metadata
    assert meta["summary"] == SUMMARY
    assert meta["summary_trace"]
    stats = _value(log, "summary_statistics")
    assert stats["summary_words"] == len(SUMMARY.split())
    assert 0 <= stats["novel_trigrams_pct"] <= 100


def test_hierarchical_on_a_book_builds_several_levels(tmp_path: Path) -> None:
    book = bundled_books_dir() / "the_frost_hold.txt"
    task = booookscore(data=str(book), chunk_size=512, context_window=1400, max_summary_tokens=300)
    [log] = inspect_eval(task, model=_model([JUDGE_OK]), log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert log.samples
    levels = {e["level"] for e in log.samples[0].metadata["summary_trace"]}
    assert len(levels) >= 2


def test_book_shorter_than_one_chunk(tmp_path: Path) -> None:
    book = tmp_path / "tiny.txt"
    book.write_text("Title: Tiny\n\nA fox found a bell. It rang all night.\n")
    [log] = inspect_eval(
        booookscore(data=str(book), judge_mode="sentence"),
        model=_model([JUDGE_OK]),
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert _value(log)["booookscore"] == 100.0


def test_a_judge_that_never_answers_in_format(tmp_path: Path) -> None:
    rules = [{"pattern": "could not be read|Sentence to judge", "response": "Hmm, hard to say."}]
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "a", "summary": SUMMARY}) + "\n")
    task = booookscore(score_only=True, data=str(path), judge_mode="sentence")
    [log] = inspect_eval(task, model=_model(rules), log_dir=str(tmp_path))
    assert log.status == "success", log.error
    value = _value(log)
    assert math.isnan(value["booookscore"])
    assert value["parse_failure_rate"] == 1.0 and value["judge_calls"] == 2 * 3


def test_score_only_reuses_cached_verdicts_without_new_calls(tmp_path: Path) -> None:
    flag_first = [
        {
            "pattern": "Sentence to judge:\n<sentence>\nInes",
            "response": "Questions: Why is she there?\nTypes: causal_omission",
        },
        JUDGE_OK,
    ]
    book = bundled_books_dir() / "the_frost_hold.txt"
    task = booookscore(strategy="full", data=str(book), judge_mode="sentence")
    [first] = inspect_eval(task, model=_model(flag_first, "scripted/cached"), log_dir=str(tmp_path))
    assert first.status == "success", first.error
    assert first.samples
    verdicts = first.samples[0].scores["booookscore"].metadata["sentences"]  # type: ignore[index]

    path = tmp_path / "summaries.jsonl"
    path.write_text(json.dumps({"id": "frost", "summary": SUMMARY}) + "\n")
    # The same judge (same name and rules) scores from its cache; a judge with other
    # rules under the same name would not (tests/models/test_identity.py).
    rescore = booookscore(score_only=True, data=str(path), judge_mode="sentence")
    [second] = inspect_eval(
        rescore, model=_model(flag_first, "scripted/cached"), log_dir=str(tmp_path)
    )
    assert second.status == "success", second.error
    assert second.samples
    again = second.samples[0].scores["booookscore"].metadata["sentences"]  # type: ignore[index]
    assert [(v["confused"], v["types"]) for v in again] == [
        (v["confused"], v["types"]) for v in verdicts
    ]
    events = [e for e in second.samples[0].events if isinstance(e, ModelEvent)]
    assert events and all(e.cache == "read" for e in events)


def test_loaders(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("Plain text with no title line.\n")
    (tmp_path / "a.txt").write_text("Title: The A Book\n\nOnce upon a time.\n")
    books = load_books(tmp_path)
    assert [s.id for s in books] == ["a", "b"]
    assert books[0].metadata == {
        "document": "Once upon a time.\n",
        "title": "The A Book",
        "source": str(tmp_path / "a.txt"),
    }
    assert books[1].metadata["title"] == "b"  # type: ignore[index]
    jsonl = tmp_path / "books.jsonl"
    jsonl.write_text(json.dumps({"id": 7, "text": "Some story."}) + "\n\n")
    [only] = load_books(jsonl)
    assert only.id == "7" and only.metadata["title"] == "7"  # type: ignore[index]


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("Title: Empty\n\n   \n", ".txt", "is empty"),
        ('{"id": "x"}\n', ".jsonl", "missing or empty field 'text'"),
        ("{not json\n", ".jsonl", "not valid JSON"),
        ("\n\n", ".jsonl", "holds no books"),
        ("x", ".csv", "unsupported book data"),
    ],
)
def test_bad_book_data_names_the_problem(
    tmp_path: Path, content: str, suffix: str, message: str
) -> None:
    path = tmp_path / f"data{suffix}"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        load_books(path)


def test_bad_summary_data(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "a"}) + "\n")
    with pytest.raises(DataError, match=r"s.jsonl:1: missing field 'summary'"):
        load_summaries(path)
    with pytest.raises(ValueError, match="score_only needs"):
        booookscore(score_only=True)


@pytest.mark.slow
@needs_smollm2
def test_booookscore_runs_on_a_real_local_model(tmp_path: Path) -> None:
    book = tmp_path / "fox.txt"
    paragraphs = [
        "Mara, a fox who lived under the old mill, found a brass bell in the river.",
        "She carried it to the owl Tobin, who told her it belonged to the ferryman.",
        "The ferryman had lost it in a storm, and without it he could not warn the boats.",
        "Mara returned the bell, and that night the boats crossed safely in the fog.",
    ]
    book.write_text("Title: The Bell\n\n" + "\n\n".join(paragraphs) + "\n")
    task = booookscore(strategy="hierarchical", data=str(book), max_summary_tokens=120)
    [log] = inspect_eval(task, model="gguf/smollm2-135m", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert log.samples
    score = log.samples[0].scores["booookscore"]  # type: ignore[index]
    assert score.metadata["mode"] == "probe"  # type: ignore[index]
    assert score.metadata["calibration"] == "uncalibrated (0.5)"  # type: ignore[index]
    value = _value(log)
    assert value["judge_calls"] >= 2
    events = [e for e in log.samples[0].events if isinstance(e, ModelEvent)]
    assert all(e.output.usage is not None for e in events)
