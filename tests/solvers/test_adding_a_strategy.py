"""Adding a strategy is one module, one registry entry, its prompt folder and one test
(docs/architecture.md, "How to add a strategy"): a throwaway summary strategy and a throwaway
reading strategy, registered here, are offered by every consumer of the registry at once:
the Inspect tasks of their family, `longform run`'s plan check and dry-run estimate, and an
lm-eval wrapper model of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.solver import Generate, Solver, TaskState, solver

import longform_evals
from longform_evals.models.step_usage import step_usage
from longform_evals.prompts import load_prompt
from longform_evals.runs.catalogue import check_task_args
from longform_evals.runs.estimate import sample_cost
from longform_evals.solvers.common.recording import SummaryRun, Tries, document_of
from longform_evals.solvers.costs import Cost, calls
from longform_evals.solvers.reading.run import ReadingRun
from longform_evals.solvers.settings import ReadingSettings, SummarySettings
from longform_evals.solvers.strategies import Strategy, registered, strategy_names
from longform_evals.tasks.narrative import squality
from longform_evals.tasks.reading import quality

DATA = Path(longform_evals.__file__).resolve().parent / "data"
QUALITY = str(DATA / "reading" / "quality_fixture.jsonl")
SQUALITY = str(DATA / "narrative" / "squality_fixture.jsonl")


# --- the one module: a summary of the document's first paragraphs, in one call ---


@solver
def lead_summary(settings: SummarySettings | None = None, paragraphs: int = 1) -> Solver:
    """Summarize the first ``paragraphs`` paragraphs only (template ``lead/summarize``)."""
    chosen = settings or SummarySettings()
    template = load_prompt("lead", "summarize", chosen.prompts_dir)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = SummaryRun(state, "lead", "cl100k_base", (), chosen.cache)
        text = "\n\n".join(document_of(state).split("\n\n")[:paragraphs])
        outcome = await run.summarize(
            lambda words: template.render(text=text, word_limit=words),
            chosen.summary_tokens,
            Tries(chosen.temperature_or(0.5), 1),
            step="chunk",
        )
        run.record("chunk", 0, 0, outcome)
        run.finish(outcome.text)
        return state

    return solve


def lead_cost(docs: Any, per_doc: int, args: Any) -> Cost:
    return calls(1, 300, 100)


@solver
def first_words(settings: ReadingSettings | None = None, words: int = 40) -> Solver:
    """Answer from the first ``words`` words of the document."""
    chosen = settings or ReadingSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = ReadingRun(
            state,
            "first_words",
            temperature=chosen.temperature,
            answer_max_tokens=chosen.answer_max_tokens,
            prompts_dir=chosen.prompts_dir,
            cache=chosen.cache,
        )
        kept = " ".join(run.document.split()[:words])
        return await run.answer(kept, min(words, run.doc_words))

    return solve


def first_words_cost(docs: Any, per_doc: int, args: Any) -> Cost:
    return calls(1, 7, 3)


# --- the registry entries ---

LEAD = Strategy("summary", "lead", lead_summary, lead_cost, ("chunk_summary",), wrapper="lead")
FIRST_WORDS = Strategy(
    "reading", "first_words", first_words, first_words_cost, ("answer",), wrapper="first_words"
)


@pytest.fixture
def prompts(tmp_path: Path) -> str:
    """The strategy's prompt folder (a packaged one lives in `prompts/lead/`)."""
    folder = tmp_path / "prompts" / "lead"
    folder.mkdir(parents=True)
    (folder / "summarize.txt").write_text(
        "Summarize the opening below in at most {word_limit} words.\n\n{text}\n\nSummary:\n"
    )
    return str(tmp_path / "prompts")


@pytest.fixture
def added() -> Iterator[None]:
    with registered(LEAD), registered(FIRST_WORDS):
        yield
    assert "lead" not in strategy_names("summary")


def test_an_inspect_task_of_the_family_runs_it(added: None, prompts: str, tmp_path: Path) -> None:
    task = squality(data=SQUALITY, strategy="lead", prompts_dir=prompts)
    [log] = eval(
        task,
        model="scripted/x",
        model_args={"default_response": "Someone opens a door."},
        limit=1,
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and log.samples
    sample = log.samples[0]
    assert sample.metadata["summary"] == "Someone opens a door."
    assert sample.metadata["summary_strategy"] == "lead"
    assert set(step_usage(sample)) == {"chunk_summary"}
    [quality_log] = eval(
        quality(data=QUALITY, strategy="first_words", words=12),
        model="scripted/x",
        model_args={"default_response": "Answer: (A)"},
        limit=1,
        log_dir=str(tmp_path / "logs"),
    )
    assert quality_log.samples and quality_log.samples[0].metadata["reading"]["strategy"] == (
        "first_words"
    )
    assert quality_log.samples[0].metadata["reading"]["context_words_max"] == 12


def test_the_plan_check_and_the_estimate_use_its_entry(
    added: None, prompts: str, tmp_path: Path
) -> None:
    assert check_task_args("booksum", {"strategy": "lead"}, tmp_path)["strategy"] == "lead"
    assert check_task_args("quality", {"strategy": "first_words"}, tmp_path)
    [sample] = squality(data=SQUALITY, strategy="lead", prompts_dir=prompts).dataset[:1]
    assert sample_cost("squality", {"strategy": "lead"}, sample, 1) == calls(1, 300, 100)
    [question] = quality(data=QUALITY, strategy="first_words").dataset[:1]
    assert sample_cost("quality", {"strategy": "first_words"}, question, 1) == calls(1, 7, 3)


def test_an_unknown_strategy_is_an_error_everywhere(tmp_path: Path) -> None:
    [sample] = squality(data=SQUALITY).dataset[:1]
    with pytest.raises(ValueError, match="unknown strategy 'lead'"):
        sample_cost("squality", {"strategy": "lead"}, sample, 1)
    with pytest.raises(ValueError, match="unknown strategy 'lead'"):
        check_task_args("booksum", {"strategy": "lead"}, tmp_path)
    with pytest.raises(ValueError, match="unknown strategy 'lead'"):
        squality(data=SQUALITY, strategy="lead")


def test_lm_eval_gets_a_wrapper_model_for_it(added: None) -> None:
    pytest.importorskip("lm_eval")
    from lm_eval.api.registry import get_model as lm_eval_model

    from longform_evals.lmeval.wrappers import register_wrappers

    register_wrappers()
    lead = lm_eval_model("longform-lead")(inner="scripted/x")
    assert lead.strategy_for("booksum") == "lead"
    reader = lm_eval_model("longform-first_words")(inner="scripted/x", words=5)
    assert reader.strategy_for("quality") == "first_words"
    assert reader.strategy_args == {"words": 5}


def test_lm_eval_runs_it_through_its_wrapper(
    added: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("lm_eval")
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from longform_evals.lmeval import TASK_FOLDER
    from longform_evals.lmeval.wrappers import register_wrappers

    monkeypatch.setenv("LONGFORM_LMEVAL_LOG_DIR", str(tmp_path / "lm-eval-logs"))
    reader = register_wrappers()["longform-first_words"](
        inner="scripted/x", default_response="Answer: (A)", words=9
    )
    manager = TaskManager(
        include_path=str(TASK_FOLDER),
        include_defaults=False,
        metadata={"quality": {"data": QUALITY}},
    )
    results = simple_evaluate(
        model=reader, tasks=["longform_quality"], task_manager=manager, limit=2
    )
    assert results is not None
    row = results["results"]["longform_quality"]
    assert row["inner_calls,none"] == 1.0 and row["context_words_max,none"] == 9.0
