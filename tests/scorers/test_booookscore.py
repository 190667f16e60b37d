"""The BooookScore scorer: the formula, the three judge modes end to end, retries and failures."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.models.scripted import recent_instances
from longform_evals.scorers.booookscore import booookscore, booookscore_values
from longform_evals.solvers import given_summary

SUMMARY = (
    "Ada Finch keeps the lighthouse on Gull Rock with her father Tomas. "
    "A storm wrecks a ship, and Ada rescues its only survivor, Piet. "
    "Marguerite misleads the smugglers."
)


def test_formula_excludes_parse_failures_from_the_denominator() -> None:
    verdicts = [
        SentenceVerdict(0, "a", parsed=True, confused=False),
        SentenceVerdict(1, "b", parsed=True, confused=False),
        SentenceVerdict(2, "c", parsed=True, confused=True, types=["entity_omission"]),
        SentenceVerdict(3, "d", parsed=False),
    ]
    values = booookscore_values(verdicts, judge_calls=6)
    assert values["booookscore"] == pytest.approx(100 * 2 / 3)
    assert values["parse_failure_rate"] == 0.25
    assert values["rate_entity_omission"] == pytest.approx(1 / 3)
    assert values["rate_duplication"] == 0.0
    assert values["judge_calls"] == 6 and values["sentences"] == 4


def test_formula_with_nothing_readable_is_missing_not_zero() -> None:
    values = booookscore_values([SentenceVerdict(0, "a")], judge_calls=3)
    assert math.isnan(values["booookscore"]) and values["parse_failure_rate"] == 1.0


def _run(tmp_path: Path, rules: list[dict[str, Any]], summary: str = SUMMARY, **kw: Any) -> EvalLog:
    """Score SUMMARY with a scripted judge. Tests of prompts, parsing and call counts pass
    `readings=False`: the readings defence (more calls) is tested in
    tests/judges/test_coherence_readings.py."""
    task = Task(
        dataset=MemoryDataset([Sample(id="s1", input="x", metadata={"summary": summary})]),
        solver=given_summary(),
        scorer=booookscore(CoherenceJudging(**kw)),
    )
    model = get_model("scripted/judge", rules=rules, memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path))
    assert log.status == "success", log.error
    return log


def _score(log: EvalLog) -> tuple[dict[str, float], dict[str, Any]]:
    assert log.samples
    score = next(iter(log.samples[0].scores.values()))  # type: ignore[union-attr]
    assert isinstance(score.value, dict)
    return score.value, score.metadata or {}  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("layout", "third"),
    [
        ("numbered", "Sentence to judge: 3$"),
        ("quoted", "Sentence to judge:\n<sentence>\nMarguerite"),
    ],
)
def test_sentence_mode_end_to_end(tmp_path: Path, layout: str, third: str) -> None:
    rules = [
        {"pattern": third, "response": "Questions: Who is Marguerite?\nTypes: entity_omission"},
        {"pattern": "Sentence to judge", "response": "No confusion."},
    ]
    value, meta = _score(_run(tmp_path, rules, mode="sentence", layout=layout, readings=False))
    assert value["booookscore"] == pytest.approx(200 / 3)
    assert value["judge_calls"] == 3 and value["parse_failure_rate"] == 0
    flagged = [s for s in meta["sentences"] if s["confused"]]
    assert [s["index"] for s in flagged] == [2]
    assert flagged[0]["questions"] == ["Who is Marguerite?"]
    assert meta["mode"] == "sentence" and meta["layout"] == layout


def test_numbered_layout_calls_share_all_but_the_sentence_number(tmp_path: Path) -> None:
    rules = [{"pattern": "Sentence to judge", "response": "No confusion."}]
    _run(tmp_path, rules, mode="sentence", layout="numbered", readings=False)
    prompts = sorted(c.last_user for c in recent_instances("judge")[-1].calls)
    assert [p.rsplit("Sentence to judge: ", 1)[1] for p in prompts] == ["1", "2", "3"]
    assert len({p.rsplit("Sentence to judge: ", 1)[0] for p in prompts}) == 1
    summary = prompts[0].split("<summary>\n", 1)[1].split("\n</summary>", 1)[0]
    assert summary.splitlines() == [
        "1. Ada Finch keeps the lighthouse on Gull Rock with her father Tomas.",
        "2. A storm wrecks a ship, and Ada rescues its only survivor, Piet.",
        "3. Marguerite misleads the smugglers.",
    ]
    assert "Sentence 1:\nNo confusion." in prompts[0]  # the demonstrations are numbered too


def test_an_unknown_sentence_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown layout 'sideways'"):
        booookscore(CoherenceJudging(layout=cast(Any, "sideways")))


def test_malformed_answers_are_retried_then_counted(tmp_path: Path) -> None:
    rules = [
        # retries: the last user message is the correction naming the problem
        {
            "pattern": "could not be read: the answer neither",
            "response": "Questions: Who is Marguerite?\nTypes: entity_omission",
        },
        {"pattern": "could not be read: unknown error type", "response": "Types: vagueness"},
        # first answers
        {"pattern": "Sentence to judge: 3$", "response": "It is a bit odd."},
        {"pattern": "Sentence to judge: 2$", "response": "Types: vagueness"},
        {"pattern": "Sentence to judge", "response": "No confusion."},
    ]
    value, meta = _score(
        _run(tmp_path, rules, mode="sentence", max_attempts=3, layout="numbered", readings=False)
    )
    by_index = {s["index"]: s for s in meta["sentences"]}
    assert by_index[2]["parsed"] and by_index[2]["attempts"] == 2
    assert not by_index[1]["parsed"] and by_index[1]["attempts"] == 3
    assert "unknown error type 'vagueness'" in by_index[1]["problems"][0]
    assert value["parse_failure_rate"] == pytest.approx(1 / 3)
    assert value["booookscore"] == pytest.approx(50.0)  # 1 clean of 2 readable
    assert value["judge_calls"] == 1 + 3 + 2


def test_batched_mode_same_outputs(tmp_path: Path) -> None:
    answer = (
        '[{"sentence": 1, "confusion": false}, {"sentence": 2, "confusion": false}, '
        '{"sentence": 3, "confusion": true, "questions": ["Who is Marguerite?"], '
        '"types": ["entity_omission"]}]'
    )
    rules = [{"pattern": "Sentences to check", "response": answer}]
    value, meta = _score(_run(tmp_path, rules, mode="batched", batch_size=10, readings=False))
    assert value["booookscore"] == pytest.approx(200 / 3)
    assert value["judge_calls"] == 1
    assert [s["types"] for s in meta["sentences"]] == [[], [], ["entity_omission"]]


def test_batched_mode_asks_again_for_missing_sentences(tmp_path: Path) -> None:
    first = '[{"sentence": 1, "confusion": false}]'
    second = '[{"sentence": 2, "confusion": false}]'
    rules = [
        {"pattern": "Some verdicts could not be read", "response": second},
        {"pattern": "Sentences to check", "response": first},
    ]
    value, meta = _score(_run(tmp_path, rules, mode="batched", batch_size=2, max_attempts=2))
    # batch 1 (sentences 1-2): 2 calls; batch 2 (sentence 3) answers for "sentence 1" only.
    by_index = {s["index"]: s for s in meta["sentences"]}
    assert by_index[0]["parsed"] and by_index[1]["parsed"] and by_index[2]["parsed"]
    assert value["booookscore"] == 100.0


def test_probe_mode_reads_log_probabilities(tmp_path: Path) -> None:
    yes = {"Yes": -0.05, "No": -3.0}
    no = {"No": -0.05, "Yes": -3.0}
    rules = [
        # The third sentence's "introduced" probe says No (entity never introduced).
        {
            "pattern": "(?s)New sentence: <sentence>Marguerite.*Is every person named",
            "response": "No",
            "top_logprobs": no,
        },
        {"pattern": "Does the earlier text already say", "response": "No", "top_logprobs": no},
        {"pattern": "Question:", "response": "Yes", "top_logprobs": yes},
    ]
    value, meta = _score(_run(tmp_path, rules, mode="probe", threshold=0.8, readings=False))
    flagged = [s for s in meta["sentences"] if s["confused"]]
    assert [(s["index"], s["types"]) for s in flagged] == [(2, ["entity_omission"])]
    assert value["booookscore"] == pytest.approx(200 / 3)
    # 2 probes for the first sentence, 8 for each of the others
    assert value["judge_calls"] == 2 + 8 + 8
    assert meta["calibration"] == "threshold=0.8"


def test_probe_mode_sentence_with_an_unreadable_probe_is_a_parse_failure(tmp_path: Path) -> None:
    yes = {"Yes": -0.05, "No": -3.0}
    rules = [
        # The "repeats" probe (asked from the second sentence on) gets no yes/no answer.
        {"pattern": "Does the earlier text already say", "response": "Maybe"},
        {"pattern": "Question:", "response": "Yes", "top_logprobs": yes},
    ]
    value, meta = _score(_run(tmp_path, rules, mode="probe", threshold=0.8))
    assert [s["parsed"] for s in meta["sentences"]] == [True, False, False]
    assert value["booookscore"] == 100.0  # the first sentence alone, not 3 of 3
    assert value["parse_failure_rate"] == pytest.approx(2 / 3)
    second = meta["sentences"][1]
    assert second["problems"][-1] == "unread: 1 of 8 active probes unreadable (repeats)"


def test_empty_summary_is_counted_as_unscored(tmp_path: Path) -> None:
    log = _run(
        tmp_path, [{"pattern": ".", "response": "No confusion."}], summary="  ", mode="sentence"
    )
    value, _ = _score(log)
    assert math.isnan(value["booookscore"])
    assert log.results is not None
    [result] = [s for s in log.results.scores if s.name == "booookscore"]
    assert math.isnan(result.metrics["mean"].value)  # not a BooookScore of 0
    # counted in the scorer's own entry (its `unscored_samples` counts samples unscored as a
    # whole, e.g. stopped by a limit, since the entry's metrics read the whole value dict)
    assert result.metrics["scored"].value == 0.0 and result.metrics["empty_summary"].value == 1.0
