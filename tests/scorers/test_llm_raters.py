"""The LR-1 / LR-2 raters: verdict parsing, the combination rule, and the scorer end to end with
a scripted reader and a scripted grader bound to the `grader` role."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.scorers.llm_raters import (
    Verdict,
    llm_raters,
    parse_verdict,
    rate_reference,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("YES", "yes"),
        ("yes.", "yes"),
        ("No.", "no"),
        ("NO - the places differ.", "no"),
        ("Yes, partially", "partial"),
        ("yes partially.", "partial"),
        ("**Yes, partially.**", "partial"),
        ("Yes, but only partially.", "partial"),
        ("Partially", "partial"),
        ("Verdict: Yes", "yes"),
        ("Rating: no", "no"),
        ("The two answers agree, so YES.", "yes"),
        ("Yes. There is no difference.", "yes"),
        ("I cannot tell.", None),
        ("Not really", None),
        ("", None),
    ],
)
def test_parse_verdict(text: str, expected: Verdict | None) -> None:
    assert parse_verdict(text) == expected


def test_combination_rule() -> None:
    assert rate_reference("yes", "no") == ("exact", "exact")
    assert rate_reference("no", "yes") == ("exact", "exact")
    assert rate_reference("no", "partial") == ("partial", "partial")
    assert rate_reference("partial", "partial") == ("partial", "partial")  # strict: not exact
    assert rate_reference("no", "no") == ("none", "none")
    assert rate_reference(None, "partial") == ("partial", "exact")
    assert rate_reference("no", None) == ("none", "exact")
    assert rate_reference(None, "yes") == ("exact", "exact")


_VERDICTS = st.sampled_from([*get_args(Verdict), None])
_RANK = {"none": 0, "partial": 1, "exact": 2}


@given(strict=_VERDICTS, permissive=_VERDICTS, fill=st.sampled_from(get_args(Verdict)))
def test_bounds_contain_every_completion_of_missing_verdicts(
    strict: Verdict | None, permissive: Verdict | None, fill: Verdict
) -> None:
    lower, upper = rate_reference(strict, permissive)
    known, _ = rate_reference(strict or fill, permissive or fill)
    assert _RANK[lower] <= _RANK[known] <= _RANK[upper]


QUESTION = "Where did the keeper hide the ledger?"
_PAIR = re.compile(r"(?s)Reference answer: (.*?)\n\nThe reader's answer: (.*?)\n\n")
# (reference, reader's answer) -> (strict answer, permissive answer)
VERDICTS = {
    ("under the floorboards", "beneath the floor"): ("YES", "Yes, partially"),
    ("in the chapel", "in the old chapel by the sea"): ("NO", "Yes."),
    ("in the bell tower of the chapel", "in the chapel"): ("NO", "Yes, partially"),
    ("in the cellar", "in the chapel"): ("No", "No"),
    ("in the barn", "behind the barn door"): ("Hmm.", "No"),
    ("in the attic", "on the roof"): ("NO", "It depends."),
}


def grader_answer(text: str, _: int) -> str:
    match = _PAIR.search(text)
    assert match, text[-300:]
    strict, permissive = VERDICTS[(match.group(1), match.group(2))]
    return strict if "(YES or NO)" in text else permissive


def grader() -> Model:
    return get_model(
        "scripted/grader",
        rules=[
            # The strict rater on the barn pair reads nothing useful first, then YES.
            {"pattern": r"(?s)in the barn.*\(YES or NO\)", "response": ["Hmm.", "YES"]},
            {"pattern": "Reference answer:", "response": grader_answer, "where": "all"},
        ],
        memoize=False,
    )


def _sample(sample_id: str, answer: str, references: list[str]) -> Sample:
    # The reader is scripted to reply with the text after "ANSWER=" in its input.
    return Sample(
        id=sample_id,
        input=f"{QUESTION} ANSWER={answer}",
        target=references,
        metadata={"question": QUESTION},
    )


def _run(tmp_path: Path, samples: list[Sample], judge: Model, **kw: Any) -> EvalLog:
    reader = get_model(
        "scripted/reader", rules=[{"pattern": r"ANSWER=(.*)$", "response": r"\1"}], memoize=False
    )
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=llm_raters(**kw))
    [log] = inspect_eval(task, model=reader, model_roles={"grader": judge}, log_dir=str(tmp_path))
    return log


def _scores(log: EvalLog) -> dict[str, Score]:
    assert log.status == "success", log.error
    assert log.samples
    return {str(s.id): s.scores["llm_raters"] for s in log.samples if s.scores}


SAMPLES = [
    _sample("strict", "beneath the floor", ["under the floorboards"]),
    _sample("permissive", "in the old chapel by the sea", ["in the chapel"]),
    _sample("partial", "in the chapel", ["in the bell tower of the chapel"]),
    _sample("none", "in the chapel", ["in the cellar"]),
    _sample("best", "in the chapel", ["in the cellar", "in the bell tower of the chapel"]),
    _sample("retried", "behind the barn door", ["in the barn"]),
    _sample("unparsed", "on the roof", ["in the attic"]),
]


def test_ratings_end_to_end(tmp_path: Path) -> None:
    judge = grader()
    log = _run(tmp_path, SAMPLES, judge)
    scores = _scores(log)
    values = {k: s.value for k, s in scores.items()}
    assert values["strict"] == {"lr1": 1, "lr2": 1, "unparsed": 0}  # exact via the strict rater
    assert values["permissive"] == {"lr1": 1, "lr2": 1, "unparsed": 0}  # via a plain "Yes."
    assert values["partial"] == {"lr1": 0, "lr2": 1, "unparsed": 0}
    assert values["none"] == {"lr1": 0, "lr2": 0, "unparsed": 0}
    assert values["best"] == {"lr1": 0, "lr2": 1, "unparsed": 0}  # the better reference counts
    assert values["retried"] == {"lr1": 1, "lr2": 1, "unparsed": 0}
    # The permissive rater never gives a verdict: counted, and not read as "No".
    assert values["unparsed"] == {"lr1": 0, "lr2": 0, "unparsed": 1}

    best = scores["best"].metadata or {}
    assert [r["rating"] for r in best["ratings"]] == ["none", "partial"]
    assert best["ratings"][1]["strict"] == {"verdict": "no", "answers": ["NO"]}
    assert best["ratings"][1]["permissive"] == {"verdict": "partial", "answers": ["Yes, partially"]}
    assert best["rating"] == "partial" and best["determined"] is True
    retried = (scores["retried"].metadata or {})["ratings"][0]["strict"]
    assert retried == {"verdict": "yes", "answers": ["Hmm.", "YES"]}
    unparsed = scores["unparsed"].metadata or {}
    assert unparsed["ratings"][0]["permissive"] == {
        "verdict": None,
        "answers": ["It depends.", "It depends."],
    }
    assert unparsed["determined"] is False and unparsed["unparsed_verdicts"] == 1

    assert log.results
    metrics = {s.name: s.metrics for s in log.results.scores}
    assert metrics["lr1"]["mean"].value == pytest.approx(3 / 7)
    assert metrics["lr2"]["mean"].value == pytest.approx(5 / 7)
    assert metrics["unparsed"]["mean"].value == pytest.approx(1 / 7)

    api = judge.api
    assert isinstance(api, ScriptedModelAPI)
    # Two raters per distinct (reference, answer) pair (6 pairs), plus one retry each for the
    # barn and attic pairs; pairs shared by two samples may come from the cache the second time.
    assert len({c.prompt for c in api.calls}) == 2 * 6
    assert 2 * 6 + 2 <= len(api.calls) <= 2 * 8 + 2
    assert sum("in the attic" in c.prompt for c in api.calls) == 3
    assert {c.config.temperature for c in api.calls} == {0.0}


def test_prompts_keep_instructions_first_and_the_pair_last(tmp_path: Path) -> None:
    judge = grader()
    _run(tmp_path, SAMPLES[:2], judge)
    api = judge.api
    assert isinstance(api, ScriptedModelAPI)
    for call in api.calls:
        prompt = call.prompt
        assert prompt.index("Question:") < prompt.index("Reference answer:")
        assert prompt.index("Reference answer:") < prompt.index("The reader's answer:")
        assert QUESTION in prompt
    strict = sorted({c.prompt for c in api.calls if "(YES or NO)" in c.prompt})
    assert len(strict) == 2
    prefix = strict[0][: strict[0].index("Question:")]
    assert strict[1].startswith(prefix) and len(prefix) > 200


def test_rater_calls_are_cached(tmp_path: Path) -> None:
    _run(tmp_path / "first", SAMPLES, grader())
    again = grader()
    scores = _scores(_run(tmp_path / "second", SAMPLES, again))
    api = again.api
    assert isinstance(api, ScriptedModelAPI)
    assert api.calls == []  # every verdict, retries included, came from the cache
    assert scores["retried"].value == {"lr1": 1, "lr2": 1, "unparsed": 0}


def test_empty_answer_asks_no_rater(tmp_path: Path) -> None:
    judge = grader()
    scores = _scores(_run(tmp_path, [_sample("empty", " ", ["in the barn"])], judge))
    assert scores["empty"].value == {"lr1": 0, "lr2": 0, "unparsed": 0}
    assert (scores["empty"].metadata or {})["empty_answer"] is True
    assert isinstance(judge.api, ScriptedModelAPI) and judge.api.calls == []


def test_no_references_is_a_clear_error(tmp_path: Path) -> None:
    sample = Sample(id="doc:7", input=f"{QUESTION} ANSWER=x", metadata={"references": []})
    log = _run(tmp_path, [sample], grader())
    assert log.status == "error"
    assert log.error and "sample 'doc:7' has no reference texts" in log.error.message


def test_prompt_override_must_keep_the_fields(tmp_path: Path) -> None:
    (tmp_path / "raters").mkdir()
    (tmp_path / "raters" / "strict.txt").write_text("Compare {reference} and {answer}.\n")
    with pytest.raises(ValueError, match="lacks field"):
        llm_raters(prompts_dir=str(tmp_path))
