"""The judge-agreement task end to end with a scripted judge on hand-made labelled data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from helpers import BOOKS, FAITH_RULES, SENTENCE_RULES, figures, write_longsciverify
from longform_evals.tasks.judge_agreement import judge_agreement


def _run(tmp_path: Path, rules: list[dict[str, Any]], **task_args: Any) -> EvalLog:
    [log] = inspect_eval(
        judge_agreement(**task_args),
        model=get_model("scripted/judge", rules=json.dumps(rules)),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    return figures(log)


def _coherence_data(tmp_path: Path) -> Path:
    path = tmp_path / "summary-gpt4-4096-hier.json"
    path.write_text(json.dumps(BOOKS), encoding="utf-8")
    return path


def test_coherence_agreement_figures_and_unit_rows(tmp_path: Path) -> None:
    data = _coherence_data(tmp_path)
    log = _run(tmp_path, SENTENCE_RULES, kind="coherence", data=str(data), mode="sentence")
    m = _metrics(log)
    # People flagged 3 of 7 sentences; the judge the 2 with "Zorb", both flagged by people.
    assert m["summaries/agreement_card_precision"] == 1.0
    assert m["summaries/agreement_card_recall"] == pytest.approx(2 / 3)
    assert m["summaries/agreement_card_human_flag_rate"] == pytest.approx(3 / 7)
    assert m["summaries/agreement_card_judge_flag_rate"] == pytest.approx(2 / 7)
    assert m["units/count"] == 7.0
    assert m["unjudged_units/count"] == 0.0
    low, high = m["summaries/agreement_card_recall_low"], m["summaries/agreement_card_recall_high"]
    assert low <= m["summaries/agreement_card_recall"] <= high
    assert log.samples is not None
    by_id = {str(s.id): s for s in log.samples}
    ship = by_id["booookscore/gpt4-4096-hier/ship.epub"].scores["judge_agreement"]  # type: ignore[index]
    assert ship.metadata is not None
    units = ship.metadata["units"]
    assert [u["human"]["annotators"] for u in units] == [0, 1, 0, 1]
    assert [u["judge_flag"] for u in units] == [False, True, False, False]
    assert ship.metadata["mode"] == "sentence"
    assert log.eval.metadata is not None
    assert log.eval.metadata["format"] == "booookscore"


def test_a_judge_that_flags_nothing_is_not_rewarded(tmp_path: Path) -> None:
    data = _coherence_data(tmp_path)
    rules = [{"default": "No confusion."}]
    m = _metrics(_run(tmp_path, rules, kind="coherence", data=str(data), mode="sentence"))
    assert m["summaries/agreement_card_recall"] == 0.0
    assert m["summaries/agreement_card_balanced_accuracy"] == 0.5
    assert m["summaries/agreement_card_kappa_judge_mean"] == 0.0


def test_unreadable_verdicts_are_counted_not_dropped(tmp_path: Path) -> None:
    data = _coherence_data(tmp_path)
    rules = [
        {
            "pattern": r"(?s)Sentence to judge:\s*<sentence>[^<]*Zorb",
            "where": "all",
            "response": "maybe?",
        },
        {"default": "No confusion."},
    ]
    m = _metrics(_run(tmp_path, rules, kind="coherence", data=str(data), mode="sentence"))
    assert m["unjudged_units/count"] == 2.0
    assert m["units/count"] == 7.0


def test_faithfulness_agreement_on_longsciverify_rows(tmp_path: Path) -> None:
    data = write_longsciverify(tmp_path / "LongSciVerify")
    log = _run(tmp_path, FAITH_RULES, kind="faithfulness", data=str(data), threshold=0.5)
    m = _metrics(log)
    assert m["summaries/agreement_card_precision"] == 1.0
    assert m["summaries/agreement_card_recall"] == 1.0
    assert m["summaries/agreement_card_roc_auc"] == 1.0
    # Three reviewers who agree everywhere: their own kappa is 1.
    assert m["summaries/agreement_card_kappa_annotators_mean"] == 1.0
    # 3 + 3 + 1 rated sentences; the unrated fourth sentence of dancersum is not asked.
    assert m["rated_units/count"] == 7.0
    assert log.samples is not None
    dancer = next(s for s in log.samples if str(s.id).endswith("dancersum"))
    meta = dancer.scores["judge_agreement"].metadata  # type: ignore[index]
    assert meta is not None
    assert [u["judge_flag"] for u in meta["units"]] == [False, True, False, None]


def test_wrong_kind_missing_data_and_sourceless_faithfulness_are_errors(tmp_path: Path) -> None:
    data = _coherence_data(tmp_path)
    with pytest.raises(ValueError, match="coherence"):
        judge_agreement(kind="faithfulness", data=str(data))
    with pytest.raises(ValueError, match="needs -T data"):
        judge_agreement(kind="coherence")
    with pytest.raises(
        ValueError, match="kind='fluency': Input should be 'coherence' or 'faithfulness'"
    ):
        judge_agreement(kind="fluency", data=str(data))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="budget"):
        judge_agreement(kind="coherence", data=str(data), budget=0)


def test_budget_keeps_the_same_summaries(tmp_path: Path) -> None:
    data = _coherence_data(tmp_path)
    first = [s.id for s in judge_agreement(kind="coherence", data=str(data), budget=1).dataset]
    again = [s.id for s in judge_agreement(kind="coherence", data=str(data), budget=1).dataset]
    assert first == again and len(first) == 1


def test_summary_level_rows_keep_their_agreement_rows(tmp_path: Path) -> None:
    """LongFormFact qmsum/multinews rows label whole summaries: the judge's own metadata (the
    faithfulness score's source `units`) must not replace the agreement rows."""
    docs = ["The council met on Monday and approved the budget after a long debate."]
    rows = [
        {"documents": docs, "document": docs[0], "summary": summary, "faithfulness": label,
         "model": f"m{i}"}
        for i, (summary, label) in enumerate(
            [("The council approved the budget.", 1), ("The council wrong rejected it.", 0)]
        )
    ]  # fmt: skip
    path = tmp_path / "qmsum.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    log = _run(tmp_path, FAITH_RULES, kind="faithfulness", data=str(path), threshold=0.5)
    assert log.samples is not None
    for sample in log.samples:
        meta = sample.scores["judge_agreement"].metadata  # type: ignore[index]
        assert meta is not None
        [unit] = meta["units"]
        assert set(unit) >= {"human", "judge_flag", "judge_p"}
        assert meta["source_units"][0]["doc_index"] == 0
    m = _metrics(log)
    assert m["summaries/agreement_card_recall"] == 1.0
    assert m["summaries/agreement_card_precision"] == 1.0
