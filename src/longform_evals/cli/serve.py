"""`longform serve`: a packaged model behind llama.cpp's OpenAI-compatible server."""

from __future__ import annotations

import sys

import click

from longform_evals.cli.group import main
from longform_evals.models.gguf_files import ModelFileError, ModelNotPresentError
from longform_evals.models.threads import DEFAULT_THREADS_HELP


@main.command("serve")
@click.argument("model")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, help="Port (0: a free one).")
@click.option("--alias", default=None, help="Model name clients use (default: the model's).")
@click.option("--service", default="longform", show_default=True, help="Name for Inspect's env.")
@click.option("--n-ctx", type=int, default=None, help="Context window (default: up to 16384).")
@click.option(
    "--threads",
    type=int,
    default=None,
    help=f"CPU threads (default: {DEFAULT_THREADS_HELP}).",
)
@click.option("--parallel", type=int, default=1, show_default=True, help="Slots decoding at once.")
@click.option("--api-key", default=None, help="A key clients must send (default: none).")
@click.option("--verbose", is_flag=True, help="Let llama.cpp log every request.")
def serve_command(
    model: str,
    host: str,
    port: int,
    alias: str | None,
    service: str,
    n_ctx: int | None,
    threads: int | None,
    parallel: int,
    api_key: str | None,
    verbose: bool,
) -> None:
    """Serve MODEL (a packaged model or a .gguf path) with llama.cpp's OpenAI-compatible
    server until interrupted (Ctrl-C or SIGTERM stop it cleanly).

    It prints the environment and the `--model` to give Inspect (docs/running.md, "Served
    and API models").
    """
    import signal
    import threading

    from longform_evals.models.serve import ServedModel, ServeSettings

    try:
        settings = ServeSettings(
            model, host, port, alias, n_ctx, threads, parallel, api_key, verbose
        )
        served = ServedModel(settings)
    except (ValueError, ModelFileError, ModelNotPresentError) as exc:
        raise click.ClickException(str(exc)) from exc
    env = service.upper().replace("-", "_")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with served:
        click.echo(f"serving {served.path} as {served.alias!r} at {served.base_url}")
        click.echo(f"  export {env}_BASE_URL={served.base_url} {env}_API_KEY={api_key or 'local'}")
        click.echo(f"  inspect eval TASK --model openai-api/{service}/{served.alias}")
        click.echo("stop with Ctrl-C", err=True)
        sys.stdout.flush()
        while not stop.wait(0.5):
            pass
    click.echo("stopped", err=True)
