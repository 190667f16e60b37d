"""`longform plot-positions`: per-position faithfulness curves from logs."""

from __future__ import annotations

from pathlib import Path

import click

from longform_evals.cli.group import main


@main.command("plot-positions")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", default=None, help="PNG path (default: next to the first log).")
def plot_positions(logs: tuple[str, ...], out: str | None) -> None:
    """Plot per-position faithfulness of positional_bias logs, one line per log."""
    from inspect_ai.log import read_eval_log

    from longform_evals.reports.positions import curve_label, plot_position_curves, position_curve

    curves = {}
    for path in logs:
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
    target = out or str(Path(logs[0]).with_suffix(".positions.png"))
    click.echo(f"wrote {plot_position_curves(curves, target)}")
