"""The check of one plan variant's arguments against its task's card (`tasks/cards.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from longform_evals.judges.coherence.judges import check_mode
from longform_evals.tasks.arguments import checked_values
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.parameters import path_names


def check_task_args(task: str, args: Mapping[str, Any], base: Path) -> dict[str, Any]:
    """The arguments of one task variant, checked, with relative paths resolved from ``base``.

    Raises:
        ValueError: For an unknown parameter or strategy, a value of the wrong type or out
            of range, or a path that does not exist.
    """
    entry = TASK_CARDS[task]
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
    if entry.judge_mode and args.get("judge_mode") is not None:
        check_mode(str(args["judge_mode"]))
    resolved = dict(args)
    for name in path_names(entry.factory):
        value = resolved.get(name)
        if value is None:
            continue
        path = Path(str(value)).expanduser()
        path = path if path.is_absolute() else (base / path).resolve()
        if not path.exists():
            raise ValueError(f"{name}={value!r}: no such file or folder ({path})")
        resolved[name] = str(path)
    return resolved
