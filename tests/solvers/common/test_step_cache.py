"""Multi-step solvers cache their calls by default: a rerun repeats no finished step, while
epochs, tries, samples and differently configured models never share an answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import CachePolicy, get_model
from inspect_ai.solver import TaskState

from longform_evals.models.identity import IDENTITY_SCOPE, model_identity
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.solvers import full_context, hierarchical_merge
from longform_evals.solvers.common.step_cache import step_cache
from longform_evals.solvers.settings import SummarySettings
from solvers.summary_support import CHUNK, MERGE, MERGE_CONTEXT, make_book, obedient

RunEval = Callable[..., Any]
SMALL = SummarySettings(chunk_size=200, context_window=1200, max_summary_tokens=120)
RULES = [
    {"pattern": CHUNK, "response": obedient("chunk", 20)},
    {"pattern": MERGE_CONTEXT, "response": obedient("ctxmerge", 30)},
    {"pattern": MERGE, "response": obedient("merge", 30)},
]


def test_a_rerun_reads_every_step_from_the_cache(run_eval: RunEval) -> None:
    book = make_book(30)
    _, first, api1 = run_eval(hierarchical_merge(SMALL), RULES, book)
    _, second, api2 = run_eval(hierarchical_merge(SMALL), RULES, book)
    assert len(api1.calls) == first.metadata["summary_stats"]["calls"] > 5
    assert api2.calls == []
    assert second.output.completion == first.output.completion
    reads = [e for e in second.events if e.event == "model"]
    assert len(reads) == len(api1.calls) and all(e.cache == "read" for e in reads)


def test_cache_false_makes_every_call_again(run_eval: RunEval) -> None:
    book = make_book(30)
    _, _, api1 = run_eval(hierarchical_merge(replace(SMALL, cache=False)), RULES, book)
    _, _, api2 = run_eval(hierarchical_merge(replace(SMALL, cache=False)), RULES, book)
    assert len(api2.calls) == len(api1.calls) > 5


def test_epochs_and_samples_do_not_share_answers(tmp_path: Path) -> None:
    book = make_book(12)
    samples = [Sample(id=i, input="Summarize.", metadata={"document": book}) for i in ("a", "b")]
    model = get_model("scripted/epochs", rules=RULES, memoize=False)
    task = Task(dataset=MemoryDataset(samples), solver=hierarchical_merge(SMALL), epochs=2)
    [log] = eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.samples is not None
    per_sample = log.samples[0].metadata["summary_stats"]["calls"]
    api = model.api
    assert isinstance(api, ScriptedModelAPI)
    # two samples with the same document, two epochs each: four independent summaries
    assert len(api.calls) == 4 * per_sample


def test_a_retry_with_the_same_prompt_is_not_answered_from_the_cache(run_eval: RunEval) -> None:
    # the first try is empty, so the sample retries; the rejected answer must not come back
    rules = [{"pattern": "Text of the story:", "response": ["", "A short summary that ends."]}]
    solver = full_context(SummarySettings(context_window=2000, max_summary_tokens=100))
    log, sample, api = run_eval(solver, rules, make_book(2, 2))
    assert log.status == "success"
    assert len(api.calls) == 2 and sample.output.completion == "A short summary that ends."


def test_cache_keys_differ_by_sample_try_and_model_arguments() -> None:
    plain = get_model("scripted/args", default_response="a", memoize=False)
    other = get_model("scripted/args", default_response="b", memoize=False)
    assert model_identity(plain) != model_identity(other)

    def scopes(sample_id: str, model: Any, attempt: int) -> dict[str, str]:
        state = cast(TaskState, SimpleNamespace(sample_id=sample_id))
        policy = step_cache(state, model, True, attempt)
        assert isinstance(policy, CachePolicy) and policy.per_epoch and policy.expiry is None
        assert policy.scopes is not None
        return policy.scopes

    base = scopes("a", plain, 0)
    assert base[IDENTITY_SCOPE] == model_identity(plain)
    assert len({str(base), str(scopes("b", plain, 0)), str(scopes("a", plain, 1))}) == 3
    assert base != scopes("a", other, 0)
    assert step_cache(cast(TaskState, SimpleNamespace(sample_id="a")), plain, False) is False
