"""`longform snapshot`: compare (or update) the metric snapshots of the suite's tasks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from longform_evals.cli.group import main

if TYPE_CHECKING:
    from longform_evals.checks.judge import JudgeChoice


@main.command("snapshot")
@click.argument("tasks", nargs=-1)
@click.option(
    "--update",
    is_flag=True,
    help="Write missing snapshots and those of a raised task version; refuses changed values "
    "under an unchanged version.",
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The snapshot folder (default: tests/snapshots of the repository the working "
    "directory is in).",
)
@click.option(
    "--record",
    metavar="MODEL",
    default=None,
    help="Judge with MODEL (e.g. gguf/qwen2.5-coder-1.5b) wherever the recording lacks a call, "
    "and append its answers to the recording.",
)
def snapshot_command(
    tasks: tuple[str, ...], update: bool, directory: Path | None, record: str | None
) -> None:
    """Compare the metric values of the suite's tasks (default: all) with their snapshots
    (tests/snapshots/<task>.json); values may only change with a raised task version. Exits 1
    when a snapshot does not match or a task fails."""
    from longform_evals.checks.judge import JudgeChoice
    from longform_evals.checks.snapshots import (
        SNAPSHOT_TASKS,
        SnapshotError,
        snapshot_dir,
    )

    unknown = [t for t in tasks if t not in SNAPSHOT_TASKS]
    if unknown:
        raise click.UsageError(
            f"unknown task(s) {', '.join(unknown)}; known: {', '.join(SNAPSHOT_TASKS)}"
        )
    try:
        folder = directory if directory is not None else snapshot_dir()
    except SnapshotError as exc:
        raise click.UsageError(str(exc)) from exc
    judge = JudgeChoice(live=record, record=True) if record else JudgeChoice()
    names = list(dict.fromkeys(tasks)) or list(SNAPSHOT_TASKS)
    failed, skipped = _run_each(names, folder, judge, update)
    checked = len(names) - len(skipped)
    summary = f"{checked - len(failed)} of {checked} snapshots " + (
        "up to date" if update else "match"
    )
    if skipped:
        summary += f" ({len(skipped)} skipped: {', '.join(skipped)})"
    if failed:
        summary += f"; failed: {', '.join(failed)}"
    click.echo(summary)
    if failed:
        sys.exit(1)


def _run_each(
    names: list[str], folder: Path, judge: JudgeChoice, update: bool
) -> tuple[list[str], list[str]]:
    """Compare (or update) each task's snapshot, printing its report: the failed and the
    skipped tasks."""
    from longform_evals.checks.snapshots import SnapshotError, compare, missing_modules
    from longform_evals.checks.snapshots import update as update_snapshot

    failed: list[str] = []
    skipped: list[str] = []
    for name in names:
        missing = missing_modules(name)
        if missing:
            click.echo(f"{name}: skipped: needs {', '.join(missing)} (the `embed` extra)")
            skipped.append(name)
            continue
        try:
            comparison = (update_snapshot if update else compare)(name, folder, judge)
        except SnapshotError as exc:
            click.echo(str(exc) if str(exc).startswith(name) else f"{name}: {exc}")
            failed.append(name)
            continue
        click.echo(comparison.report())
        if not (comparison.ok or comparison.written):
            failed.append(name)
    return failed, skipped
