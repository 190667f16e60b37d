"""Question-focused summaries: the focused templates, and the question in every solver's calls."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.solver import Solver

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from longform_evals import prompts as prompts_package
from longform_evals.models.scripted import ScriptedCall
from longform_evals.prompts import PromptError, load_prompt
from longform_evals.solvers import (
    full_context,
    hierarchical_merge,
    incremental_update,
    nexus_compress,
    nexus_sum,
    nexus_summarize,
)
from longform_evals.solvers.common.question_focus import FOCUSED, QUESTION_RESERVE_TOKENS, Focus
from longform_evals.solvers.nexus.pipeline import NexusOptions
from longform_evals.solvers.settings import SummarySettings
from longform_evals.text import count_tokens
from solvers.summary_support import make_book

QUOTED_FIELDS = {"text", "summary", "summaries", "context"}
PROMPTS = Path(prompts_package.__file__).resolve().parent
# every packaged focused template, found where the loader looks for them
PAIRS = sorted((path.parent.parent.name, path.stem) for path in PROMPTS.glob(f"*/{FOCUSED}/*.txt"))
QUESTION = "Why does Anna keep crossing the bridge?"


@pytest.mark.parametrize(("method", "name"), PAIRS)
def test_focused_template_adds_the_question_after_the_quoted_texts(method: str, name: str) -> None:
    plain = load_prompt(method, name)
    focused = load_prompt(f"{method}/{FOCUSED}", name)
    assert focused.fields == plain.fields | {"question"}
    text = focused.text
    question = text.index("{question}")
    assert question > max(text.index("{" + f + "}") for f in focused.fields & QUOTED_FIELDS)
    assert question > text.rindex('"""')
    if "word_limit" in focused.fields:
        assert text.rindex("{word_limit}") > question  # the retry-dependent part stays last


def test_planning_reserves_room_for_a_question() -> None:
    template = load_prompt(f"summarize/{FOCUSED}", "full")
    planned = Focus("question").planning(template)
    assert planned.fields == {"text", "word_limit"}
    padded = count_tokens(planned.render(text="", word_limit=10))
    bare = count_tokens(template.render(text="", word_limit=10, question=""))
    assert padded - bare >= QUESTION_RESERVE_TOKENS
    assert Focus(None).planning(load_prompt("summarize", "full")).fields == {"text", "word_limit"}


def test_focused_override_must_keep_the_question(tmp_path: Path) -> None:
    folder = tmp_path / "summarize" / FOCUSED
    folder.mkdir(parents=True)
    (folder / "full.txt").write_text("{text} in {word_limit} words\n")
    with pytest.raises(PromptError, match="lacks field"):
        full_context(SummarySettings(prompts_dir=str(tmp_path), question_key="question"))


def test_packaged_focused_templates_are_found() -> None:
    assert {method for method, _ in PAIRS} >= {"summarize", "nexus_sum"}
    assert ("summarize", "chunk") in PAIRS


@pytest.mark.parametrize("question_key", [None, "question"])
def test_an_override_folder_of_the_old_layout_is_refused(
    tmp_path: Path, question_key: str | None
) -> None:
    # a `summarize_focused/` folder would otherwise be skipped without a word
    old = tmp_path / "summarize_focused"
    old.mkdir()
    (old / "full.txt").write_text("{text} {question} in {word_limit} words\n")
    settings = SummarySettings(prompts_dir=str(tmp_path), question_key=question_key)
    with pytest.raises(PromptError, match=r"summarize_focused.*summarize/focused"):
        full_context(settings)


@pytest.mark.parametrize("method", ["summarize/focused/extra", "../summarize", "summarize/"])
def test_a_method_is_at_most_a_folder_and_a_variant(method: str) -> None:
    with pytest.raises(PromptError, match="invalid prompt method"):
        load_prompt(method, "full")


def run(
    solver: Solver | list[Solver],
    samples: list[Sample],
    tmp_path: Path,
    rules: list[dict[str, Any]] | None = None,
) -> tuple[EvalLog, list[ScriptedCall]]:
    model = get_model(
        "scripted/focus",
        rules=rules or [],
        default_response="Anna crossed the bridge to meet Tomas.",
        memoize=False,
    )
    task = Task(dataset=MemoryDataset(samples), solver=solver)
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none")
    return log, list(getattr(model.api, "calls", []))


