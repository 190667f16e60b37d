"""The `longform` command: one module per subcommand, each registering itself on the group of
`group.py` when imported here."""

from longform_evals.cli import (
    check,
    judge_card,
    leaderboard,
    lm_eval,
    models,
    plots,
    quickstart,
    run,
    serve,
    snapshot,
)
from longform_evals.cli.group import main

__all__ = [
    "check",
    "judge_card",
    "leaderboard",
    "lm_eval",
    "main",
    "models",
    "plots",
    "quickstart",
    "run",
    "serve",
    "snapshot",
]
