"""`longform lm-eval`: lm-evaluation-harness with the suite's tasks and wrappers."""

from __future__ import annotations

import click

from longform_evals.cli.group import main


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
