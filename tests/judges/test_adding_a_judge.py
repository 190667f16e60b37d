"""Adding a judge (docs/architecture.md, "How to add a judge"): a coherence judge is one module
and one registered entry (`judges/registry.py`), a faithfulness judge likewise, plus a test.
Throwaway judges registered here are offered by every consumer at once: the scorers and tasks
that take a mode or a judge name, the plan check and `longform judge-card`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from helpers import BOOKS, figures, judges_added, write_longsciverify
from longform_evals.cli.judge_card import _run_args
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.faithfulness.calibration import JudgeCalibration
from longform_evals.judges.faithfulness.support import (
    JudgeOptions,
    JudgeSetup,
    SupportJudgement,
)
from longform_evals.runs.catalogue import check_task_args
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.judge_agreement import judge_agreement

# --- a coherence judge: its module would hold this call site ---


async def zorb_spotter(
    options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
) -> tuple[list[SentenceVerdict], int]:
    """Flags every sentence naming Zorb, whom no summary introduces (no model call)."""
    extra["calibration"] = "none (a word list)"
    verdicts = [
        SentenceVerdict(index=i, sentence=s, parsed=True, confused="Zorb" in s)
        for i, s in enumerate(sentences)
    ]
    return verdicts, 0


# --- a faithfulness judge: its module would hold this class ---

_WORD = re.compile(r"\w+")


class WordOverlapJudge:
    """Support = the share of a sentence's words that the text contains (no model call)."""

    def __init__(self, options: JudgeOptions) -> None:
        self.options = options

    def setup(self) -> JudgeSetup:
        return JudgeSetup("word_overlap", JudgeCalibration("none (word overlap)"), None, "natural")

    async def support_rows(
        self, setup: JudgeSetup, texts: list[str], sentences: list[str]
    ) -> list[list[SupportJudgement]]:
        if not texts or not sentences:
            raise ValueError("nothing to judge")
        rows = []
        for text in texts:
            seen = set(_WORD.findall(text.lower()))
            row = []
            for sentence in sentences:
                words = _WORD.findall(sentence.lower())
                share = sum(w in seen for w in words) / max(1, len(words))
                row.append(SupportJudgement(share, "words", f"{share:.2f}"))
            rows.append(row)
        return rows


@pytest.fixture
def added() -> Iterator[None]:
    with (
        judges_added("coherence", zorb_spotter=zorb_spotter),
        judges_added("faithfulness", word_overlap=WordOverlapJudge),
    ):
        yield


def _run(task: Task, tmp_path: Path) -> EvalLog:
    [log] = inspect_eval(
        task, model="scripted/x", model_args={"default_response": "unused"},
        log_dir=str(tmp_path / "logs"), display="none",
    )  # fmt: skip
    assert log.status == "success", log.error
    return log


def _metric(log: EvalLog, name: str) -> float:
    """Result `name` of any value (`agreement_card_precision`), as the surfaces read it."""
    return next(v for k, v in figures(log).items() if k.split("/")[-1] == name)


def test_a_coherence_judge_is_a_mode_of_every_consumer(added: None, tmp_path: Path) -> None:
    summaries = tmp_path / "s.jsonl"
    summaries.write_text(json.dumps({"id": "a", "summary": "Mara rows. Zorb waves."}) + "\n")
    log = _run(
        booookscore(score_only=True, data=str(summaries), judge_mode="zorb_spotter"), tmp_path
    )
    assert log.samples and log.samples[0].scores
    value = log.samples[0].scores["booookscore"].value
    assert isinstance(value, dict) and value["booookscore"] == 50.0  # percent
    data = tmp_path / "summary-gpt4-4096-hier.json"
    data.write_text(json.dumps(BOOKS), encoding="utf-8")
    agreement = _run(
        judge_agreement(kind="coherence", data=str(data), mode="zorb_spotter"), tmp_path
    )
    assert _metric(agreement, "agreement_card_precision") == 1.0  # people flag each Zorb too
    assert check_task_args("booookscore", {"judge_mode": "zorb_spotter"}, tmp_path)
    args = _run_args("grader", "coherence", str(data), "zorb_spotter", None, ())
    assert args["mode"] == "zorb_spotter"


def test_an_unknown_coherence_mode_is_refused_everywhere(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown mode 'zorb_spotter'; expected one of auto, "):
        booookscore(judge_mode="zorb_spotter")
    with pytest.raises(ValueError, match="unknown mode 'zorb_spotter'"):
        check_task_args("booookscore", {"judge_mode": "zorb_spotter"}, tmp_path)
    with pytest.raises(Exception, match="unknown mode 'zorb_spotter'"):
        _run_args("grader", "coherence", "data.json", "zorb_spotter", None, ())


def test_a_faithfulness_judge_is_a_judge_name_of_every_consumer(
    added: None, tmp_path: Path
) -> None:
    sample = Sample(
        id="s",
        input="Summarize.",
        metadata={"documents": ["The lattice is stable."], "summary": "The lattice is stable."},
    )
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=given_summary(),
        scorer=faithfulness(judge="word_overlap"),
    )
    log = _run(task, tmp_path)
    assert log.samples and log.samples[0].scores
    value = log.samples[0].scores["faithfulness"].value
    assert isinstance(value, dict) and value["faithfulness"] == 1.0
    data = write_longsciverify(tmp_path / "LongSciVerify")
    agreement = _run(
        judge_agreement(kind="faithfulness", data=str(data), judge="word_overlap", threshold=0.9),
        tmp_path,
    )
    assert _metric(agreement, "agreement_card_judge_flag_rate") < 1.0


def test_an_unknown_faithfulness_judge_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown faithfulness judge 'word_overlap'"):
        faithfulness(judge="word_overlap")
