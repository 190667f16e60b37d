"""The task cards: one per task, read by every consumer, and nothing else keeps a list of tasks."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from helpers import task_functions
from longform_evals.checks.snapshots import SNAPSHOT_TASKS
from longform_evals.inspect_private import registry_unqualified_name
from longform_evals.lmeval.catalogue import TASKS as LMEVAL_TASKS
from longform_evals.reports.leaderboard import HEADLINES, bound_judge
from longform_evals.tasks.cards import TASK_CARDS, task_card

SRC = Path(__file__).resolve().parents[2] / "src" / "longform_evals"
WITHOUT_CARD = {"hello_longform", "judge_agreement"}
"""The smoke task and the judge-against-people task, which has its own command."""


def test_every_task_has_a_card_named_like_its_function() -> None:
    functions = {n for f in (SRC / "tasks").glob("*.py") for n in task_functions(f)}
    assert set(TASK_CARDS) == functions - WITHOUT_CARD
    for name, card in TASK_CARDS.items():
        assert card.name == name == card.factory.__name__


def test_the_consumers_read_the_cards() -> None:
    assert {n: list(c.headlines) for n, c in TASK_CARDS.items()} == HEADLINES
    assert {n for n, c in TASK_CARDS.items() if c.lm_eval} == set(LMEVAL_TASKS)
    assert all(LMEVAL_TASKS[n] is TASK_CARDS[n] for n in LMEVAL_TASKS)


def test_no_module_outside_the_tasks_names_a_task_in_a_condition() -> None:
    found = [
        f"{path.relative_to(SRC)}:{i}: {line.strip()}"
        for path in SRC.rglob("*.py")
        if path.parent.name != "tasks"
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\btask\s*[!=]=\s*[\"']", line)
    ]
    assert not found, found


@pytest.mark.parametrize(
    ("task", "args", "judged"),
    [
        ("booksum", {}, False),
        ("booksum", {"coherence": True}, True),
        ("squality", {"coherence": "true"}, True),  # as a log's task arguments store it
        ("squality", {"coherence": "False"}, False),
        ("quality", {}, False),
        ("narrativeqa", {}, True),
        ("booookscore", {}, True),
        ("longformfact", {}, True),
    ],
)
def test_whether_a_run_is_judged_is_one_answer_everywhere(
    task: str, args: dict[str, object], judged: bool
) -> None:
    card = task_card(task)
    assert card.judged(args) is judged
    roles = {"grader": {"model": "openai/judge"}}
    assert (bound_judge(task, args, roles) is not None) is judged


def test_an_unknown_task_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown task 'nosuch'; known: booookscore"):
        task_card("nosuch")


@pytest.mark.parametrize("task", sorted(set(SNAPSHOT_TASKS) & set(TASK_CARDS)))
def test_each_headline_names_a_scorer_the_task_runs(task: str) -> None:
    entry = SNAPSHOT_TASKS[task]
    with tempfile.TemporaryDirectory() as scratch:
        built = entry.card.factory(**entry.fixture.args(Path(scratch)))
    scorers = built.scorer if isinstance(built.scorer, list) else [built.scorer]
    names = {registry_unqualified_name(s) for s in scorers if s}
    card = TASK_CARDS[task]
    optional = {"booookscore"} if card.judged_when.__name__ == "with_coherence" else set()
    assert {h.scorer for h in card.headlines} - optional <= names, names
