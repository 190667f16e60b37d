"""`longform check`: the behaviour checks of the metrics."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from longform_evals.cli.group import main
from longform_evals.log_store import StoreError, check_writable_file, resolve, write_text


def _check_output(junit: str) -> None:
    """Refuse, before any check runs, a --junit file that cannot be written."""
    try:
        check_writable_file(resolve(junit))
    except StoreError as e:
        raise click.ClickException(f"--junit {junit} cannot be written: {e}") from e


@main.command("check")
@click.option("--only", "only", multiple=True, help="A metric to check (repeatable).")
@click.option("--junit", default=None, help="Also write the results as JUnit XML here.")
@click.option(
    "--live",
    default=None,
    metavar="MODEL",
    help=(
        "Judge with this real model instead of the packaged recording: a name, or a YAML/JSON "
        "mapping (inline or a .yaml/.json file) with model, model_args and generate settings, "
        "as Inspect's --model-role takes."
    ),
)
@click.option(
    "-M",
    "--model-arg",
    "model_args",
    multiple=True,
    metavar="NAME=VALUE",
    help="An argument of the --live/--record model (repeatable), as Inspect's -M.",
)
@click.option(
    "--record",
    default=None,
    metavar="MODEL",
    help="Judge with this real model and append every call the recording lacks to it.",
)
@click.option(
    "--recording",
    default=None,
    metavar="FILE",
    help="The replay file to read (or, with --record, to write); default: the packaged one.",
)
def check_command(
    only: tuple[str, ...],
    junit: str | None,
    live: str | None,
    model_args: tuple[str, ...],
    record: str | None,
    recording: str | None,
) -> None:
    """Check that the metrics behave: each perturbation of real inputs moves (or leaves) the
    metric as it must. Judged metrics replay the packaged recording of
    gguf/qwen2.5-coder-1.5b unless --live or --record names a model. Exits 1 when a check
    fails."""
    from longform_evals.checks.judge import judge_choice
    from longform_evals.checks.runner import format_table, junit_xml, run_checks

    if live and record:
        raise click.UsageError("give --live MODEL or --record MODEL, not both")
    if junit and Path(junit).is_dir():
        raise click.UsageError(f"--junit {junit} is a folder; name the XML file to write")
    if junit:
        _check_output(junit)
    if recording and Path(recording).is_dir():
        raise click.UsageError(f"--recording {recording} is a folder; name the replay file")
    if recording and not record and not Path(recording).is_file():
        raise click.UsageError(f"--recording {recording}: no such file (--record creates one)")
    try:
        judge = judge_choice(live or record, model_args, record is not None, recording)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    click.echo(f"judge: {judge.label}")
    try:
        results = run_checks(only=list(only) or None, judge=judge)
    except ValueError as e:
        raise click.ClickException(str(e)) from e
    click.echo(format_table(results))
    if junit:
        try:
            write_text(resolve(junit), junit_xml(results))
        except StoreError as e:
            raise click.ClickException(f"--junit: {e}") from e
        click.echo(f"wrote {junit}")
    if not all(r.passed for r in results):
        sys.exit(1)
