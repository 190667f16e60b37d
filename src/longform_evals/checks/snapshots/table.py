"""The tasks with a snapshot: each task card that names a fixture, and the tasks left out."""

from __future__ import annotations

import importlib.util
import tempfile
from dataclasses import dataclass
from pathlib import Path

from longform_evals.checks.snapshots.store import SnapshotError
from longform_evals.tasks.card import TaskCard
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.snapshot_fixtures import SnapshotFixture


@dataclass(frozen=True)
class SnapshotTask:
    """A task with a snapshot: its card, and the fixture the card names
    (`longform_evals.tasks.snapshot_fixtures`)."""

    card: TaskCard
    fixture: SnapshotFixture

    @property
    def may_be_judged(self) -> bool:
        """Whether some arguments of the task call a judge (bound to the checks' judge)."""
        return self.card.judged_by != "nobody"


SNAPSHOT_TASKS: dict[str, SnapshotTask] = {
    name: SnapshotTask(card, card.snapshot)
    for name, card in TASK_CARDS.items()
    if card.snapshot is not None
}
"""The suite's tasks with a snapshot, by the name of their `tasks/` file."""

LEFT_OUT: dict[str, str] = {
    "hello": "the smoke task: two hard-coded questions scored by `includes`, which checks the "
    "call path and measures nothing of the suite",
    "judge_agreement": "it measures a judge against people's labels, which the package does not "
    "ship (the published files are read where the user has them); its figures are pinned by "
    "tests/tasks/test_judge_agreement_task.py and, for the embedded judge, by its judge cards",
}
"""`tasks/` files without a snapshot, and why."""


def spec(name: str) -> SnapshotTask:
    try:
        return SNAPSHOT_TASKS[name]
    except KeyError:
        raise SnapshotError(
            f"no snapshot task {name!r}; known: {', '.join(SNAPSHOT_TASKS)}"
        ) from None


def missing_modules(name: str) -> list[str]:
    """The modules task `name` needs that are not installed."""
    return [m for m in spec(name).fixture.needs if importlib.util.find_spec(m) is None]


def task_version(name: str) -> str:
    """The current `version` of task `name`, as a string."""
    entry = spec(name)
    with tempfile.TemporaryDirectory(prefix=f"snapshot-{name}-") as scratch:
        return str(entry.card.factory(**entry.fixture.args(Path(scratch))).version)
