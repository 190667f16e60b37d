"""`longform run`: a plan file run cell by cell into one log store, under a budget, by as many
processes as share it."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from longform_evals.cli.group import main

if TYPE_CHECKING:
    from longform_evals.runs.plan_file import Plan
    from longform_evals.runs.run_plan import BuiltVariant, PlanRun

_CLAIM_TIMEOUT = 600.0
_MOST_TIMEOUT = 7 * 24 * 3600.0


def _timeout(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """A claim timeout: finite seconds from 1 to a week (click's range lets NaN through)."""
    if not math.isfinite(value) or not 1.0 <= value <= _MOST_TIMEOUT:
        raise click.BadParameter(
            f"{value!r} is not a number of seconds from 1 to {_MOST_TIMEOUT:.0f} (a week)"
        )
    return value


_WORKER = "LONGFORM_RUN_WORKER"
"""Set in the worker processes `max_tasks` starts, so that they start none of their own."""


@main.command("run")
@click.argument("plan_file", type=click.Path(dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Print the grid and estimated cost; run nothing.")
@click.option(
    "--log-dir",
    default=None,
    help="Log folder or store URL (s3://..., gs://..., az://...) in place of the plan's "
    "log_dir; a relative path is taken from the working directory.",
)
@click.option(
    "--claim-timeout",
    default=_CLAIM_TIMEOUT,
    show_default=True,
    type=float,
    callback=_timeout,
    help="Seconds without a heartbeat after which another process takes over a cell.",
)
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Wait for cells other processes are running (taking over those that go stale), "
    "or stop once nothing is left to claim.",
)
@click.option("--display", default=None, help="Inspect display (full, rich, plain, none).")
def run_plan_command(
    plan_file: str,
    dry_run: bool,
    log_dir: str | None,
    claim_timeout: float,
    wait: bool,
    display: str | None,
) -> None:
    """Run a plan: every model on every task variant, one fixed judge.

    Each cell (a model on a task variant) is an Inspect eval set in its own folder of the log
    store. Start the same command on several machines (or several times on one) with one
    log store to share the work: each cell runs once. Running it again resumes: finished
    cells are kept, interrupted ones continue from the samples in the store.
    """
    from longform_evals.log_store import StoreError, check_writable
    from longform_evals.models.gguf_files import ModelFileError
    from longform_evals.runs.run_plan import estimate_lines, fixed_judge_notes, open_models

    plan, built = _load(plan_file, log_dir)
    _check_inspect_cache(plan, built)
    if dry_run:
        click.echo("\n".join(estimate_lines(plan, built)))
        return
    try:
        check_writable(plan.log_dir)  # before any model is opened or called
    except StoreError as e:
        raise click.ClickException(f"plan {plan.path}: {e}") from e
    try:
        opened = open_models(plan)
    except (ValueError, TypeError, ModelFileError) as e:  # a provider refusing the plan's
        # model arguments, or a model file that cannot be found, checked or assembled
        raise click.ClickException(f"{plan_file}: a model of the plan cannot start: {e}") from e
    for note in fixed_judge_notes(plan):
        click.echo(f"longform run: {note}", err=True)
    workers = _start_workers(plan, plan_file, claim_timeout, wait)
    if workers:
        click.echo(f"longform run: started {len(workers)} worker process(es)", err=True)
    options: dict[str, Any] = {} if display is None else {"display": display}
    run = _run(plan, built, opened, workers, claim_timeout=claim_timeout, wait=wait, **options)
    _report(plan, built, run)


def _load(plan_file: str, log_dir: str | None) -> tuple[Plan, list[BuiltVariant]]:
    from longform_evals.runs.plan_file import PlanError, log_location, read_plan
    from longform_evals.runs.run_plan import build_plan

    try:
        plan = read_plan(plan_file)
    except PlanError as e:
        raise click.ClickException(str(e)) from e
    if log_dir is not None:
        try:
            location = log_location(log_dir, Path.cwd(), "--log-dir")
        except ValueError as e:
            raise click.ClickException(str(e)) from e
        plan = dataclasses.replace(plan, log_dir=location)
    try:
        return plan, build_plan(plan)
    except (ValueError, TypeError, LookupError) as e:  # a task that cannot be made
        message = " ".join(str(e).split()) or type(e).__name__
        if str(plan.path) not in message:  # every error names the plan it comes from
            message = f"plan {plan.path}: {message}"
        raise click.ClickException(message) from e


def _check_inspect_cache(plan: Plan, built: list[BuiltVariant]) -> None:
    """Refuse a plan whose tasks cache model calls when Inspect's cache folder cannot be
    written: Inspect would drop every entry without a word (and a resumed run would pay for
    its calls again)."""
    from longform_evals.log_store import StoreError, check_writable

    folder = os.environ.get("INSPECT_CACHE_DIR")
    if not folder or not any(_caches(b) for b in built):
        return
    try:
        check_writable(os.path.join(folder, "generate"))
    except StoreError as e:
        raise click.ClickException(
            f"plan {plan.path}: INSPECT_CACHE_DIR={folder} cannot hold the model cache: {e}; "
            "point INSPECT_CACHE_DIR at a writable folder"
        ) from e


def _caches(built: BuiltVariant) -> bool:
    """Whether a variant's task caches model calls (its `cache` or `judge_cache` argument, or
    its default)."""
    import inspect

    from longform_evals.tasks.cards import TASK_CARDS

    parameters = inspect.signature(TASK_CARDS[built.variant.task].factory).parameters
    return any(
        bool(built.variant.args.get(name, parameters[name].default))
        for name in ("cache", "judge_cache")
        if name in parameters
    )


def _start_workers(
    plan: Plan, plan_file: str, claim_timeout: float, wait: bool
) -> list[subprocess.Popen[str]]:
    """The plan's `max_tasks - 1` further worker processes (this one is the first)."""
    if os.environ.get(_WORKER) or not plan.max_tasks or plan.max_tasks < 2:
        return []
    command = [
        *(sys.executable, "-m", "longform_evals.cli", "run", plan_file),
        *("--log-dir", plan.log_dir, "--claim-timeout", str(claim_timeout), "--display", "none"),
        "--wait" if wait else "--no-wait",
    ]
    env = {**os.environ, _WORKER: "1"}
    return [
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for _ in range(plan.max_tasks - 1)
    ]


def _run(
    plan: Plan,
    built: list[BuiltVariant],
    opened: Any,
    workers: list[subprocess.Popen[str]],
    **options: Any,
) -> PlanRun:
    """This process's share of the plan, then the workers' (their cells, as they report
    them); the plan's logs read from the store once all have stopped."""
    from longform_evals.log_store import StoreError
    from longform_evals.runs.cells import plan_logs
    from longform_evals.runs.run_plan import PlanRun, run_plan

    say = lambda line: click.echo(f"longform run: {line}", err=True)  # noqa: E731
    try:
        run = run_plan(plan, built, opened, say=say, **options)
    except KeyboardInterrupt:  # what finished is in the log store
        for worker in workers:
            worker.terminate()
        run = PlanRun(interrupted=True)
        click.echo("interrupted", err=True)
    except StoreError as e:
        raise click.ClickException(str(e)) from e
    for worker in workers:
        output, _ = worker.communicate()
        for line in output.splitlines():
            if line.startswith("ran here:"):
                outcome, label = line.removeprefix("ran here:").split(None, 1)
                run.ran[f"{label} (worker {worker.pid})"] = outcome
    if workers or not run.logs:
        run.logs = plan_logs(plan)
    return run


def _report(plan: Plan, built: list[BuiltVariant], run: PlanRun) -> None:
    """Print what ran and the whole grid; exit 1 unless every cell finished."""
    from longform_evals.runs.run_plan import refused_samples, unfinished_cells

    for label, outcome in run.ran.items():
        click.echo(f"ran here: {outcome:>9}  {label}")
    for log in run.logs:
        click.echo(f"{log.status:>9}  {log.eval.task} / {log.eval.model}  {log.location}")
    click.echo(f"log folder: {plan.log_dir}")
    unfinished = unfinished_cells(plan, built, run.logs)
    refused = refused_samples(run.logs) if unfinished else 0
    if refused:
        click.echo(f"{refused} sample(s) refused by the plan's budget", err=True)
    if unfinished or run.interrupted:
        for line in unfinished:
            click.echo(f"not finished: {line}", err=True)
        click.echo(
            f"{len(unfinished)} cell(s) did not finish; run the same command again to resume",
            err=True,
        )
        sys.exit(1)
