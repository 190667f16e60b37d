"""The leaderboard's `judge card` column: the headline of the packaged card the row's scores
name (`judge_card` in their metadata), `no card` for a judged row without one, `no judge` for
an unjudged task, in every output (markdown, CSV, JSON, HTML).

Logs are made by small evals with scripted models; the card folder is a temporary one the
card lookup is pointed at, never the packaged folder.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import match

from longform_evals.judges import cards
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.reports.judge_card import card_stem
from longform_evals.reports.leaderboard import (
    NO_CARD,
    NO_JUDGE,
    Leaderboard,
    build_leaderboard,
    card_notes,
    judge_card_text,
)
from longform_evals.reports.leaderboard_render import to_csv, to_html, to_json, to_markdown
from longform_evals.scorers.booookscore import booookscore
from longform_evals.solvers import given_summary

SUMMARY = "Ada keeps the lighthouse. A storm wrecks a ship."
HEADLINE = "BACC 0.58 [0.52, 0.63] on 20 summaries (booookscore)"


def _card(judge: str, mode: str) -> dict[str, Any]:
    figure = {"value": 0.5812, "low": 0.5204, "high": 0.6331, "n": 120}
    return {
        "card_version": 1,
        "judge": judge,
        "kind": "coherence",
        "mode": mode,
        "calibration": {},
        "data": {"path": "a.json", "format": "booookscore", "sha256": None, "summaries_judged": 20},
        "figures": {"figures": {"balanced_accuracy": figure}},
        "headline": {"name": "balanced_accuracy", "label": "BACC", **figure},
        "date": "2025-01-01",
        "suite_version": "0.0.0",
        "task_version": "1",
        "log": "x.eval",
    }


@pytest.fixture
def card_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A card folder with the card of `scripted/judge` in `sentence` mode, looked up in place
    of the packaged one."""
    folder = tmp_path / "cards"
    folder.mkdir()
    made = _card("scripted/judge", "sentence")
    (folder / f"{card_stem(made)}.json").write_text(json.dumps(made), encoding="utf-8")
    monkeypatch.setattr(cards, "_cards_folder", lambda: folder)
    return folder


def _judge(name: str) -> Any:
    return get_model(
        name, rules=[{"pattern": "Sentence to judge", "response": "No confusion."}], memoize=False
    )


@pytest.fixture
def board(card_folder: Path, tmp_path: Path) -> Leaderboard:
    """Logs of three rows: BooookScore judged by the carded judge and by another one, and an
    unjudged QuALITY-named task."""
    logs = tmp_path / "logs"
    samples = [Sample(id=f"s{i}", input="x", metadata={"summary": SUMMARY}) for i in range(2)]
    writer = get_model("scripted/writer", memoize=False)
    for grader in ("scripted/judge", "scripted/other"):
        task = Task(
            dataset=MemoryDataset(samples),
            solver=given_summary(),
            scorer=booookscore(CoherenceJudging(mode="sentence")),
            name="booookscore",
        )
        [log] = inspect_eval(
            task,
            model=writer,
            model_roles={"grader": _judge(grader)},
            log_dir=str(logs),
            display="none",
        )
        assert log.status == "success", log.error
    quality = Task(
        dataset=MemoryDataset([Sample(id="q", input="x", target="A", metadata={"summary": "A"})]),
        solver=given_summary(),
        scorer=match(),
        name="quality",
    )
    [log] = inspect_eval(quality, model=writer, log_dir=str(logs), display="none")
    assert log.status == "success", log.error
    return build_leaderboard(logs)


def _by_judge(board: Leaderboard) -> dict[str, str]:
    return {f"{r.task}:{r.judge}": r.judge_card for r in board.rows}


def test_rows_show_the_card_headline_or_say_there_is_none(board: Leaderboard) -> None:
    assert _by_judge(board) == {
        "booookscore:scripted/judge": HEADLINE,
        "booookscore:scripted/other": NO_CARD,
        "quality:None": NO_JUDGE,
    }
    judged = next(r for r in board.rows if r.judge == "scripted/judge")
    assert judged.judge_card_names == ["scripted-judge__coherence__sentence"]
    # The calibration-based quality line stays beside the card.
    assert judged.judge_quality
    assert not any("judge cards" in n for n in board.notes)


def test_every_output_shows_the_column(board: Leaderboard) -> None:
    markdown = to_markdown(board)
    header = next(line for line in markdown.splitlines() if line.startswith("| rank"))
    assert "| judge card |" in header
    assert f"| {HEADLINE} |" in markdown and f"| {NO_CARD} |" in markdown
    assert f"| {NO_JUDGE} |" in markdown

    rows = list(csv.DictReader(io.StringIO(to_csv(board))))
    assert {r["judge"]: r["judge_card"] for r in rows if r["metric"] == "BooookScore"} == {
        "scripted/judge": HEADLINE,
        "scripted/other": NO_CARD,
    }

    records = json.loads(to_json(board))["rows"]
    shown = {(r["task"], r["judge"]): (r["judge_card"], r["judge_card_name"]) for r in records}
    assert shown[("booookscore", "scripted/judge")] == (
        HEADLINE,
        "scripted-judge__coherence__sentence",
    )
    assert shown[("booookscore", "scripted/other")] == (NO_CARD, None)
    assert shown[("quality", None)] == (NO_JUDGE, None)

    page = to_html(board, "logs")
    assert "<th>judge card</th>" in page
    # The headline links to the card, which the page holds under that anchor.
    anchor = "judge-card-scripted-judge__coherence__sentence"
    assert f'data-value="{HEADLINE}"><a class="card" href="#{anchor}">{HEADLINE}</a></td>' in page
    assert page.count(f'id="{anchor}"') == 1
    assert f">{NO_CARD}</td>" in page and f">{NO_JUDGE}</td>" in page


def test_the_card_column_from_the_names_samples_give(card_folder: Path) -> None:
    stem = "scripted-judge__coherence__sentence"
    assert judge_card_text("booookscore", [stem], recorded=True) == HEADLINE
    assert judge_card_text("booookscore", [None], recorded=True) == NO_CARD
    # An older log whose scores say nothing about cards: judged, but no card is known.
    assert judge_card_text("booookscore", [], recorded=False) == NO_CARD
    assert judge_card_text("quality", [], recorded=False) == NO_JUDGE
    # Samples that disagree: the first is shown (build_leaderboard adds a note).
    assert judge_card_text("booookscore", [None, stem], recorded=True) == NO_CARD
    assert judge_card_text("booookscore", ["gone__coherence__probe"], recorded=True) == (
        "card gone__coherence__probe not packaged"
    )


def test_samples_naming_different_cards_are_noted(board: Leaderboard) -> None:
    row = next(r for r in board.rows if r.judge == "scripted/judge")
    row.judge_card_names = ["scripted-judge__coherence__sentence", None]
    assert card_notes(board.rows) == [
        "booookscore / scripted/writer: samples name different judge cards "
        "(scripted-judge__coherence__sentence, no card); the first is shown"
    ]
