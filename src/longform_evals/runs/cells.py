"""A plan's cells (one model on one task variant) and where each keeps its logs.

Each cell runs as an Inspect eval set of its own, in its own folder below the plan's log
folder, so several processes can run a plan's cells side by side without writing into one eval
set's bookkeeping, and a cell retried anywhere finds its earlier log (and the samples that
finished) there. The folder's name is readable (variant and model) and ends with a short hash
of everything that makes the cell what it is, so a plan edited to run a variant differently
gets a fresh folder instead of mixing two experiments in one.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from longform_evals.log_keys import PLAN_METADATA
from longform_evals.log_store import join
from longform_evals.runs.plan_file import ModelEntry, Plan, Variant

__all__ = [
    "CELLS_FOLDER",
    "BuiltVariant",
    "Cell",
    "cell_logs",
    "plan_cells",
    "plan_logs",
]

CELLS_FOLDER = "cells"
"""The folder below a plan's log folder that holds one folder per cell."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")


@dataclass(frozen=True)
class BuiltVariant:
    """A plan's task variant as an Inspect task, with the samples it will run."""

    variant: Variant
    task: Task
    samples: int


@dataclass(frozen=True)
class Cell:
    """One model on one task variant of a plan."""

    built: BuiltVariant
    model: ModelEntry
    key: str
    """The cell's folder name (and the name of its claims)."""
    folder: str
    """Where its eval set writes its logs."""

    @property
    def label(self) -> str:
        return f"{self.built.variant.label} / {self.model.name}"


def _identity(plan: Plan, built: BuiltVariant, model: ModelEntry) -> dict[str, Any]:
    """Everything a cell's results depend on, as the plan states it."""
    meta: Any = (built.task.metadata or {}).get(PLAN_METADATA) or {}
    return {
        "task": built.variant.task,
        "variant": built.variant.label,
        "args": meta.get("args"),
        "samples": built.variant.samples,
        "limit": built.variant.limit or plan.limit,
        "epochs": plan.epochs,
        "model": model.name,
        "model_args": {k: str(v) for k, v in model.args.items()},
        "judge": plan.judge.model,
        "judge_mode": plan.judge.mode,
        "judge_args": {k: str(v) for k, v in plan.judge.args.items()},
    }


def cell_key(plan: Plan, built: BuiltVariant, model: ModelEntry) -> str:
    """A folder name for the cell: readable, safe in every store, unique to its identity."""
    identity = json.dumps(_identity(plan, built, model), sort_keys=True, default=str)
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:10]
    readable = _UNSAFE.sub("-", f"{built.variant.label}--{model.name}").strip("-.")[:80]
    return f"{readable}-{digest}"


def plan_cells(plan: Plan, built: list[BuiltVariant]) -> list[Cell]:
    """The plan's cells in plan order: variant by variant, model by model."""
    cells = []
    for b in built:
        for model in plan.models:
            key = cell_key(plan, b, model)
            cells.append(Cell(b, model, key, join(plan.log_dir, CELLS_FOLDER, key)))
    return cells


def _headers(folder: str) -> list[EvalLog]:
    """The headers of the readable logs below ``folder`` (none when there is none)."""
    try:
        infos = list_eval_logs(folder)
    except FileNotFoundError:
        return []
    found = []
    for info in infos:
        try:
            found.append(read_eval_log(info, header_only=True))
        except Exception:  # an unreadable log finished nothing
            continue
    return found


def cell_logs(cell: Cell) -> list[EvalLog]:
    """The headers of a cell's logs, newest first."""
    return sorted(_headers(cell.folder), key=lambda log: log.eval.created, reverse=True)


def plan_logs(plan: Plan) -> list[EvalLog]:
    """The headers of every readable log in the plan's log folder."""
    return _headers(plan.log_dir)
