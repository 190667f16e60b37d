"""The `longform` command: quick start and management of the embedded local models."""

from __future__ import annotations

import sys

import click

from longform_evals.models.gguf_files import MODELS, ModelFileError, resolve_model_file

DEFAULT_LOCAL_MODEL = "gguf/qwen2.5-coder-1.5b"


@click.group()
@click.version_option(package_name="longform-evals")
def main() -> None:
    """longform-evals: evaluations of long-document summarization and reading."""


@main.command()
@click.option("--model", default=DEFAULT_LOCAL_MODEL, show_default=True, help="Inspect model.")
@click.option("--log-dir", default="logs", show_default=True, help="Where the eval log goes.")
def quickstart(model: str, log_dir: str) -> None:
    """Run the smoke task on a model and print its answers and the log location."""
    from inspect_ai import eval as inspect_eval

    from longform_evals.tasks.hello import hello_longform

    [log] = inspect_eval(hello_longform(), model=model, log_dir=log_dir, display="plain")
    if log.status != "success":
        click.echo(f"eval {log.status}: {log.error.message if log.error else ''}", err=True)
        click.echo(f"log: {log.location}", err=True)
        sys.exit(1)
    for sample in log.samples or []:
        verdict = next(iter(sample.scores.values())).value if sample.scores else "?"
        click.echo(f"[{sample.id}] {sample.input}")
        click.echo(f"  answer: {sample.output.completion.strip()}  (score {verdict})")
    usage = log.stats.model_usage
    for name, use in usage.items():
        click.echo(f"usage {name}: {use.input_tokens} input, {use.output_tokens} output tokens")
    click.echo(f"log: {log.location}")
    click.echo("browse it with: inspect view --log-dir " + log_dir)


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
