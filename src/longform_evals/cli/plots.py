"""`longform plot-positions`: per-position faithfulness curves from logs."""

from __future__ import annotations

import posixpath
from pathlib import Path

import click

from longform_evals.cli.group import main


@main.command("plot-positions")
@click.argument("logs", nargs=-1, required=True)
@click.option("--out", default=None, help="PNG file or store URL (default: next to the first log).")
def plot_positions(logs: tuple[str, ...], out: str | None) -> None:
    """Plot per-position faithfulness of positional_bias logs (files or store URLs such as
    s3://bucket/runs/x.eval), one line per log."""
    from inspect_ai.log import read_eval_log

    from longform_evals.log_store import StoreError, check_writable_file, exists, is_url, resolve
    from longform_evals.reports.positions import curve_label, plot_position_curves, position_curve

    target = out or f"{posixpath.splitext(logs[0])[0]}.positions.png"
    try:  # before any log is read
        check_writable_file(resolve(target))
    except StoreError as e:
        raise click.ClickException(f"cannot write the plot to {target}: {e}") from e
    curves = {}
    for path in logs:
        try:
            found = exists(path) and (is_url(path) or Path(path).is_file())
        except StoreError as e:
            raise click.ClickException(str(e)) from e
        if not found:
            raise click.ClickException(f"no log file at {path}: it does not exist")
        try:
            log = read_eval_log(path)
        except Exception as e:  # a truncated, empty or foreign file: say which
            raise click.ClickException(f"cannot read the log {path}: {e}") from e
        try:
            curves[curve_label(log)] = position_curve(log)
        except (KeyError, ValueError, TypeError) as e:
            raise click.ClickException(
                f"{path} is not a positional_bias log with per-position scores ({e})"
            ) from e
    try:
        written = plot_position_curves(curves, target)
    except (StoreError, OSError) as e:
        raise click.ClickException(f"cannot write the plot to {target}: {e}") from e
    click.echo(f"wrote {written}")
