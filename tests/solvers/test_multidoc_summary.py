"""`multidoc_summary` used directly as a solver (the `positional_bias` task builds it through
the strategy registry): its calls per strategy, the documents in order, and what it records."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample, resolve_sample_attachments
from inspect_ai.model import get_model

from longform_evals.solvers.multidoc.summary import multidoc_summary
from longform_evals.solvers.settings import MultidocSettings

DOCUMENTS = [
    "The council approved the harbour budget on Monday.",
    "The bridge reopens in May after repairs to its deck.",
    "Markets open early on Fridays in the summer.",
]
SUMMARY = "The council approved the harbour budget; the bridge reopens in May."


def _run(tmp_path: Path, strategy: str, **options: object) -> EvalSample:
    sample = Sample(id="harbour", input="Summarize.", metadata={"documents": DOCUMENTS})
    settings = MultidocSettings(cache=False)
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=multidoc_summary(strategy, settings, **options),  # type: ignore[arg-type]
    )
    model = get_model("scripted/multidoc", rules=[{"default": SUMMARY}], memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples
    return resolve_sample_attachments(log.samples[0])  # the prompts are logged as attachments


def _prompts(sample: EvalSample) -> list[str]:
    return ["\n".join(m.text for m in e.input) for e in sample.events if isinstance(e, ModelEvent)]


def test_plain_summarizes_every_document_in_one_call(tmp_path: Path) -> None:
    sample = _run(tmp_path, "plain")
    [prompt] = _prompts(sample)
    positions = [prompt.index(d) for d in DOCUMENTS]
    assert positions == sorted(positions), "documents out of their order"
    assert sample.output.completion == SUMMARY
    assert sample.metadata["summary"] == SUMMARY
    assert sample.metadata["multidoc"] == {"strategy": "plain", "n_docs": 3}


def test_incremental_makes_one_call_per_document(tmp_path: Path) -> None:
    sample = _run(tmp_path, "incremental")
    prompts = _prompts(sample)
    assert len(prompts) == len(DOCUMENTS)
    assert [DOCUMENTS[i] in p for i, p in enumerate(prompts)] == [True] * len(DOCUMENTS)


def test_calibration_records_its_permutations(tmp_path: Path) -> None:
    sample = _run(tmp_path, "calibration", k=2, seed=1)
    permutations = sample.metadata["multidoc"]["permutations"]
    assert len(permutations) == 2 and all(sorted(p) == [0, 1, 2] for p in permutations)
    assert len(_prompts(sample)) == 3  # two orders, then the combining call


def test_an_unknown_strategy_is_refused_when_the_solver_is_built() -> None:
    with pytest.raises(ValueError, match="unknown strategy 'bogus'"):
        multidoc_summary("bogus")
