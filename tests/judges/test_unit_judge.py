"""The unit-judge shape: both judge tables give their verdicts as UnitVerdict, and the judge
objects the scorers take are recorded in an eval log as mappings they are rebuilt from."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from inspect_ai._util.registry import registry_params
from inspect_ai.model import get_model
from inspect_ai.solver import TaskState

from longform_evals.judges.agreement_judge import AgreementJudge
from longform_evals.judges.coherence.judges import (
    CoherenceJudging,
    CoherenceUnitJudge,
    coherence_modes,
    unit_verdict,
)
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.faithfulness.judging import FaithfulnessJudging
from longform_evals.judges.faithfulness.support import SupportJudgement
from longform_evals.judges.registry import judge_names
from longform_evals.judges.unit_judge import UnitVerdict, support_verdict
from longform_evals.scorers.booookscore import booookscore
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.judge_agreement import judge_agreement


def test_a_coherence_verdict_in_the_unit_shape() -> None:
    clean = SentenceVerdict(0, "A.", parsed=True, confused=False, p_confusion=0.1)
    assert unit_verdict(clean) == UnitVerdict(False, 0.1, True, "No confusion")
    confused = SentenceVerdict(
        1, "B.", parsed=True, confused=True, questions=["Who?"], types=["entity_omission"]
    )
    shaped = unit_verdict(confused)
    assert (shaped.flag, shaped.probability, shaped.readable) == (True, None, True)
    assert shaped.answer == "Question: Who?\nTypes: entity_omission"
    unread = unit_verdict(SentenceVerdict(2, "C.", problems=["the answer is empty"]))
    assert unread == UnitVerdict(None, None, False, "the answer is empty")


def test_a_support_judgement_in_the_unit_shape() -> None:
    assert SupportJudgement(0.2, "logprobs", "No").verdict(0.5) == UnitVerdict(
        True, 0.8, True, "No"
    )
    assert support_verdict(0.5, 0.5).flag is False  # at the threshold: supported
    assert SupportJudgement(None, "missing", "??").verdict(0.5) == UnitVerdict(
        None, None, False, "??"
    )


def test_the_coherence_table_as_a_unit_judge() -> None:
    model = get_model("scripted/judge", rules=[{"pattern": ".", "response": "No confusion."}])
    judge = CoherenceUnitJudge(CoherenceJudging(mode="sentence", cache=False), model)
    state = TaskState(model.name, "s", 0, "x", [])  # type: ignore[arg-type]
    judged = asyncio.run(judge.judge_units(state, ["One sentence.", "Two sentences."]))
    assert [v.flag for v in judged.verdicts] == [False, False]
    assert judged.scores == [1.0, 1.0]
    assert judged.metadata["mode"] == "sentence" and judged.metadata["judge_calls"] == 2


def test_every_coherence_mode_is_a_registered_judge() -> None:
    assert set(coherence_modes()) == {"auto", *judge_names("coherence")}


@pytest.mark.parametrize(
    "judge",
    [CoherenceJudging(mode="batched", batch_size=4, layout="numbered"), CoherenceJudging()],
)
def test_the_booookscore_judge_is_logged_as_a_mapping_it_is_rebuilt_from(
    judge: CoherenceJudging,
) -> None:
    logged: dict[str, Any] = registry_params(booookscore(judge))
    assert logged["judge"] == judge._repr_params_()
    assert CoherenceJudging.of(logged["judge"]) == judge
    booookscore(**logged)  # what `inspect score LOG` does with the logged arguments


def test_the_agreement_judge_is_logged_as_a_mapping_it_is_rebuilt_from() -> None:
    judge = AgreementJudge(kind="faithfulness", threshold=0.3, chunking="words:50")
    logged: dict[str, Any] = registry_params(judge_agreement(judge))
    assert AgreementJudge.of(logged["judge"]) == judge
    judge_agreement(**logged)


def test_the_agreement_judge_builds_the_unit_judge_of_its_kind() -> None:
    assert isinstance(AgreementJudge().unit_judge(), CoherenceUnitJudge)
    faithful = AgreementJudge(kind="faithfulness").unit_judge()
    assert isinstance(faithful, FaithfulnessJudging)


def test_the_agreement_judge_judges_faithfulness_as_the_scorer_does_by_default() -> None:
    """`AgreementJudge.faithfulness` passes every argument of the scorer's judging; those its
    fields leave unset are the scorer's defaults."""
    defaults = {name: p.default for name, p in inspect.signature(faithfulness).parameters.items()}
    judging = AgreementJudge(kind="faithfulness").faithfulness()
    assert judging.judge_name == defaults["judge"]
    assert judging.doc_merge == defaults["doc_merge"]
    assert judging.sentence_merge == defaults["sentence_merge"]
    assert judging.chunking == defaults["chunking"]
    assert judging.include_full == defaults["include_full"]
    assert judging.threshold == defaults["threshold"]


def test_judge_objects_refuse_unknown_fields_and_values() -> None:
    with pytest.raises(ValueError, match="unknown coherence judge fields"):
        CoherenceJudging.of({"modes": "probe"})
    with pytest.raises(ValueError, match="unknown judge fields"):
        AgreementJudge.of({"judge": "llm"})
    with pytest.raises(ValueError, match="unknown kind"):
        AgreementJudge(kind="fluency")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown mode"):
        AgreementJudge(mode="guess").unit_judge()  # type: ignore[arg-type]
