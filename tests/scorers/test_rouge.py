"""ROUGE against one or several references, end to end with a scripted reader."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

from longform_evals.scorers.rouge import rouge

REFERENCE = "The lighthouse keeper rowed out to rescue the stranded fishermen during the storm."
PARAPHRASE = "During the storm the lighthouse keeper rowed out and rescued the stranded fishermen."
WRONG = "A merchant sold his ship and moved inland to grow apples in the valley."


def _run(tmp_path: Path, samples: list[Sample], answers: dict[str, str], **kw: Any) -> EvalLog:
    """Each sample's input is a key of `answers`; the scripted reader replies with its value."""
    model = get_model(
        "scripted/reader",
        rules=[{"pattern": f"^{key}$", "response": value} for key, value in answers.items()],
        memoize=False,
    )
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=rouge(**kw))
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    return log


def _scores(log: EvalLog) -> dict[str, Score]:
    assert log.status == "success", log.error
    assert log.samples
    return {str(s.id): s.scores["rouge"] for s in log.samples if s.scores}


def test_identical_paraphrase_and_wrong_answers(tmp_path: Path) -> None:
    samples = [Sample(id=k, input=k, target=[REFERENCE]) for k in ("same", "para", "wrong")]
    answers = {"same": REFERENCE, "para": PARAPHRASE, "wrong": WRONG}
    scores = _scores(_run(tmp_path, samples, answers))
    assert _values(scores["same"]) == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    para, wrong = scores["para"].value, scores["wrong"].value
    assert isinstance(para, dict) and isinstance(wrong, dict)
    for variant in ("rouge1", "rouge2", "rougeL"):
        assert float(wrong[variant]) < float(para[variant]) < 1.0
    assert float(wrong["rouge2"]) == 0.0


def test_best_reference_per_variant_and_mean_metrics(tmp_path: Path) -> None:
    samples = [
        Sample(id="two", input="two", target=[WRONG, REFERENCE]),
        Sample(id="one", input="one", target=[WRONG]),
    ]
    log = _run(tmp_path, samples, {"two": REFERENCE, "one": REFERENCE})
    scores = _scores(log)
    assert _values(scores["two"]) == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    meta = scores["two"].metadata or {}
    assert meta["best_reference"] == {"rouge1": 1, "rouge2": 1, "rougeL": 1}
    assert len(meta["per_reference"]) == 2 and meta["per_reference"][0]["rouge1"] < 1.0
    assert log.results
    metrics = {s.name: s.metrics for s in log.results.scores}
    one = scores["one"].value
    assert isinstance(one, dict)
    assert metrics["rouge1"]["mean"].value == pytest.approx((1.0 + float(one["rouge1"])) / 2)
    # The variants an entry each; the counts rows of the scorer's own entry.
    assert list(metrics) == ["rouge", "rouge1", "rouge2", "rougeL"]
    assert list(metrics["rouge"]) == ["empty_summary", "no_sentences", "scored"]
    assert metrics["rouge"]["scored"].value == 2.0


def test_string_target_and_metadata_references(tmp_path: Path) -> None:
    samples = [
        Sample(id="summary", input="summary", target=REFERENCE),
        Sample(id="meta", input="meta", metadata={"references": [WRONG, REFERENCE]}),
    ]
    scores = _scores(_run(tmp_path, samples, {"summary": REFERENCE, "meta": REFERENCE}))
    assert _values(scores["summary"]) == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    assert _values(scores["meta"]) == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}


def _values(score: Score) -> dict[str, float]:
    """The F-measures of a score (not its `scored` / unscorable counts)."""
    assert isinstance(score.value, dict)
    return {k: float(v) for k, v in score.value.items() if k.startswith("rouge")}


def test_variants_and_stemming(tmp_path: Path) -> None:
    samples = [Sample(id="stem", input="stem", target=["the keepers rowed boats"])]
    answers = {"stem": "the keeper rows boat"}
    stemmed = _scores(_run(tmp_path, samples, answers, variants=["rouge1", "rougeLsum"]))
    plain = _scores(_run(tmp_path, samples, answers, variants=["rouge1"], stemmer=False))
    assert _values(stemmed["stem"]) == {"rouge1": 1.0, "rougeLsum": 1.0}
    assert _values(plain["stem"]) == {"rouge1": pytest.approx(0.25)}


def test_empty_answer_is_not_scored_and_is_counted(tmp_path: Path) -> None:
    scores = _scores(_run(tmp_path, [Sample(id="e", input="e", target=[REFERENCE])], {"e": " "}))
    value = scores["e"].value
    assert isinstance(value, dict)
    assert all(math.isnan(value[v]) for v in ("rouge1", "rouge2", "rougeL"))
    assert value["empty_summary"] == 1.0 and value["scored"] == 0.0
    assert (scores["e"].metadata or {})["empty_answer"] is True


def test_no_references_is_a_clear_error(tmp_path: Path) -> None:
    log = _run(tmp_path, [Sample(id="doc:3", input="q", metadata={"references": []})], {"q": "x"})
    assert log.status == "error"
    assert log.error and "sample 'doc:3' has no reference texts" in log.error.message


def test_blank_reference_is_a_clear_error(tmp_path: Path) -> None:
    log = _run(tmp_path, [Sample(id="doc:4", input="q", target=[REFERENCE, " "])], {"q": "x"})
    assert log.status == "error"
    assert log.error and "sample 'doc:4': references [1] are blank" in log.error.message


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown ROUGE variant"):
        rouge(variants=["rouge0"])
    with pytest.raises(ValueError, match="unknown ROUGE variant"):
        rouge(variants=[])
