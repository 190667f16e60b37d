"""Packaged judge cards: which card applies to a judge, kind and mode, reading one and its
headline, and the `judge_card` key every judged scorer writes into its score metadata.

The packaged folder is never written to: each test points the module's folder lookup at a
temporary folder holding cards written by hand in the shape `longform judge-card` writes.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from longform_evals.judges import cards
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.reports.judge_card import card_stem, headline_text, load_card
from longform_evals.scorers.booookscore import booookscore
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.llm_raters import llm_raters
from longform_evals.solvers import given_summary

QWEN = "gguf/qwen2.5-coder-1.5b"


def card(
    judge: str = QWEN,
    kind: str = "coherence",
    mode: str = "probe",
    value: float | None = 0.5812,
    low: float | None = 0.5204,
    high: float | None = 0.6331,
    n: int = 20,
    data_format: str = "booookscore",
) -> dict[str, Any]:
    """A card in the shape `reports/judge_card.card_from_log` gives (figures kept short)."""
    figure = {"value": value, "low": low, "high": high, "n": 120}
    return {
        "card_version": 1,
        "judge": judge,
        "kind": kind,
        "mode": mode,
        "calibration": {"source": "packaged coherence_probe_qwen2.5-coder-1.5b.json"},
        "settings": {},
        "data": {
            "path": "annotations.json",
            "format": data_format,
            "sha256": "0" * 64,
            "annotators": ["a", "b"],
            "summaries_judged": n,
            "summaries_unscored": 0,
            "summaries_in_data": n,
            "budget": None,
            "skipped": {"count": 0, "first": []},
        },
        "figures": {"figures": {"balanced_accuracy": figure}, "counts": {}, "bootstrap": {}},
        "headline": {"name": "balanced_accuracy", "label": "BACC", **figure},
        "date": "2025-01-01",
        "suite_version": "0.0.0",
        "task_version": "1.0.0",
        "log": "judge_agreement.eval",
    }


def write(folder: Path, made: dict[str, Any]) -> str:
    """Write ``made`` as `card_stem(made).json` into ``folder``; return the stem."""
    stem = card_stem(made)
    (folder / f"{stem}.json").write_text(json.dumps(made, indent=2), encoding="utf-8")
    return stem


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty card folder standing in for the packaged one."""
    path = tmp_path / "cards"
    path.mkdir()
    monkeypatch.setattr(cards, "_cards_folder", lambda: path)
    return path


def test_a_handmade_card_is_a_valid_card(folder: Path) -> None:
    stem = write(folder, card())
    assert stem == "gguf-qwen2.5-coder-1.5b__coherence__probe"
    load_card(folder / f"{stem}.json")  # the card command's own check


def test_card_name_matches_judge_kind_and_mode(folder: Path) -> None:
    probe = write(folder, card())
    faith = write(folder, card(kind="faithfulness", mode="llm-judge", data_format="planted"))
    assert cards.card_name(QWEN, "coherence", "probe") == probe
    assert cards.card_name(QWEN, "faithfulness", "llm-judge") == faith
    assert cards.card_name(QWEN, "coherence", "sentence") is None
    assert cards.card_name(QWEN, "faithfulness", "llm-judge_examples") is None


def test_a_replayed_judge_uses_the_card_of_the_model_it_stands_for(folder: Path) -> None:
    stem = write(folder, card())
    assert cards.card_name("replay/qwen2.5-coder-1.5b", "coherence", "probe") == stem
    # A card made from the replay applies to the live model as well.
    replayed = write(folder, card(judge="replay/qwen2.5-coder-1.5b", mode="fitted"))
    assert cards.card_name(QWEN, "coherence", "fitted") == replayed
    # The judge's own card wins over one matched through a replay.
    own = write(folder, card(judge="replay/qwen2.5-coder-1.5b"))
    assert cards.card_name("replay/qwen2.5-coder-1.5b", "coherence", "probe") == own
    assert cards.card_name(QWEN, "coherence", "probe") == stem


def test_an_unknown_judge_has_no_card(folder: Path) -> None:
    write(folder, card())
    assert cards.card_name("openai/qwen2.5-coder-1.5b", "coherence", "probe") is None
    assert cards.card_name("scripted/judge", "coherence", "probe") is None
    assert cards.card_name("replay/other-model", "coherence", "probe") is None
    with pytest.raises(ValueError, match="kind 'raters'"):
        cards.card_name(QWEN, "raters", "calibrated")


def test_no_folder_means_no_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cards, "_cards_folder", lambda: tmp_path / "absent")
    assert cards.card_name(QWEN, "coherence", "probe") is None


def test_faithfulness_mode_is_named_as_the_card_command_names_it() -> None:
    assert cards.faithfulness_mode("llm", "judge") == "llm-judge"
    assert cards.faithfulness_mode("minicheck-roberta-large", None) == "minicheck-roberta-large"


def test_packaged_card_and_its_headline(folder: Path) -> None:
    stem = write(folder, card())
    assert cards.packaged_card(stem)["judge"] == QWEN
    assert cards.card_headline(stem) == "BACC 0.58 [0.52, 0.63] on 20 summaries (booookscore)"
    with pytest.raises(FileNotFoundError, match="no packaged judge card"):
        cards.packaged_card("gguf-absent__coherence__probe")
    with pytest.raises(FileNotFoundError):
        cards.packaged_card("../calibration/faithfulness_qwen2.5-coder-1.5b")


