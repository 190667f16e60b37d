"""The LR-1 / LR-2 scorer end to end, with a scripted reader and a scripted grader bound to the
`grader` role (verdict parsing and the combination rule: tests/judges/test_raters.py)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

from longform_evals.judges.raters.calibration import load_rater_calibration
from longform_evals.judges.raters.rating import Rated, Rating
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.scorers.llm_raters import llm_raters

QUESTION = "Where did the keeper hide the ledger?"
_PAIR = re.compile(r"(?s)<reference>\n(.*?)\n</reference>\n\n<answer>\n(.*?)\n</answer>")
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
            {
                "pattern": r"(?s)in the barn.*\(YES or NO\)",
                "response": ["Hmm.", "YES"],
                "where": "all",
            },
            {"pattern": "<reference>", "response": grader_answer, "where": "all"},
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


def _ratings(score: Score) -> dict[str, Any]:
    """LR-1, LR-2 and `unparsed` of a score (not its `scored` / unscorable counts)."""
    assert isinstance(score.value, dict)
    return {k: score.value[k] for k in ("lr1", "lr2", "unparsed")}


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
    values = {k: _ratings(s) for k, s in scores.items()}
    assert values["strict"] == {"lr1": 1, "lr2": 1, "unparsed": 0}  # exact via the strict rater
    assert values["permissive"] == {"lr1": 1, "lr2": 1, "unparsed": 0}  # via a plain "Yes."
    assert values["partial"] == {"lr1": 0, "lr2": 1, "unparsed": 0}
    assert values["none"] == {"lr1": 0, "lr2": 0, "unparsed": 0}
    assert values["best"] == {"lr1": 0, "lr2": 1, "unparsed": 0}  # the better reference counts
    assert values["retried"] == {"lr1": 1, "lr2": 1, "unparsed": 0}
    # The permissive rater never gives a verdict: counted, and not read as "No": a plain "Yes"
    # would have made it exact, so neither LR-1 nor LR-2 is known (NaN, out of the means).
    unread = values["unparsed"]
    assert unread["unparsed"] == 1 and math.isnan(unread["lr1"]) and math.isnan(unread["lr2"])

    best = scores["best"].metadata or {}
    assert [r["rating"] for r in best["ratings"]] == ["none", "partial"]
    assert best["rule"] == "verdicts" and best["calibration"] == "uncalibrated"
    assert best["ratings"][1]["strict"] == {"verdict": "no", "p_yes": 0.0, "answers": ["NO"]}
    assert best["ratings"][1]["permissive"] == {
        "verdict": "partial",
        "p_yes": 1.0,
        "answers": ["Yes, partially"],
    }
    assert best["rating"] == "partial" and best["determined"] is True
    retried = (scores["retried"].metadata or {})["ratings"][0]["strict"]
    assert retried == {"verdict": "yes", "p_yes": 1.0, "answers": ["Hmm.", "YES"]}
    unparsed = scores["unparsed"].metadata or {}
    assert unparsed["ratings"][0]["permissive"] == {
        "verdict": None,
        "p_yes": None,
        "answers": ["It depends.", "It depends."],
    }
    assert unparsed["determined"] is False and unparsed["unparsed_verdicts"] == 1

    assert log.results
    metrics = {s.name: s.metrics for s in log.results.scores}
    assert metrics["lr1"]["mean"].value == pytest.approx(3 / 6)
    assert metrics["lr2"]["mean"].value == pytest.approx(5 / 6)
    assert metrics["unparsed"]["mean"].value == pytest.approx(1 / 7)

    api = judge.api
    assert isinstance(api, ScriptedModelAPI)
    # Two raters per distinct (reference, answer) pair (6 pairs), plus one retry each for the
    # barn and attic pairs; pairs shared by two samples may come from the cache the second time.
    # A retry shows the unreadable answer and asks for the verdict alone (at temperature 0 the
    # same prompt would only repeat it).
    assert len({c.prompt for c in api.calls}) == 2 * 6 + 2
    retries = [c.prompt for c in api.calls if "could not be read" in c.prompt]
    assert len(retries) == 2
    attic = next(r for r in retries if "in the attic" in r)
    assert attic.index("It depends.") < attic.index("one of: Yes, Yes, partially, or No.")
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
        assert prompt.index("<question>") < prompt.index("<reference>")
        assert prompt.index("<reference>") < prompt.index("<answer>")
        assert QUESTION in prompt
    strict = sorted({c.prompt for c in api.calls if "(YES or NO)" in c.prompt})
    assert len(strict) == 2
    prefix = strict[0][: strict[0].index("<question>")]
    assert strict[1].startswith(prefix) and len(prefix) > 200


def test_rater_calls_are_cached(tmp_path: Path) -> None:
    _run(tmp_path / "first", SAMPLES, grader())
    again = grader()
    scores = _scores(_run(tmp_path / "second", SAMPLES, again))
    api = again.api
    assert isinstance(api, ScriptedModelAPI)
    assert api.calls == []  # every verdict, retries included, came from the cache
    assert _ratings(scores["retried"]) == {"lr1": 1, "lr2": 1, "unparsed": 0}


def test_empty_answer_asks_no_rater(tmp_path: Path) -> None:
    judge = grader()
    scores = _scores(_run(tmp_path, [_sample("empty", " ", ["in the barn"])], judge))
    # Not rated, so not a "no match": NaN, counted (see test_unscorable.py).
    assert all(math.isnan(v) for v in _ratings(scores["empty"]).values())
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


# --- the calibrated rule: P(yes) against a grader's thresholds ---------------------------------


def _logprobs(p_yes: float, yes: str = "Yes", no: str = "No") -> dict[str, float]:
    return {yes: math.log(p_yes), no: math.log(1 - p_yes)}


# (reference, answer) -> (strict P(YES), permissive P(Yes)); every verdict word is "Yes", the
# way a small grader answers, so the verdict rule would call all three exact.
CALIBRATED = {
    ("under the floorboards", "beneath the floor"): (0.95, 0.97),
    ("in the bell tower of the chapel", "in the chapel"): (0.7, 0.9),
    ("in the cellar", "in the chapel"): (0.6, 0.55),
}


def calibrated_grader() -> Model:
    rules: list[dict[str, Any]] = []
    for (reference, answer), (p_strict, p_permissive) in CALIBRATED.items():
        pair = rf"(?s)<reference>\n{reference}\n</reference>\n\n<answer>\n{answer}\n</answer>"
        rules.append(
            {
                "pattern": pair + r".*\(YES or NO\)",
                "response": "YES",
                "top_logprobs": _logprobs(p_strict, "YES", "NO"),
            }
        )
        rules.append({"pattern": pair, "response": "Yes", "top_logprobs": _logprobs(p_permissive)})
    return get_model("scripted/grader", rules=rules, memoize=False)


CALIBRATED_SAMPLES = [
    _sample("exact", "beneath the floor", ["under the floorboards"]),
    _sample("partial", "in the chapel", ["in the bell tower of the chapel"]),
    _sample("none", "in the chapel", ["in the cellar"]),
]


def _calibration_file(tmp_path: Path, exact: float = 0.8, partial: float = 0.6) -> str:
    path = tmp_path / "raters.json"
    path.write_text(json.dumps({"exact_threshold": exact, "partial_threshold": partial}))
    return str(path)


def test_calibrated_rule_reads_p_yes_against_the_thresholds(tmp_path: Path) -> None:
    judge = calibrated_grader()
    calibration = _calibration_file(tmp_path)
    scores = _scores(_run(tmp_path, CALIBRATED_SAMPLES, judge, calibration=calibration))
    values = {k: _ratings(s) for k, s in scores.items()}
    assert values == {
        "exact": {"lr1": 1, "lr2": 1, "unparsed": 0},
        "partial": {"lr1": 0, "lr2": 1, "unparsed": 0},
        "none": {"lr1": 0, "lr2": 0, "unparsed": 0},
    }
    meta = scores["partial"].metadata or {}
    assert meta["rule"] == "calibrated" and meta["calibration"] == calibration
    assert (meta["exact_threshold"], meta["partial_threshold"]) == (0.8, 0.6)
    rating = meta["ratings"][0]
    assert rating["strict"]["p_yes"] == pytest.approx(0.7)
    assert rating["permissive"]["p_yes"] == pytest.approx(0.9)
    assert rating["strict"]["verdict"] == "yes"  # the words are kept in the log too
    api = judge.api
    assert isinstance(api, ScriptedModelAPI)
    assert all(c.config.logprobs and c.config.top_logprobs for c in api.calls)

    # The same verdicts read by their words: everything is an exact match.
    words = _scores(_run(tmp_path / "w", CALIBRATED_SAMPLES, calibrated_grader(), rule="verdicts"))
    assert {k: s.value["lr1"] for k, s in words.items()} == {"exact": 1, "partial": 1, "none": 1}  # type: ignore[index]
    assert (words["none"].metadata or {})["rule"] == "verdicts"


def test_calibrated_rule_needs_a_calibration(tmp_path: Path) -> None:
    log = _run(tmp_path, CALIBRATED_SAMPLES[:1], calibrated_grader(), rule="calibrated")
    assert log.status == "error"
    assert log.error and "needs a rater calibration for grader scripted/grader" in log.error.message
    with pytest.raises(ValueError, match="unknown rater rule 'strictest'"):
        llm_raters(rule="strictest")


def test_auto_rule_without_calibration_reads_verdicts(tmp_path: Path) -> None:
    scores = _scores(_run(tmp_path, CALIBRATED_SAMPLES[2:], calibrated_grader()))
    assert _ratings(scores["none"]) == {"lr1": 1, "lr2": 1, "unparsed": 0}
    assert (scores["none"].metadata or {})["rule"] == "verdicts"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"exact_threshold": 0.5}, "needs exact_threshold and partial_threshold"),
        ({"exact_threshold": 1.5, "partial_threshold": 0.5}, "must be in \\[0, 1\\]"),
        ([0.5, 0.5], "malformed"),
    ],
)
def test_malformed_calibration_is_named(tmp_path: Path, content: Any, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match=problem):
        load_rater_calibration("any/grader", str(path))


def test_packaged_calibration_of_the_local_grader() -> None:
    cal = load_rater_calibration("gguf/qwen2.5-coder-1.5b")
    assert cal.calibrated and cal.source == "packaged raters_qwen2.5-coder-1.5b.json"
    assert 0.0 < cal.exact_threshold <= 1.0 and 0.0 < cal.partial_threshold <= 1.0
    assert not load_rater_calibration("openai/gpt-4o").calibrated


@pytest.mark.parametrize(
    ("lower", "upper", "lr1", "lr2"),
    [
        ("exact", "exact", 1.0, 1.0),  # settled: a missing verdict cannot lower a rating
        ("partial", "partial", 0.0, 1.0),
        ("none", "none", 0.0, 0.0),
        ("partial", "exact", math.nan, 1.0),  # partial for sure; exact only if the missing says so
        ("none", "partial", 0.0, math.nan),  # exact is out of reach either way
        ("none", "exact", math.nan, math.nan),
    ],
)
def test_lr1_and_lr2_are_read_only_where_the_readable_verdicts_settle_them(
    lower: Rating, upper: Rating, lr1: float, lr2: float
) -> None:
    result = Rated(rows=[], bounds=[], lower=lower, upper=upper, missing=1, best=0)
    for got, want in ((result.lr1, lr1), (result.lr2, lr2)):
        assert (math.isnan(got) and math.isnan(want)) or got == want
