"""`longform leaderboard`: a folder of logs (local or in an object store) as a leaderboard."""

from __future__ import annotations

import click

from longform_evals.cli.group import main


@main.command("leaderboard")
@click.argument("log_dir")
@click.option(
    "--out",
    default=None,
    help="Folder or store URL for leaderboard.md/.csv/.json/.html (default: LOG_DIR).",
)
def leaderboard_command(log_dir: str, out: str | None) -> None:
    """Compare models: one row per model x task variant, from every log in LOG_DIR (a folder
    or a store URL such as s3://bucket/runs, its subfolders included).

    Prints the markdown table and writes it with CSV, JSON and an HTML page.
    """
    from longform_evals.log_store import StoreError, check_writable, resolve
    from longform_evals.reports.leaderboard import LeaderboardError, build_leaderboard
    from longform_evals.reports.leaderboard_render import to_markdown, write_all

    try:  # before any log is read
        check_writable(resolve(out or log_dir))
    except StoreError as e:
        raise click.ClickException(f"cannot write the leaderboard to {out or log_dir}: {e}") from e
    try:
        board = build_leaderboard(log_dir)
    except LeaderboardError as e:
        raise click.ClickException(str(e)) from e
    click.echo(to_markdown(board))
    try:
        written = write_all(board, out or log_dir, log_dir)
    except OSError as e:  # a folder that cannot be made or written, or a file in the way
        raise click.ClickException(f"cannot write the leaderboard to {out or log_dir}: {e}") from e
    for path in written:
        click.echo(f"wrote {path}")
