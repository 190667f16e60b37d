"""Inspect's results table of every task, as `inspect eval` prints it at the end of a run, reads
whole at 100 columns: no entry or result name is cut (`scorers/scorer_table.py` says how the
package names them so), and each task's headline is its card's.

Each task runs once (the runs are shared by the tests of this module) on the fixture of its
snapshot (`tasks/snapshot_fixtures.py`: a scripted model, the replayed judge), or, for the
two tasks without a snapshot, on the inputs their own tests use. The table is rendered with
the function Inspect's displays print it with (`tasks_results` of
`inspect_ai/_display/core/results.py`) on a recording rich console of 100 columns.
"""

from __future__ import annotations

import functools
import io
import json
import math
import re
import tempfile
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._display.core.display import TaskProfile, TaskSuccess, TaskWithResult
from inspect_ai._display.core.results import tasks_results
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelName, get_model
from rich.console import Console

from helpers import BOOKS, SENTENCE_RULES
from longform_evals.checks.judge import RECORDED_JUDGE
from longform_evals.checks.snapshots import LEFT_OUT, SNAPSHOT_TASKS, missing_modules, snapshot_log
from longform_evals.judges.calibration_files import calibration_name
from longform_evals.models.replay import packaged_recording
from longform_evals.scorers.results import result_values
from longform_evals.tasks.hello import hello_longform
from longform_evals.tasks.judge_agreement import judge_agreement

WIDTH = 100
"""The terminal width the table must read whole at."""
TASKS = sorted([*SNAPSHOT_TASKS, *LEFT_OUT])
"""Every task of `tasks/` (`tests/checks/test_snapshots.py` checks that these are all)."""
CUT = "…"
"""What rich puts where it cuts a name too long for its column."""


def _hello() -> EvalLog:
    model = get_model("scripted/hello", rules=[{"default": "Ansel sells them."}], memoize=False)
    with tempfile.TemporaryDirectory() as scratch:
        [log] = inspect_eval(hello_longform(), model=model, log_dir=scratch, display="none")
    return log


def _judge_agreement() -> EvalLog:
    """The coherence judge against people's labels of two books' summaries
    (`tests/tasks/test_judge_agreement_task.py`)."""
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "summary-gpt4-4096-hier.json"
        data.write_text(json.dumps(BOOKS), encoding="utf-8")
        [log] = inspect_eval(
            judge_agreement(kind="coherence", data=str(data), mode="sentence"),
            model=get_model("scripted/judge", rules=json.dumps(SENTENCE_RULES)),
            log_dir=str(Path(scratch) / "logs"),
            display="none",
        )
    return log


@functools.cache
def _log(name: str) -> EvalLog:
    """Task `name`'s log, run once for every test of the module."""
    if name == "hello":
        log = _hello()
    elif name == "judge_agreement":
        log = _judge_agreement()
    else:
        log = snapshot_log(name)
    assert log.status == "success", log.error
    assert log.results is not None and log.results.scores
    return log


def _run(name: str) -> EvalLog:
    if name in SNAPSHOT_TASKS:
        missing = missing_modules(name)
        if missing:
            pytest.skip(f"{name} needs {', '.join(missing)} (the `embed` extra)")
        recording = packaged_recording(calibration_name(RECORDED_JUDGE))
        if SNAPSHOT_TASKS[name].may_be_judged and not recording.exists():
            pytest.skip(f"{name} is judged by a replay of {recording}, which does not exist")
    return _log(name)


def rendered(log: EvalLog, width: int = WIDTH) -> str:
    """Inspect's panel of a finished task, with its results table, as text `width` columns
    wide: what the rich and textual displays print at the end of `inspect eval`."""
    assert log.results is not None
    profile = TaskProfile(
        name=log.eval.task,
        file=log.eval.task_file,
        model=ModelName(log.eval.model),
        agent=None,
        dataset=log.eval.dataset.name or "(samples)",
        scorer=", ".join(s.name for s in log.eval.scorers or []),
        samples=log.results.total_samples,
        steps=log.results.total_samples,
        eval_config=log.eval.config,
        task_args=log.eval.task_args_passed,
        generate_config=log.plan.config,
        tags=log.eval.tags,
        log_location=log.location,
        task_id=log.eval.task_id,
        task_cancel=None,
    )
    success = TaskSuccess(
        samples_completed=log.results.completed_samples, stats=log.stats, results=log.results
    )
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(tasks_results([TaskWithResult(profile, success)]))
    return console.export_text()


def _names(log: EvalLog) -> set[str]:
    """Every name the results table shows: each entry's and each of its results'."""
    assert log.results is not None
    return {n for s in log.results.scores for n in (s.name, *s.metrics)}


@pytest.mark.parametrize("name", TASKS)
def test_every_name_of_the_results_table_reads_whole_at_100_columns(name: str) -> None:
    log = _run(name)
    text = rendered(log)
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert CUT not in text, f"{name}: a name cut at {WIDTH} columns:\n{text}"
    shown = set(text.split())
    missing = sorted(_names(log) - shown)
    assert not missing, f"{name}: not shown whole: {missing}\n{text}"
    # a package prefix would make a name too long to read: none is left
    assert not [n for n in _names(log) if "/" in n]


def test_the_check_sees_a_cut_name() -> None:
    # The same table at 40 columns cuts names: the check above would fail on it.
    text = rendered(_run("judge_agreement"), width=40)
    assert CUT in text


@pytest.mark.parametrize("name", sorted(SNAPSHOT_TASKS))
def test_inspects_headline_is_the_cards_first(name: str) -> None:
    """What Inspect shows while the task runs and lists the log by is the first headline of
    the task's card, the leaderboard's first column."""
    log = _run(name)
    assert log.results is not None and log.results.headline is not None
    headline = log.results.headline
    [entry] = [
        s for s in log.results.scores if (s.scorer, s.name) == (headline.scorer, headline.score)
    ]
    assert headline.metric is not None
    shown = entry.metrics[headline.metric].value
    first = SNAPSHOT_TASKS[name].card.headlines[0]
    expected = result_values(log.results.scores)[(first.scorer, first.key)][first.result]
    assert (math.isnan(shown) and math.isnan(expected)) or shown == expected, (headline, first)
    assert re.fullmatch(r"\w+", headline.metric), headline.metric