def sample(document: str, question: str | None = QUESTION, sample_id: str = "story:0") -> Sample:
    metadata: dict[str, Any] = {"document": document}
    if question is not None:
        metadata["question"] = question
    return Sample(id=sample_id, input=question or "Summarize.", metadata=metadata)


BOOK = make_book(12)  # 864 words


@pytest.mark.parametrize(
    ("solver", "steps"),
    [
        (full_context(SummarySettings(question_key="question")), {"full"}),
        (
            hierarchical_merge(
                SummarySettings(chunk_size=200, max_summary_tokens=120, question_key="question")
            ),
            {"chunk", "merge"},
        ),
        (
            incremental_update(
                SummarySettings(
                    chunk_size=200,
                    max_summary_tokens=120,
                    remove_artifacts=False,
                    question_key="question",
                )
            ),
            {"chunk", "update"},
        ),
        (
            nexus_sum(
                SummarySettings(target_words=5, question_key="question"),
                NexusOptions(scenes_per_chunk=1),
            ),
            {"chunk"},
        ),
    ],
    ids=["full", "hierarchical", "incremental", "nexus_sum"],
)
def test_every_call_carries_the_question_after_the_document(
    solver: Solver, steps: set[str], tmp_path: Path
) -> None:
    log, calls = run(solver, [sample(BOOK)], tmp_path)
    assert log.status == "success", log.error
    assert log.samples is not None
    trace = log.samples[0].metadata["summary_trace"]
    assert steps <= {entry["step"] for entry in trace}
    assert len(calls) == len(trace) > 0
    for call in calls:
        assert call.prompt.count(QUESTION) == 1, call.prompt[:200]
        # after the closing quotes of the last text the prompt quotes
        assert call.prompt.index(QUESTION) > call.prompt.rindex('"""')
    # the first call quotes the start of the document, before the question
    assert calls[0].prompt.index("In paragraph 0 sentence 0") < calls[0].prompt.index(QUESTION)


def test_questions_about_one_story_share_the_prefix_through_the_story(tmp_path: Path) -> None:
    samples = [
        sample(BOOK, QUESTION, "story:0"),
        sample(BOOK, "Who is Tomas?", "story:1"),
    ]
    log, calls = run(full_context(SummarySettings(question_key="question")), samples, tmp_path)
    assert log.status == "success", log.error
    first, second = (c.prompt for c in calls)
    end = first.index(BOOK) + len(BOOK)
    assert first[:end] == second[:end] and first != second


def test_nexus_stage_solvers_take_the_question(tmp_path: Path) -> None:
    solvers = [
        nexus_summarize(
            SummarySettings(target_words=900, question_key="question"),
            NexusOptions(scenes_per_chunk=1),
        ),
        nexus_compress(SummarySettings(target_words=5, question_key="question"), rewrite=True),
    ]
    log, calls = run(solvers, [sample(BOOK)], tmp_path)
    assert log.status == "success", log.error
    assert log.samples is not None
    steps = {e["step"] for e in log.samples[0].metadata["summary_trace"]}
    assert {"chunk", "compress", "rewrite"} <= steps
    assert calls and all(QUESTION in c.prompt for c in calls)


def test_plain_solvers_never_mention_a_question(tmp_path: Path) -> None:
    log, calls = run(full_context(), [sample(BOOK)], tmp_path)
    assert log.status == "success", log.error
    assert QUESTION not in calls[0].prompt


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (None, r"sample 'story:0': a question-focused summary needs the question"),
        ("   ", r"sample 'story:0': a question-focused summary needs the question"),
        (" ".join(["why"] * (QUESTION_RESERVE_TOKENS + 5)), r"sample 'story:0': the question has"),
    ],
    ids=["missing", "blank", "too long"],
)
def test_focus_without_a_usable_question_fails_the_sample(
    question: str | None, message: str, tmp_path: Path
) -> None:
    log, calls = run(
        nexus_sum(SummarySettings(target_words=900, question_key="question")),
        [sample(BOOK, question)],
        tmp_path,
    )
    assert log.status == "error"
    assert log.error is not None and re.search(message, log.error.message)
    assert calls == []
