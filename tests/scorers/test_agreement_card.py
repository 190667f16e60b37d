"""`agreement_card`, the judge-agreement scorer's metric: computed again from a log's per-sample
scores it gives the figures Inspect logged, and its bootstrap settings move only the intervals."""

from __future__ import annotations

import json
import math
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.scorer import SampleScore

from helpers import BOOKS, SENTENCE_RULES
from longform_evals.scorers.judge_agreement_metrics import HEADLINE, agreement_card
from longform_evals.scorers.results import result_values
from longform_evals.tasks.judge_agreement import judge_agreement


def _log(tmp_path: Path) -> EvalLog:
    data = tmp_path / "summary-gpt4-4096-hier.json"
    data.write_text(json.dumps(BOOKS), encoding="utf-8")
    [log] = inspect_eval(
        judge_agreement(kind="coherence", data=str(data), mode="sentence"),
        model=get_model("scripted/judge", rules=json.dumps(SENTENCE_RULES)),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _sample_scores(log: EvalLog) -> list[SampleScore]:
    assert log.samples
    return [
        SampleScore(
            score=s.scores["judge_agreement"],  # type: ignore[index]
            sample_id=s.id,
            sample_metadata=s.metadata,
        )
        for s in log.samples
    ]


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_the_metric_recomputes_the_logged_figures(tmp_path: Path) -> None:
    log = _log(tmp_path)
    assert log.results is not None
    logged = {
        name.removeprefix("agreement_card_"): value
        for name, value in result_values(log.results.scores)[
            ("judge_agreement", "summaries")
        ].items()
        if name.startswith("agreement_card_")
    }

    figures = agreement_card()(_sample_scores(log))
    assert isinstance(figures, dict)
    assert set(figures) == set(logged)
    assert {f"{n}{end}" for n in HEADLINE for end in ("", "_low", "_high")} >= set(figures)
    assert all(_same(float(figures[k]), logged[k]) for k in figures), (figures, logged)
    assert figures["precision"] == 1.0  # the scripted judge flags only sentences people flagged


def test_bootstrap_settings_move_only_the_intervals(tmp_path: Path) -> None:
    scores = _sample_scores(_log(tmp_path))
    default = agreement_card()(scores)
    other = agreement_card(n_boot=50, seed=3)(scores)
    assert isinstance(default, dict) and isinstance(other, dict)
    points = [k for k in default if not k.endswith(("_low", "_high"))]
    assert points and all(_same(float(default[k]), float(other[k])) for k in points)
