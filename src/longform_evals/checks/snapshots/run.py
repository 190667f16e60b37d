# inspect-evals-lint: ignore-file[IEBP001] -- builds the eval of a snapshot, the models it passes in
"""Running a task for its snapshot: its fixture, a scripted evaluated model, the checks' judge
where its arguments call one, and the metric values of the log."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from longform_evals.checks.judge import RECORDED_JUDGE, JudgeChoice, judge_model, using_judge
from longform_evals.checks.snapshots.store import SnapshotError, SnapshotRunError, Value, rounded
from longform_evals.checks.snapshots.table import missing_modules, spec
from longform_evals.scorers.scorer_table import figure_address

COMMAND = "longform snapshot"
"""The command that compares and updates snapshots (`cli/snapshot.py`)."""
REPLAYED = JudgeChoice()
"""The default judge: a replay of the packaged recording."""


def snapshot_values(name: str, judge: JudgeChoice = REPLAYED) -> dict[str, Value]:
    """The metric values task `name` gives now, as `{"<scorer>/<value>/<metric>": value}`
    sorted by key (e.g. `"rouge/rougeL/mean"`).

    Args:
        name: a key of :data:`SNAPSHOT_TASKS`.
        judge: the judge of a judged task (default: replay the packaged recording);
            `JudgeChoice(live="gguf/qwen2.5-coder-1.5b", record=True)` records the calls the
            recording lacks.

    Raises:
        SnapshotRunError: when the eval fails (the message names the failing call; for a
            replayed judge, the prompt the recording has no answer for).
        SnapshotError: when a module the task needs is missing.
    """
    return metric_values(snapshot_log(name, judge))


def snapshot_log(name: str, judge: JudgeChoice = REPLAYED) -> EvalLog:
    """The finished log of task `name` on its snapshot fixture (what
    :func:`snapshot_values` reads; arguments and errors as there)."""
    entry = spec(name)
    missing = missing_modules(name)
    if missing:
        raise SnapshotError(
            f"{name}: needs {', '.join(missing)} (the `embed` extra: pip install -e '.[embed]')"
        )
    # Imported here: the reading memory pulls in the reading strategies.
    from longform_evals.solvers.reading.memory import clear_reading_cache

    with tempfile.TemporaryDirectory(prefix=f"snapshot-{name}-") as scratch:
        folder = Path(scratch)
        args = entry.fixture.args(folder)
        roles: dict[str, Model] = {}
        if entry.card.judged(args):
            try:
                with using_judge(judge):
                    roles["grader"] = judge_model()
            except ValueError as exc:  # ReplayError: no recording
                raise SnapshotRunError(f"{name}: no judge: {exc}") from exc
        task = entry.card.factory(**args)
        model = get_model(
            f"scripted/snapshot-{name}", rules=list(entry.fixture.rules), memoize=False
        )
        clear_reading_cache()
        with _inspect_cache(folder / "inspect-cache"):
            [log] = inspect_eval(
                task,
                model=model,
                model_roles=roles or None,
                limit=entry.fixture.limit,
                sample_id=entry.fixture.sample_id,
                log_dir=str(folder / "logs"),
                display="none",
                score_display=False,
            )
    if log.status != "success":
        raise SnapshotRunError(_failure(name, log, judge))
    return log


@contextmanager
def _inspect_cache(folder: Path) -> Iterator[None]:
    """Inspect's model cache in `folder` for the block: no answer comes from an earlier run,
    and a judged call always reaches the judge (or its recording)."""
    previous = os.environ.get("INSPECT_CACHE_DIR")
    os.environ["INSPECT_CACHE_DIR"] = str(folder)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("INSPECT_CACHE_DIR", None)
        else:
            os.environ["INSPECT_CACHE_DIR"] = previous


def _failure(name: str, log: EvalLog, judge: JudgeChoice) -> str:
    error = log.error.message if log.error is not None else f"status {log.status}"
    message = f"{name}: the eval failed: {error}"
    if "has no answer for this call" in error and judge.live is None:
        message += (
            f"\nThe judge's recording lacks this call. Record the calls with the real judge: "
            f"{COMMAND} --update --record {RECORDED_JUDGE} {name}"
        )
    return message


def metric_values(log: EvalLog) -> dict[str, Value]:
    """Every metric of a finished log as `{"<scorer>/<value>/<metric>": rounded value}`,
    sorted (the scorer's name first: several scorers report `scored`, `empty_summary`, ...):
    each result by what it is a figure of (`figure_address`, as every surface reads it:
    `rouge/scored/count`, `faithfulness/max_mean/bacc_avg`), whichever entry of the results
    Inspect logged it in."""
    if log.results is None:
        raise SnapshotRunError("the log has no results")
    values: dict[str, Value] = {}
    for score in log.results.scores:
        for metric_name, metric in score.metrics.items():
            value_key, figure = figure_address(score.name, metric_name, metric)
            key = f"{score.scorer}/{value_key}/{figure}"
            if key in values:
                raise SnapshotRunError(f"two scores report {key!r}")
            values[key] = rounded(metric.value)
    return dict(sorted(values.items()))