@pytest.mark.parametrize(
    "made",
    [
        card(),
        card(n=1),
        card(value=None, low=None, high=None),
        card(low=None, high=None),
        # A card without a label: the figure's short name is looked up.
        {**card(), "headline": {"name": "balanced_accuracy", "value": 0.5, "low": 0.4, "high": 1}},
    ],
)
def test_the_headline_is_the_card_commands_headline(made: dict[str, Any]) -> None:
    # judges/cards.py repeats reports/judge_card.headline_text (judges may not import
    # reports): the two must not drift apart.
    assert cards.headline_of(made) == headline_text(made)


def test_a_malformed_card_is_named(folder: Path) -> None:
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.json is not a judge card"):
        cards.card_name(QWEN, "coherence", "probe")
    (folder / "broken.json").write_text(json.dumps({"judge": QWEN}), encoding="utf-8")
    with pytest.raises(ValueError, match="missing kind, mode, headline, data"):
        cards.packaged_card("broken")


def test_every_packaged_card_is_valid_and_named_after_itself() -> None:
    folder = cards._cards_folder()
    assert folder.is_dir()
    for entry in folder.iterdir():
        if not entry.name.endswith(".json"):
            continue
        with resources.as_file(entry) as path:
            made = load_card(path)
        stem = entry.name.removesuffix(".json")
        assert stem == card_stem(made)
        assert cards.card_name(str(made["judge"]), str(made["kind"]), str(made["mode"])) == stem
        assert cards.card_headline(stem) == headline_text(made)


# --- what the scorers record ------------------------------------------------------------

SUMMARY = "Ada keeps the lighthouse. A storm wrecks a ship."
DOCS = ["Ada keeps the lighthouse on Gull Rock.", "A storm wrecks a ship near the rock."]


def _metadata(log: EvalLog, scorer: str) -> dict[str, Any]:
    assert log.status == "success", log.error
    assert log.samples and log.samples[0].scores
    return dict(log.samples[0].scores[scorer].metadata or {})


def _booookscore(tmp_path: Path) -> dict[str, Any]:
    sample = Sample(id="s", input="x", metadata={"summary": SUMMARY})
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=given_summary(),
        scorer=booookscore(CoherenceJudging(mode="sentence")),
    )
    judge = get_model(
        "scripted/judge",
        rules=[{"pattern": "Sentence to judge", "response": "No confusion."}],
        memoize=False,
    )
    [log] = inspect_eval(task, model=judge, log_dir=str(tmp_path), display="none")
    return _metadata(log, "booookscore")


def _faithfulness(tmp_path: Path, **options: Any) -> dict[str, Any]:
    sample = Sample(id="s", input="x", metadata={"documents": DOCS, "summary": SUMMARY})
    scorer = faithfulness(**options)
    task = Task(dataset=MemoryDataset([sample]), solver=given_summary(), scorer=scorer)
    judge = get_model(
        "scripted/judge", rules=[{"pattern": "<statement>", "response": "Yes."}], memoize=False
    )
    [log] = inspect_eval(task, model=judge, log_dir=str(tmp_path), display="none")
    return _metadata(log, "faithfulness")


def test_booookscore_records_its_card(folder: Path, tmp_path: Path) -> None:
    meta = _booookscore(tmp_path / "none")
    assert "judge_card" in meta and meta["judge_card"] is None
    stem = write(folder, card(judge="scripted/judge", mode="sentence"))
    assert _booookscore(tmp_path / "card")["judge_card"] == stem


def test_faithfulness_records_its_card(folder: Path, tmp_path: Path) -> None:
    meta = _faithfulness(tmp_path / "none")
    assert "judge_card" in meta and meta["judge_card"] is None
    stem = write(folder, card(judge="scripted/judge", kind="faithfulness", mode="llm-judge"))
    meta = _faithfulness(tmp_path / "card")
    assert meta["judge_card"] == stem and meta["prompt"] == "judge"
    # The card measures the packaged thresholds and chunking: with others, it does not apply.
    assert _faithfulness(tmp_path / "threshold", threshold=0.3)["judge_card"] is None
    assert _faithfulness(tmp_path / "chunking", chunking="words:5")["judge_card"] is None


def test_a_coherence_card_does_not_apply_under_another_threshold(
    folder: Path, tmp_path: Path
) -> None:
    import asyncio

    write(folder, card(judge="scripted/judge", mode="probe"))
    judge = get_model("scripted/judge", rules=[{"pattern": ".", "response": "No"}], memoize=False)
    _, _, own = asyncio.run(CoherenceJudging(mode="probe").judge(judge, ["One.", "Two."]))
    assert own["judge_card"] == "scripted-judge__coherence__probe"
    _, _, other = asyncio.run(
        CoherenceJudging(mode="probe", threshold=0.2).judge(judge, ["One.", "Two."])
    )
    assert other["judge_card"] is None


def test_llm_raters_say_no_card(tmp_path: Path) -> None:
    sample = Sample(id="s", input="Where? ANSWER=in the chapel", target=["in the chapel"])
    task = Task(dataset=MemoryDataset([sample]), solver=generate(), scorer=llm_raters())
    reader = get_model(
        "scripted/reader", rules=[{"pattern": r"ANSWER=(.*)$", "response": r"\1"}], memoize=False
    )
    grader = get_model(
        "scripted/grader", rules=[{"pattern": "<reference>", "response": "YES"}], memoize=False
    )
    [log] = inspect_eval(
        task,
        model=reader,
        model_roles={"grader": grader},
        log_dir=str(tmp_path),
        display="none",
    )
    meta = _metadata(log, "llm_raters")
    assert "judge_card" in meta and meta["judge_card"] is None
