"""Every judged scorer takes `model` and `model_role` as Inspect's model-graded scorers do, so
one evaluation can judge coherence with one model and faithfulness with another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.judges.faithfulness.llm import LLMSupportJudge
from longform_evals.judges.faithfulness.support import JudgeOptions
from longform_evals.models.grader import grader_model
from longform_evals.scorers.booookscore import booookscore
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.llm_raters import llm_raters
from longform_evals.solvers.summarize.given import given_summary

SUMMARY = "Mara keeps the light. Tom fixes the lamp."
DOCS = ["Mara keeps the light on the quay.", "Tom fixes the lamp before the storm."]


def _model(name: str, response: str) -> Model:
    return get_model(f"scripted/{name}", rules=[{"pattern": ".", "response": response}])


def _run(tmp_path: Path, scorers: list[Any], roles: dict[str, Model] | None = None) -> EvalLog:
    sample = Sample(
        id="s",
        input="Who keeps the light?",
        target="Mara keeps it.",
        metadata={"documents": DOCS, "summary": SUMMARY},
    )
    task = Task(dataset=MemoryDataset([sample]), solver=given_summary(), scorer=scorers)
    [log] = inspect_eval(
        task,
        model=_model("evaluated", "Maybe."),  # never a readable verdict: it must not judge
        model_roles=roles,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _scores(log: EvalLog) -> dict[str, Any]:
    assert log.samples and log.samples[0].scores
    return log.samples[0].scores


def test_two_judges_in_one_evaluation(tmp_path: Path) -> None:
    coherence = _model("coherence-judge", "No confusion.")
    verifier = _model("verifier", "Yes")
    log = _run(
        tmp_path,
        [
            booookscore(CoherenceJudging(mode="sentence", cache=False), model=coherence),
            faithfulness(judge_options={"model_role": "verifier", "cache": False}),
        ],
        roles={"verifier": verifier, "grader": _model("grader", "Maybe.")},
    )
    scores = _scores(log)
    assert scores["booookscore"].metadata["judge"] == "scripted/coherence-judge"
    assert scores["booookscore"].value["booookscore"] == 100.0
    assert scores["faithfulness"].metadata["judge"] == "scripted/verifier"
    assert scores["faithfulness"].value["faithfulness"] == pytest.approx(1.0)


def test_the_grader_role_is_the_default(tmp_path: Path) -> None:
    log = _run(
        tmp_path,
        [llm_raters(rule="verdicts", cache=False)],
        roles={"grader": _model("grader", "Yes")},
    )
    score = _scores(log)["llm_raters"]
    assert score.value["lr1"] == 1 and score.metadata["grader"] == "scripted/grader"


def test_a_named_model_wins_over_the_role() -> None:
    judge = LLMSupportJudge(JudgeOptions(model="scripted/named", model_role="nobody-bound"))
    assert judge.setup().name == "scripted/named"


def test_grader_model_resolution() -> None:
    named = _model("named", "Yes")
    judge = grader_model(named)
    assert judge.name == named.name and judge.api is named.api and judge.role == "grader"
    assert str(grader_model("scripted/by-name")) == "scripted/by-name"


def _generated_run(tmp_path: Path, roles: dict[str, Model] | None) -> EvalLog:
    """The evaluated model writes the summary (Inspect's `generate`), then every judged
    scorer judges it."""
    from inspect_ai.solver import generate

    sample = Sample(id="s", input="Summarize.", target="Mara keeps it.",
                    metadata={"documents": DOCS})  # fmt: skip
    scorers = [
        booookscore(CoherenceJudging(mode="sentence", cache=False)),
        faithfulness(judge_options={"cache": False}),
        llm_raters(rule="verdicts", cache=False),
    ]
    task = Task(dataset=MemoryDataset([sample]), solver=generate(), scorer=scorers)
    [log] = inspect_eval(task, model=_model("evaluated", SUMMARY), model_roles=roles,
                         log_dir=str(tmp_path), display="none")  # fmt: skip
    assert log.status == "success", log.error
    return log


def test_a_model_judging_its_own_output_is_flagged_and_warned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from longform_evals.models import grader

    monkeypatch.setattr(grader, "_warned", set())
    log = _generated_run(tmp_path / "self", None)
    scores = _scores(log)
    assert {name: s.metadata["self_judged"] for name, s in scores.items()} == {  # type: ignore[index]
        "booookscore": True, "faithfulness": True, "llm_raters": True
    }  # fmt: skip
    assert log.samples is not None
    warnings = [
        e.message.message for e in log.samples[0].events
        if e.event == "logger" and "judges its own output" in e.message.message
    ]  # fmt: skip
    assert len(warnings) == 1 and "--model-role grader=" in warnings[0]
    bound = _scores(_generated_run(tmp_path / "bound", {"grader": _model("grader", "Yes")}))
    assert not any(s.metadata["self_judged"] for s in bound.values())  # type: ignore[index]
    # a given summary was written by no evaluated model: judging it is not self-judging
    given = _scores(_run(tmp_path / "given", [faithfulness(judge_options={"cache": False})]))
    assert given["faithfulness"].metadata["self_judged"] is False  # type: ignore[index]


def _self_judging_warnings(log: EvalLog) -> list[str]:
    assert log.samples is not None
    return [
        e.message.message
        for e in log.samples[0].events
        if e.event == "logger" and "judges its own output" in e.message.message
    ]


def test_a_judge_bound_to_the_evaluated_model_on_purpose_is_not_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--model-role grader=<the evaluated model>` is the user's choice (Inspect's
    `model_roles()` holds it), unlike the grader role left unbound: the scores still say
    self_judged, and the run says nothing."""
    from longform_evals.models import grader

    monkeypatch.setattr(grader, "_warned", set())
    log = _generated_run(tmp_path, {"grader": _model("evaluated", SUMMARY)})
    assert all(s.metadata["self_judged"] for s in _scores(log).values())  # type: ignore[index]
    assert _self_judging_warnings(log) == []


def test_a_judge_given_to_the_scorer_is_not_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai.solver import generate

    from longform_evals.models import grader

    monkeypatch.setattr(grader, "_warned", set())
    evaluated = _model("evaluated", SUMMARY)
    sample = Sample(id="s", input="Summarize.", metadata={"documents": DOCS})
    scorer = booookscore(CoherenceJudging(mode="sentence", cache=False), model=evaluated)
    task = Task(dataset=MemoryDataset([sample]), solver=generate(), scorer=scorer)
    [log] = inspect_eval(task, model=evaluated, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert _scores(log)["booookscore"].metadata["self_judged"] is True
    assert _self_judging_warnings(log) == []


def test_the_warning_names_the_role_left_unbound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai.solver import generate

    from longform_evals.models import grader

    monkeypatch.setattr(grader, "_warned", set())
    sample = Sample(id="s", input="Summarize.", metadata={"documents": DOCS})
    scorer = faithfulness(judge_options={"model_role": "verifier", "cache": False})
    task = Task(dataset=MemoryDataset([sample]), solver=generate(), scorer=scorer)
    [log] = inspect_eval(
        task,
        model=_model("evaluated", SUMMARY),
        model_roles={"grader": _model("grader", "Yes")},  # bound, but not the role asked
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    [warning] = _self_judging_warnings(log)
    assert "--model-role verifier=<model>" in warning, warning
