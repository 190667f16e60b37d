"""The dry run's estimates follow each strategy's shape, and match the calls a run makes."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval
from inspect_ai.dataset import Sample

from longform_evals.judges.registry import JudgeWork, judge_entry
from longform_evals.models.step_usage import step_usage
from longform_evals.runs.estimate import sample_cost
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.cards import task_card
from longform_evals.tasks.costs import (
    booookscore_judge_cost,
    coherence_mode,
    reading_cost,
    summary_cost,
)


def test_summary_strategies_scale_with_the_document() -> None:
    args = {
        "chunk_size": 1000,
        "context_window": 8192,
        "max_summary_tokens": 900,
        "preprocess": True,
        "compress": True,
    }
    assert summary_cost("incremental", 10_000, args).calls == 10
    assert summary_cost("incremental", 20_000, args).calls == 20
    assert summary_cost("full", 100_000, args).calls == 1
    hierarchical = summary_cost("hierarchical", 100_000, args)
    assert hierarchical.calls > 100  # 100 chunk summaries, then merges
    assert summary_cost("hierarchical", 200_000, args).calls > hierarchical.calls
    # NexusSum chunks 8 scenes of at most 500 words, whatever the chunk size: 10,000 tokens
    # are about 7,700 words, 2 chunks, each rewritten and summarized, then one compression
    assert summary_cost("nexus_sum", 10_000, args).calls == 2 * 2 + 1
    assert summary_cost("nexus_sum", 100_000, args).steps["chunk_summary"] == 20


def test_reading_work_on_a_document_is_shared_between_its_questions() -> None:
    args = {"max_words": 600, "max_pages": 5}
    one = reading_cost("read_agent_p", 20_000, 1, args)
    ten = reading_cost("read_agent_p", 20_000, 10, args)
    assert ten.calls < one.calls and ten.calls >= 2  # own look-up and answer remain
    assert ten.steps["lookup"] == one.steps["lookup"] == 1
    assert ten.steps["gist"] == one.steps["gist"] / 10
    assert reading_cost("full", 20_000, 1, {}).input_tokens > 20_000
    assert reading_cost("gist_memory", 20_000, 1, args).calls < one.calls


def test_judge_calls_by_mode() -> None:
    assert booookscore_judge_cost("batched", 10, 5).judge_calls == 2
    assert booookscore_judge_cost("batched", 10, 0).judge_calls == 1  # the default batch, 10
    assert booookscore_judge_cost("sentence", 10, 0).judge_calls == 10
    # uncalibrated: all eight probes, but the first sentence is not asked about earlier text
    assert booookscore_judge_cost("probe", 10, 0).judge_calls == 2 + 9 * 8
    probe = judge_entry("coherence", "probe").cost
    # the 1.5B judge's calibration switches on three probes (one about the sentence alone)
    assert probe(JudgeWork(2, judge="gguf/qwen2.5-coder-1.5b")) - 1 == 3
    assert probe(JudgeWork(2, judge="openai/gpt-4o")) == probe(JudgeWork(2)) == 2 + 8


def test_auto_mode_is_priced_as_the_judge_it_resolves_to() -> None:
    """An API judge in `auto` mode makes one call per sentence, not eight probes (issue 50);
    the embedded judge, or the same model served under its packaged name, probes."""
    assert coherence_mode("auto", 0, "openai/gpt-4o") == "sentence"
    assert coherence_mode("auto", 0, "gguf/qwen2.5-coder-1.5b") == "probe"
    assert coherence_mode("auto", 0, "openai-api/llamacpp/qwen2.5-coder-1.5b") == "probe"
    assert coherence_mode("probe", 4, "openai/gpt-4o") == "batched"  # a batch size selects it
    api = booookscore_judge_cost("auto", 10, 0, "openai/gpt-4o")
    assert api.judge_calls == 10 and api.steps == {"judge": 10}


def test_the_fitted_judge_is_priced_at_its_own_probes() -> None:
    fitted = judge_entry("coherence", "fitted").cost
    assert 0 < fitted(JudgeWork(10, judge="gguf/qwen2.5-coder-1.5b")) <= fitted(JudgeWork(10))
    assert fitted(JudgeWork(10)) == 2 + 9 * 8


def test_hierarchical_estimate_matches_a_run(tmp_path: Path) -> None:
    """On the bundled book the estimate's summarizer calls are the run's (one merge level)."""
    task = booookscore(strategy="hierarchical", chunk_size=512, judge_mode="sentence")
    [book] = [s for s in task.dataset if s.id == "the_frost_hold"]
    estimate = sample_cost("booookscore", {"chunk_size": 512}, book, 1)
    [log] = eval(
        task,
        model="scripted/x",
        model_args={"default_response": "Ines studies a frozen orchard. She finds a sensor."},
        model_roles={"grader": "scripted/judge"},
        sample_id="the_frost_hold",
        log_dir=str(tmp_path),
    )
    assert log.samples
    steps = step_usage(log.samples[0])
    made = steps["chunk_summary"]["calls"] + steps.get("merge", {}).get("calls", 0)
    assert estimate.calls == made and estimate.input_tokens > 0


def _long_sample(words: int) -> Sample:
    text = " ".join(f"w{i % 97}" for i in range(words))
    return Sample(
        id="d1",
        input="What happens?",
        target="x",
        metadata={"document": text, "doc_id": "d1", "dataset": "quality"},
    )


def test_a_strategy_option_left_unset_is_priced_at_the_solvers_own_default() -> None:
    """`truncate_first` keeps 6,000 words unless told otherwise; the estimate used to guess
    3,000 (issue 50)."""
    sample = _long_sample(20_000)
    args = {"strategy": "truncate_first"}
    unset = sample_cost("quality", args, sample, 1)
    assert unset == sample_cost("quality", {**args, "words": 6000}, sample, 1)
    assert unset != sample_cost("quality", {**args, "words": 3000}, sample, 1)
    assert task_card("quality").completed(args)["words"] == 6000


def test_a_task_parameter_left_unset_is_priced_at_the_tasks_default() -> None:
    """SQuALITY asks for 200-word summaries; the estimate used to guess 900 (issue 50)."""
    card = task_card("squality")
    assert card.completed({})["target_words"] == 200
    assert card.completed({"target_words": 600})["target_words"] == 600
    # Unset parameters without a default stay out: the cost functions see nothing for them.
    assert all(v is not None for v in card.completed({}).values())
