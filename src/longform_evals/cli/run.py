"""`longform run`: a plan file run as one Inspect eval set under a budget."""

from __future__ import annotations

import sys

import click

from longform_evals.cli.group import main


@main.command("run")
@click.argument("plan_file", type=click.Path(dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Print the grid and estimated cost; run nothing.")
@click.option("--display", default=None, help="Inspect display (full, rich, plain, none).")
def run_plan_command(plan_file: str, dry_run: bool, display: str | None) -> None:
    """Run a plan: every model on every task variant, one eval set, one fixed judge.

    Running it again resumes: finished cells are kept, interrupted ones continue.
    """
    from longform_evals.runs.plan_file import PlanError, read_plan
    from longform_evals.runs.run_plan import (
        build_plan,
        estimate_lines,
        logs_in,
        open_models,
        run_plan,
        unfinished_cells,
    )

    try:
        plan = read_plan(plan_file)
        built = build_plan(plan)
    except (PlanError, ValueError) as e:
        raise click.ClickException(str(e)) from e
    if dry_run:
        click.echo("\n".join(estimate_lines(plan, built)))
        return
    options = {} if display is None else {"display": display}
    try:
        opened = open_models(plan)
    except (ValueError, TypeError) as e:  # a provider refusing the plan's model arguments
        raise click.ClickException(f"{plan_file}: a model of the plan cannot start: {e}") from e
    try:
        done, logs = run_plan(plan, built, opened, **options)
    except KeyboardInterrupt:  # what finished is in the log folder
        done, logs = False, logs_in(plan.log_dir)
        click.echo("interrupted", err=True)
    for log in logs:
        click.echo(f"{log.status:>9}  {log.eval.task} / {log.eval.model}  {log.location}")
    click.echo(f"log folder: {plan.log_dir}")
    unfinished = unfinished_cells(plan, built, logs)
    if unfinished or not done:
        for line in unfinished:
            click.echo(f"not finished: {line}", err=True)
        click.echo(
            f"{len(unfinished)} cell(s) did not finish; run the same command again to resume",
            err=True,
        )
        sys.exit(1)
