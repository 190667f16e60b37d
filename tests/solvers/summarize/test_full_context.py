"""The full-context baseline: one call, truncated by policy when the document is too long."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model

from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.solvers import full_context
from longform_evals.solvers.settings import SummarySettings
from longform_evals.text import count_tokens
from solvers.summary_support import ARTIFACTS, FULL, words_asked

RunEval = Callable[..., Any]
BOOK = "\n".join(f"Line {i:03d}: Anna crossed the bridge to meet Tomas." for i in range(300))
RULES = [{"pattern": FULL, "response": "Anna crossed a bridge many times to meet Tomas."}]


@pytest.mark.parametrize(
    ("policy", "kept", "dropped"),
    [
        ("first", ["Line 000"], ["Line 150", "Line 299"]),
        ("last", ["Line 299"], ["Line 000", "Line 150"]),
        ("middle", ["Line 000", "Line 299", "[...]"], ["Line 150"]),
    ],
)
def test_truncation_policies(
    run_eval: RunEval, policy: str, kept: list[str], dropped: list[str]
) -> None:
    solver = full_context(
        SummarySettings(context_window=800, max_summary_tokens=100), truncation=policy
    )
    log, sample, model = run_eval(solver, RULES, BOOK)
    assert log.status == "success"
    (call,) = model.calls
    for text in kept:
        assert text in call.prompt
    for text in dropped:
        assert text not in call.prompt
    assert count_tokens(call.prompt) <= 800 - 100
    assert call.config.max_tokens == 100 and call.config.temperature == 0.5
    assert words_asked(call.prompt) == 65
    trunc = sample.metadata["truncation"]
    assert trunc["truncated"] and trunc["policy"] == policy
    assert trunc["kept_tokens"] + trunc["dropped_tokens"] == count_tokens(BOOK)
    assert sample.metadata["summary_stats"]["truncated_tokens"] == trunc["dropped_tokens"]
    assert sample.output.completion == RULES[0]["response"]
    assert [t["step"] for t in sample.metadata["summary_trace"]] == ["full"]


def test_short_document_is_not_truncated(run_eval: RunEval) -> None:
    log, sample, model = run_eval(full_context(), RULES, "Anna met Tomas on the bridge.")
    assert log.status == "success"
    assert sample.metadata["truncation"] == {
        "truncated": False,
        "kept_tokens": count_tokens("Anna met Tomas on the bridge."),
        "dropped_tokens": 0,
        "policy": "first",
    }
    assert "Anna met Tomas on the bridge." in model.calls[0].prompt


def test_document_falls_back_to_the_input(tmp_path: Path) -> None:
    model = get_model("scripted/in", rules=RULES, memoize=False)
    task = Task(
        dataset=MemoryDataset([Sample(input="The input is the book.")]), solver=full_context()
    )
    (log,) = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success"
    assert "The input is the book." in cast(ScriptedModelAPI, model.api).calls[0].prompt


def test_optional_artifact_removal(run_eval: RunEval) -> None:
    rules = [
        {"pattern": ARTIFACTS, "response": "Anna and Tomas met on the old bridge at dawn."},
        {
            "pattern": FULL,
            "response": "In this excerpt, Anna and Tomas met on the old bridge at dawn.",
        },
    ]
    log, sample, _ = run_eval(full_context(SummarySettings(remove_artifacts=True)), rules, BOOK)
    assert log.status == "success"
    assert sample.output.completion == "Anna and Tomas met on the old bridge at dawn."
    assert sample.metadata["summary_stats"]["artifact_calls"] == 1


def test_bad_configuration() -> None:
    with pytest.raises(ValueError, match="truncation"):
        full_context(truncation="start")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no room"):
        full_context(SummarySettings(context_window=500, max_summary_tokens=400))
