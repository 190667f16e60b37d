"""`longform quickstart`: BooookScore on a bundled book with the embedded local model."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from longform_evals.cli.group import DEFAULT_LOCAL_MODEL, main, parse_key_values

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog


@main.command()
@click.option("--model", default=DEFAULT_LOCAL_MODEL, show_default=True, help="Inspect model.")
@click.option("--book", default="the_frost_hold", show_default=True, help="A bundled book id.")
@click.option("--chunk-size", default=512, show_default=True, help="Tokens per chunk.")
@click.option("--strategy", default="hierarchical", show_default=True)
@click.option("--max-summary-tokens", default=900, show_default=True, help="Summary length cap.")
@click.option("--log-dir", default="logs", show_default=True, help="Where the eval log goes.")
@click.option(
    "-M",
    "model_args",
    multiple=True,
    metavar="KEY=VALUE",
    help="A model argument, as for `inspect eval -M` (repeatable).",
)
def quickstart(
    model: str,
    book: str,
    chunk_size: int,
    strategy: str,
    max_summary_tokens: int,
    log_dir: str,
    model_args: tuple[str, ...],
) -> None:
    """Summarize one bundled book and print its BooookScore, flagged sentences and log."""
    from inspect_ai import eval as inspect_eval

    from longform_evals.data.books import bundled_books_dir
    from longform_evals.progress import printing_progress
    from longform_evals.tasks.booookscore import booookscore

    path = bundled_books_dir() / f"{book}.txt"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in bundled_books_dir().glob("*.txt")))
        raise click.BadParameter(f"no bundled book {book!r}; bundled: {known}")
    try:
        task = booookscore(
            strategy=strategy,
            data=str(path),
            chunk_size=chunk_size,
            max_summary_tokens=max_summary_tokens,
        )
    except ValueError as e:  # a value the task refuses (chunk size, strategy)
        raise click.BadParameter(str(e)) from e
    words = len(path.read_text(encoding="utf-8").split())
    click.echo(
        f"Summarizing {book} ({words:,} words) by {strategy} with {model} in chunks of "
        f"{chunk_size} tokens, then judging every summary sentence; progress every few "
        "seconds (model calls done/planned so far).",
        err=True,
    )
    with printing_progress():
        [log] = inspect_eval(
            task,
            model=model,
            model_args=parse_key_values(model_args, "-M"),
            log_dir=log_dir,
            display="plain",
        )
    _report(log, book, strategy, chunk_size)
    click.echo("browse it with: inspect view --log-dir " + log_dir)


def _report(log: EvalLog, book: str, strategy: str, chunk_size: int) -> None:
    """The summary, its BooookScore and flagged sentences, and the log; exit 1 on a failed or
    limited run."""
    if log.status != "success" or not log.samples:
        click.echo(f"eval {log.status}: {log.error.message if log.error else ''}", err=True)
        click.echo(f"log: {log.location}", err=True)
        sys.exit(1)
    if log.samples[0].limit is not None:
        click.echo(f"the run was stopped by a limit: {log.samples[0].limit.reason}", err=True)
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
