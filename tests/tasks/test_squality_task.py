"""The squality task end to end on the bundled fixture with a scripted summarizer."""

from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from helpers import figures
from longform_evals.data.jsonl import DataError
from longform_evals.data.squality import bundled_squality_fixture, load_squality
from longform_evals.models.scripted import ScriptedCall
from longform_evals.tasks.narrative import booksum, squality

FIXTURE = str(bundled_squality_fixture())
QUESTIONS = [(s.metadata or {})["question"] for s in load_squality(FIXTURE)]
SUMMARY = "Wenna kept the harbour light burning."

# Unique text of the templates that are not focused, and of the focused steps of interest.
DIALOGUE = "The same scenes as third-person prose:"
ARTIFACTS = "Summary to clean:"
MERGE = "Summaries of consecutive parts of the story, in order:"
UPDATE = "Next passage of the story to add:"
NEXUS_CHUNK = "Stretch of the narrative to summarize:"
NEXUS_COMPRESS = "Piece of the summary to shorten ("


def run(
    task: Any, tmp_path: Path, rules: list[dict[str, Any]] | None = None
) -> tuple[EvalLog, list[ScriptedCall]]:
    model = get_model(
        "scripted/squality", rules=rules or [], default_response=SUMMARY, memoize=False
    )
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    return log, list(getattr(model.api, "calls", []))


@pytest.mark.parametrize("strategy", ["full", "hierarchical", "incremental", "nexus_sum"])
def test_every_strategy_answers_each_question(tmp_path: Path, strategy: str) -> None:
    pytest.importorskip("bert_score")
    task = squality(data=FIXTURE, strategy=strategy, target_words=6, chunk_size=300)
    log, calls = run(task, tmp_path)
    assert log.status == "success", log.error
    metrics = figures(log)
    wanted = {"rouge1/mean", "rougeL/mean", "bertscore_f1/mean", "within/mean"}
    wanted.add("summary_words/mean")
    assert wanted <= set(metrics)
    assert metrics["within/mean"] == 1.0  # 6 words against a target of 6
    assert log.samples is not None and len(log.samples) == len(QUESTIONS) == 2
    focused = [c.prompt for c in calls if DIALOGUE not in c.prompt and ARTIFACTS not in c.prompt]
    assert focused
    for question in QUESTIONS:
        carrying = [p for p in focused if question in p]
        assert carrying, question
        for prompt in carrying:
            # the story text (or the summaries of it) is quoted before the question
            assert prompt.index(question) > prompt.rindex('"""')
    assert all(sum(q in p for q in QUESTIONS) == 1 for p in focused)
    if strategy == "hierarchical":
        assert any(MERGE in p for p in focused)
    if strategy == "incremental":
        assert any(UPDATE in p for p in focused)


def test_without_focus_no_prompt_carries_the_question(tmp_path: Path) -> None:
    pytest.importorskip("bert_score")
    log, calls = run(squality(data=FIXTURE, strategy="full", focus=False), tmp_path)
    assert log.status == "success", log.error
    assert calls and not any(q in c.prompt for c in calls for q in QUESTIONS)


def nexus_rules() -> list[dict[str, Any]]:
    long_summary = " ".join(["Wenna watched the sea."] * 10)  # 40 words per chunk
    return [
        {"pattern": NEXUS_CHUNK.replace("(", r"\("), "response": long_summary},
        {"pattern": r"Piece of the summary to shorten \(", "response": "Wenna kept watch."},
    ]


@pytest.mark.parametrize(
    ("switches", "dialogue", "compressed"),
    [({}, True, True), ({"preprocess": False}, False, True), ({"compress": False}, True, False)],
    ids=["both", "no preprocessor", "no compressor"],
)
def test_nexus_switches_change_what_is_called(
    tmp_path: Path, switches: dict[str, bool], dialogue: bool, compressed: bool
) -> None:
    pytest.importorskip("bert_score")
    task = squality(data=FIXTURE, strategy="nexus_sum", target_words=10, **switches)
    log, calls = run(task, tmp_path, nexus_rules())
    assert log.status == "success", log.error
    assert any(DIALOGUE in c.prompt for c in calls) is dialogue  # the fixture has dialogue
    assert any(NEXUS_COMPRESS in c.prompt for c in calls) is compressed
    assert log.samples is not None
    for sample in log.samples:
        stats = sample.metadata["summary_stats"]
        assert (stats["dialogue_groups"] > 0) is dialogue
        assert (stats["compress_calls"] > 0) is compressed
        assert (len(sample.metadata["summary"].split()) <= 10) is compressed


def test_booksum_takes_the_nexus_switches(tmp_path: Path) -> None:
    pytest.importorskip("bert_score")
    from longform_evals.data.booksum import bundled_booksum_fixture

    task = booksum(
        data=str(bundled_booksum_fixture()), strategy="nexus_sum", target_words=10, compress=False
    )
    log, calls = run(task, tmp_path, nexus_rules())
    assert log.status == "success", log.error
    assert calls and not any(NEXUS_COMPRESS in c.prompt for c in calls)


def test_switches_of_nexus_sum_are_refused_for_other_strategies() -> None:
    with pytest.raises(ValueError, match="compress=False, an option of nexus_sum"):
        squality(data=FIXTURE, strategy="full", compress=False)
    with pytest.raises(ValueError, match="unknown strategy"):
        squality(data=FIXTURE, strategy="skim")
    with pytest.raises(ValueError, match="target_words"):
        squality(data=FIXTURE, target_words=0)


def test_a_question_without_references_is_refused_at_load(tmp_path: Path) -> None:
    record = json.loads(Path(FIXTURE).read_text(encoding="utf-8").splitlines()[0])
    record["questions"][1]["responses"] = []
    path = tmp_path / "empty_refs.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"sample 'fixture-corran:1' has no reference summaries"):
        squality(data=str(path))


def test_registered_and_reexported() -> None:
    from longform_evals import _registry

    path = Path(__file__).resolve().parents[2] / "tasks" / "squality.py"
    spec = importlib.util.spec_from_file_location("root_tasks_squality", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert _registry.squality is squality
    # the root file runs the package task under its own name (tests/tasks/test_task_files.py)
    assert inspect.signature(module.squality) == inspect.signature(squality)
