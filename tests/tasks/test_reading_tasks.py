"""The quality, narrativeqa and qmsum tasks end to end on the bundled fixtures, with a
scripted reader (and a scripted grader for the LLM raters)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from helpers import figures
from longform_evals.data.reading import reading_fixture
from longform_evals.solvers.reading.memory import clear_reading_cache
from longform_evals.tasks.reading import narrativeqa, qmsum, quality


def _first_tag(text: str, _: int) -> str:
    tags = re.findall(r"\n<(\d+)>", text.split("Passage:", 1)[1])
    return f"Break point: <{tags[0]}>"


READER = [
    {"pattern": r"Break point: <number>", "response": _first_tag},
    {"pattern": r"Shorten it to at most \d+ words\.", "response": "A short gist of this page."},
    {"pattern": r"Which pages would you like to read in full\?", "response": "[0]"},
    {"pattern": r"Answer: \(X\)", "response": "The text says so. Answer: (B)"},
    {"pattern": r"Be concise", "response": "They meet at the harbour."},
]
GRADER = [
    {"pattern": r"\(YES or NO\)", "response": "NO"},
    {"pattern": r"Yes, partially, or No", "response": "Yes, partially"},
]


def _run(task: Any, tmp_path: Path) -> EvalLog:
    clear_reading_cache()
    reader = get_model("scripted/reader", rules=READER, memoize=False)
    grader = get_model("scripted/grader", rules=GRADER, memoize=False)
    [log] = inspect_eval(task, model=reader, model_roles={"grader": grader}, log_dir=str(tmp_path))
    assert log.status == "success", log.error
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    return figures(log)


@pytest.mark.parametrize("strategy", ["read_agent_p", "gist_memory", "full", "bm25"])
def test_quality_reports_accuracy_and_reading_cost(tmp_path: Path, strategy: str) -> None:
    extra = {"k": 1} if strategy == "bm25" else {}  # the fixture articles have 2 pages
    task = quality(data=str(reading_fixture("quality")), strategy=strategy, **extra)
    log = _run(task, tmp_path)
    assert log.samples and len(log.samples) == 6
    metrics = _metrics(log)
    assert 0.0 <= metrics["correct/accuracy"] <= 1.0
    assert metrics["unparsed/mean"] == 0.0
    assert "compression_rate/mean" in metrics and "words_consumed/mean" in metrics
    reading = log.samples[0].metadata["reading"]
    assert reading["strategy"] == strategy
    if strategy == "full":
        assert metrics["compression_rate/mean"] == pytest.approx(0.0, abs=1e-9)
    else:
        assert metrics["compression_rate/mean"] > 0.0


def test_quality_hard_filter_and_bad_strategy(tmp_path: Path) -> None:
    task = quality(data=str(reading_fixture("quality")), hard_only=True, strategy="full")
    assert 0 < len(task.dataset) < 6
    with pytest.raises(ValueError, match="unknown reading strategy"):
        quality(data=str(reading_fixture("quality")), strategy="skim")
    with pytest.raises(ValueError, match="does not take max_pages") as refused:
        quality(data=str(reading_fixture("quality")), strategy="bm25", max_pages=2)
    # the message lists only what -T can set (BM25's k1 and b are not task parameters)
    takes = str(refused.value).split("it takes ")[1]
    assert "k" in takes.split(", ") and "k1" not in takes and " b" not in f" {takes}"


def test_narrativeqa_reports_llm_raters_and_rouge(tmp_path: Path) -> None:
    log = _run(narrativeqa(data=str(reading_fixture("narrativeqa")), strategy="full"), tmp_path)
    metrics = _metrics(log)
    # The grader says "not exact, partially right" to everything: LR-1 0, LR-2 1.
    assert metrics["lr1/mean"] == 0.0 and metrics["lr2/mean"] == 1.0
    assert 0.0 <= metrics["rougeL/mean"] <= 1.0


def test_qmsum_query_types(tmp_path: Path) -> None:
    path = str(reading_fixture("qmsum"))
    assert len(qmsum(data=path, query_types="specific").dataset) == 2
    log = _run(qmsum(data=path, query_types="general", strategy="read_agent_p"), tmp_path)
    assert log.samples and len(log.samples) == 1
    assert log.samples[0].metadata["query_type"] == "general"
