"""The package's tasks as a plan names them, with what a plan is checked against.

One line per task: its ``@task`` function, the strategy table its ``strategy`` argument picks
from, and whether it takes ``judge_mode`` (which tasks have an LLM judge is the leaderboard's
``GRADED``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task

from longform_evals.solvers.multidoc.summary import MULTIDOC_STRATEGIES
from longform_evals.solvers.reading.strategies import READING_STRATEGIES
from longform_evals.solvers.strategies import SUMMARY_STRATEGIES
from longform_evals.tasks.arguments import PATH_PARAMETERS, checked_values
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.longformfact import longformfact
from longform_evals.tasks.narrative import booksum, squality
from longform_evals.tasks.positional_bias import positional_bias
from longform_evals.tasks.reading import narrativeqa, qmsum, quality


@dataclass(frozen=True)
class TaskEntry:
    """How a plan may use one task."""

    factory: Callable[..., Task]
    strategies: tuple[str, ...] | None
    """The names its ``strategy`` argument accepts (None: it has no such argument)."""
    judge_mode: bool = False
    """Whether it takes ``judge_mode`` (the plan's ``judge.mode`` is passed there)."""

    def parameters(self) -> list[str]:
        signature = inspect.signature(self.factory)
        return [n for n, p in signature.parameters.items() if p.kind != p.VAR_KEYWORD]


TASKS: dict[str, TaskEntry] = {
    "booookscore": TaskEntry(booookscore, SUMMARY_STRATEGIES, judge_mode=True),
    "booksum": TaskEntry(booksum, SUMMARY_STRATEGIES),
    "squality": TaskEntry(squality, SUMMARY_STRATEGIES),
    "quality": TaskEntry(quality, READING_STRATEGIES),
    "narrativeqa": TaskEntry(narrativeqa, READING_STRATEGIES),
    "qmsum": TaskEntry(qmsum, READING_STRATEGIES),
    "positional_bias": TaskEntry(positional_bias, MULTIDOC_STRATEGIES),
    # The evaluated model is the judge under study, so there is no separate grader.
    "longformfact": TaskEntry(longformfact, None),
}


def check_task_args(task: str, args: Mapping[str, Any], base: Path) -> dict[str, Any]:
    """The arguments of one task variant, checked, with relative paths resolved from ``base``.

    Raises:
        ValueError: For an unknown parameter or strategy, a value of the wrong type or out
            of range, or a path that does not exist.
    """
    entry = TASKS[task]
    valid = entry.parameters()
    unknown = sorted(set(args) - set(valid))
    if unknown:
        raise ValueError(
            f"no parameter {', '.join(map(repr, unknown))}; its parameters: {', '.join(valid)}"
        )
    args = checked_values(entry.factory, args)
    strategy = args.get("strategy")
    known = entry.strategies
    if strategy is not None and known is not None and str(strategy) not in known:
        raise ValueError(f"unknown strategy {strategy!r}; known: {', '.join(known)}")
    resolved = dict(args)
    for name in PATH_PARAMETERS:
        value = resolved.get(name)
        if value is None:
            continue
        path = Path(str(value)).expanduser()
        path = path if path.is_absolute() else (base / path).resolve()
        if not path.exists():
            raise ValueError(f"{name}={value!r}: no such file or folder ({path})")
        resolved[name] = str(path)
    return resolved
