"""Metric snapshots: the values each task of the suite gives on its bundled fixtures with
deterministic models, stored in `tests/snapshots/<task>.json`, so that a change of any value
shows as a diff.

    longform snapshot                    # compare every task
    longform snapshot --update quality   # write / refresh one
    longform snapshot --update --record gguf/qwen2.5-coder-1.5b qmsum

The rule: a task's values may only change together with its `version`. `compare` runs a task
and sets its values beside the stored ones; `update` writes them, and refuses while the values
differ from the stored ones and the task's version equals the stored version. So a change of a
scorer, a prompt or a data loader that moves a number needs the task's version raised in the
same change, and the snapshot rewritten with `--update`.

Every task of `tasks/` has an entry in :data:`SNAPSHOT_TASKS` (:data:`LEFT_OUT` says which are
not and why), made from its task card and the fixture the card names
(`longform_evals.tasks.snapshot_fixtures`: a few samples of a bundled fixture, the cheapest
strategy, every cache off, and the rules of the `scripted/` model that plays the evaluated
model). When the task's arguments call a judge, the `grader` role is bound to the checks'
judge (:func:`longform_evals.checks.judge.judge_model`: by default a replay of the packaged
recording of gguf/qwen2.5-coder-1.5b, so no model runs).
A call the recording lacks fails the run naming the prompt; `--record MODEL` asks the real
model and appends its answer to the recording.

Values are rounded to 6 decimals (NaN and infinities are stored as the strings "nan", "inf",
"-inf"), and two numbers within :data:`TOLERANCE` count as equal.
"""

from longform_evals.checks.snapshots.comparison import Change, Comparison, changes, compare, update
from longform_evals.checks.snapshots.run import (
    COMMAND,
    REPLAYED,
    metric_values,
    snapshot_log,
    snapshot_values,
)
from longform_evals.checks.snapshots.store import (
    SNAPSHOT_FOLDER,
    TOLERANCE,
    Snapshot,
    SnapshotError,
    SnapshotRefused,
    SnapshotRunError,
    Value,
    read_snapshot,
    snapshot_dir,
    snapshot_path,
    write_snapshot,
)
from longform_evals.checks.snapshots.table import (
    LEFT_OUT,
    SNAPSHOT_TASKS,
    SnapshotTask,
    missing_modules,
    spec,
    task_version,
)

__all__ = [
    "COMMAND",
    "LEFT_OUT",
    "REPLAYED",
    "SNAPSHOT_FOLDER",
    "SNAPSHOT_TASKS",
    "TOLERANCE",
    "Change",
    "Comparison",
    "Snapshot",
    "SnapshotError",
    "SnapshotRefused",
    "SnapshotRunError",
    "SnapshotTask",
    "Value",
    "changes",
    "compare",
    "metric_values",
    "missing_modules",
    "read_snapshot",
    "snapshot_dir",
    "snapshot_log",
    "snapshot_path",
    "snapshot_values",
    "spec",
    "task_version",
    "update",
    "write_snapshot",
]
