"""The booksum task end to end on the bundled fixture with a scripted summarizer."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from helpers import figures
from longform_evals.data.booksum import bundled_booksum_fixture
from longform_evals.tasks.narrative import booksum

SUMMARY = "Mara found the lighthouse key. She kept the lamp burning through the storm."


@pytest.mark.parametrize("strategy", ["full", "nexus_sum"])
def test_booksum_reports_rouge_length_and_statistics(tmp_path: Path, strategy: str) -> None:
    pytest.importorskip("bert_score")
    task = booksum(data=str(bundled_booksum_fixture()), strategy=strategy, target_words=12)
    model = get_model("scripted/sum", rules=[{"pattern": ".", "response": SUMMARY}], memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = figures(log)
    assert {"rougeL/mean", "bertscore_f1/mean", "within/mean", "length_ratio/mean"} <= set(metrics)
    assert metrics["within/mean"] == 1.0  # 13 words against a target of 12 (±10 %)


def test_booksum_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        booksum(data=str(bundled_booksum_fixture()), strategy="skim")
    with pytest.raises(ValueError, match="target_words"):
        booksum(data=str(bundled_booksum_fixture()), target_words=0)
