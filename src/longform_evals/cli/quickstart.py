"""`longform quickstart`: BooookScore on a bundled book with the embedded local model."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from longform_evals.cli.group import DEFAULT_LOCAL_MODEL, main, parse_key_values

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog


QUICK_SUMMARIZER = "gguf/qwen2.5-coder-0.5b"
"""The summarizer when `--model` is left out: the smaller embedded model, about three times
as fast as the judge (README: what the three-minute first run cut)."""


@main.command()
@click.option(
    "--model",
    default=None,
    help=f"Inspect model that summarizes [default: {QUICK_SUMMARIZER}].",
)
@click.option(
    "--judge",
    default=None,
    help=f"Inspect model that judges (the grader role) [default: {DEFAULT_LOCAL_MODEL} when "
    "--model is left out, else the summarizer itself].",
)
@click.option(
    "--book",
    default="the_salt_bell",
    show_default=True,
    help="A bundled story: a short one (the_salt_bell) or a book (the_frost_hold, ...).",
)
@click.option("--chunk-size", default=1024, show_default=True, help="Tokens per chunk.")
@click.option("--strategy", default="hierarchical", show_default=True)
@click.option("--max-summary-tokens", default=300, show_default=True, help="Summary length cap.")
@click.option("--log-dir", default="logs", show_default=True, help="Where the eval log goes.")
@click.option(
    "-M",
    "model_args",
    multiple=True,
    metavar="KEY=VALUE",
    help="A model argument, as for `inspect eval -M` (repeatable).",
)
def quickstart(
    model: str | None,
    judge: str | None,
    book: str,
    chunk_size: int,
    strategy: str,
    max_summary_tokens: int,
    log_dir: str,
    model_args: tuple[str, ...],
) -> None:
    """Summarize one bundled book and print its BooookScore, flagged sentences and log."""
    from inspect_ai import eval as inspect_eval

    from longform_evals.data.books import bundled_books_dir, short_stories_dir
    from longform_evals.progress import printing_progress
    from longform_evals.tasks.booookscore import booookscore

    folders = (short_stories_dir(), bundled_books_dir())
    path = next((f / f"{book}.txt" for f in folders if (f / f"{book}.txt").is_file()), None)
    if path is None:
        known = ", ".join(sorted(p.stem for f in folders for p in f.glob("*.txt")))
        raise click.BadParameter(f"no bundled book {book!r}; bundled: {known}")
    if model is None:
        model, judge = QUICK_SUMMARIZER, judge or DEFAULT_LOCAL_MODEL
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
        f"{chunk_size} tokens, then judging every summary sentence with {judge or model}; "
        "progress every few "
        "seconds (model calls made, and those queued).",
        err=True,
    )
    with printing_progress():
        [log] = inspect_eval(
            task,
            model=model,
            model_args=parse_key_values(model_args, "-M"),
            model_roles={"grader": judge} if judge is not None else None,
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
