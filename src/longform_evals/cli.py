"""The `longform` command: quick start and management of the embedded local models."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from longform_evals.models.gguf_files import MODELS, ModelFileError, resolve_model_file

DEFAULT_LOCAL_MODEL = "gguf/qwen2.5-coder-1.5b"


@click.group()
@click.version_option(package_name="longform-evals")
def main() -> None:
    """longform-evals: evaluations of long-document summarization and reading."""


@main.command()
@click.option("--model", default=DEFAULT_LOCAL_MODEL, show_default=True, help="Inspect model.")
@click.option("--book", default="the_frost_hold", show_default=True, help="A bundled book id.")
@click.option("--chunk-size", default=512, show_default=True, help="Tokens per chunk.")
@click.option("--strategy", default="hierarchical", show_default=True)
@click.option("--max-summary-tokens", default=900, show_default=True, help="Summary length cap.")
@click.option("--log-dir", default="logs", show_default=True, help="Where the eval log goes.")
def quickstart(
    model: str, book: str, chunk_size: int, strategy: str, max_summary_tokens: int, log_dir: str
) -> None:
    """Summarize one bundled book and print its BooookScore, flagged sentences and log."""
    from inspect_ai import eval as inspect_eval

    from longform_evals.data.books import bundled_books_dir
    from longform_evals.tasks.booookscore import booookscore

    path = bundled_books_dir() / f"{book}.txt"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in bundled_books_dir().glob("*.txt")))
        raise click.BadParameter(f"no bundled book {book!r}; bundled: {known}")
    task = booookscore(
        strategy=strategy,  # type: ignore[arg-type]
        data=str(path),
        chunk_size=chunk_size,
        max_summary_tokens=max_summary_tokens,
    )
    [log] = inspect_eval(task, model=model, log_dir=log_dir, display="plain")
    if log.status != "success" or not log.samples:
        click.echo(f"eval {log.status}: {log.error.message if log.error else ''}", err=True)
        click.echo(f"log: {log.location}", err=True)
        sys.exit(1)
    sample = log.samples[0]
    score = (sample.scores or {})["booookscore"]
    value = score.value if isinstance(score.value, dict) else {}
    meta = score.metadata or {}
    click.echo(
        f"\nSummary of {sample.metadata.get('title', book)} ({strategy}, chunks of {chunk_size}):"
    )
    click.echo(sample.output.completion.strip())
    click.echo(
        f"\nBooookScore: {value.get('booookscore', float('nan')):.1f}  "
        f"(judge {meta.get('judge')}, mode {meta.get('mode')}"
        + (f", thresholds {meta['calibration']}" if "calibration" in meta else "")
        + ")"
    )
    for verdict in meta.get("sentences", []):
        if verdict.get("confused"):
            click.echo(f"  flagged [{', '.join(verdict['types'])}]: {verdict['sentence']}")
    click.echo(f"log: {log.location}")
    click.echo("browse it with: inspect view --log-dir " + log_dir)


@main.command("plot-positions")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", default=None, help="PNG path (default: next to the first log).")
def plot_positions(logs: tuple[str, ...], out: str | None) -> None:
    """Plot per-position faithfulness of positional_bias logs, one line per log."""
    from inspect_ai.log import read_eval_log

    from longform_evals.reports.positions import curve_label, plot_position_curves, position_curve

    curves = {}
    for path in logs:
        log = read_eval_log(path)
        curves[curve_label(log)] = position_curve(log)
    target = out or str(Path(logs[0]).with_suffix(".positions.png"))
    click.echo(f"wrote {plot_position_curves(curves, target)}")


@main.group()
def models() -> None:
    """The embedded GGUF models."""


@models.command("list")
def list_models() -> None:
    """List the named embedded models and what installs them."""
    for spec in MODELS.values():
        click.echo(f"gguf/{spec.name}\t{spec.install}")


@models.command("prepare")
@click.argument("names", nargs=-1)
def prepare_models(names: tuple[str, ...]) -> None:
    """Assemble and verify named models now (all installed ones when none are named)."""
    failed = False
    for name in names or tuple(MODELS):
        try:
            path = resolve_model_file(name)
        except ModelFileError as exc:
            failed = failed or bool(names)
            click.echo(f"{name}: {exc}", err=True)
        else:
            click.echo(f"{name}: {path}")
    if failed:
        sys.exit(1)
