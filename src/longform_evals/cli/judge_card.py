# inspect-evals-lint: ignore-file[IEBP001] -- `longform judge-card` opens the judge the user named
"""`longform judge-card`: a judge measured against people's labels, written as a card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import yaml

from longform_evals.cli.group import main, parse_key_values
from longform_evals.log_store import StoreError, check_writable, exists, is_url, resolve
from longform_evals.vocabulary import JUDGE_KINDS

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


def _writable(*locations: str) -> None:
    """Refuse, in one line, a log folder or card folder that cannot be written."""
    for location in locations:
        try:
            check_writable(resolve(location))
        except StoreError as e:
            raise click.ClickException(f"{location} cannot be written: {e}") from e


def _finished_log(from_log: str, given: tuple[object, ...]) -> str:
    """The log `--from-log` names, refused beside options that configure a new run."""
    extra = [o for o, v in zip(_RUN_OPTIONS, given, strict=True) if v not in (None, ())]
    if extra:
        raise click.UsageError(
            f"--from-log writes the card of a finished run; {', '.join(extra)} configure a new run"
        )
    try:
        found = exists(from_log) and not (not is_url(from_log) and Path(from_log).is_dir())
    except StoreError as e:
        raise click.ClickException(str(e)) from e
    if not found:
        raise click.ClickException(f"no log file at {from_log}: it does not exist")
    return from_log


def _run_args(
    role: str | None,
    kind: str | None,
    data: str | None,
    mode: str | None,
    budget: int | None,
    task_args: tuple[str, ...],
) -> dict[str, Any]:
    """The judge_agreement task's arguments of a new run, its required options checked."""
    missing = [
        o for o, v in (("--model-role", role), ("--kind", kind), ("--data", data)) if v is None
    ]
    if missing:
        raise click.UsageError(f"{', '.join(missing)} needed (or --from-log LOG)")
    if kind == "faithfulness" and mode not in (None, "auto"):
        raise click.UsageError(
            "--mode is the coherence judge's; a faithfulness judge is chosen with -T judge=NAME"
        )
    if mode is not None:
        from longform_evals.judges.coherence.judges import check_mode

        try:
            check_mode(mode)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--mode") from None
    args = parse_key_values(task_args, "-T")
    clash = [k for k in ("kind", "data", "budget", "mode") if k in args]
    if clash:
        raise click.UsageError(f"give {', '.join('--' + k for k in clash)}, not -T")
    return args | {
        "kind": kind,
        "data": data,
        "budget": budget or DEFAULT_CARD_BUDGET,
        "mode": mode or "auto",
    }


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
    default=None,
    help="Coherence: the BooookScore judge's mode: auto (the default) or a coherence judge "
    "(packaged: sentence, batched, probe, fitted).",
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
        location = _finished_log(from_log, given)
        _writable(out)  # before the log is read and the intervals computed
    else:
        args = _run_args(role, kind, data, mode, budget, task_args)
        assert role is not None
        _writable(log_dir or "logs", out)  # before the judge is asked anything
        location = _judge_agreement_log(role, model_args, args, log_dir or "logs")
    try:
        log = read_eval_log(location)
    except Exception as e:  # not a log, or a broken one
        raise click.ClickException(f"cannot read the log {location}: {e}") from e
    try:
        card = card_from_log(log, n_boot=n_boot, seed=seed, data=data)
    except CardError as e:
        raise click.ClickException(f"{e} (log: {location})") from e
    try:
        written = write_card(card, out)
    except StoreError as e:
        raise click.ClickException(f"cannot write the judge card: {e}") from e
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(headline_text(card))
