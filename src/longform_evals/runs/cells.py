"""A plan's cells (one model on one task variant) and where each keeps its logs.

Each cell runs as an Inspect eval set of its own, in its own folder below the plan's log
folder, so several processes can run a plan's cells side by side without writing into one eval
set's bookkeeping, and a cell retried anywhere finds its earlier log (and the samples that
finished) there. The folder's name is readable (variant and model) and ends with a short hash
of everything its results depend on (:func:`cell_identity`): the task, its version and its
resolved arguments, the content of every sample it runs and of every file or folder an
argument names, the model and the judge with their settings. A plan edited to run a variant
differently, or a data file or prompt folder edited under the same name, gets a fresh folder
instead of reusing or mixing the old results.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from longform_evals.log_keys import PLAN_METADATA
from longform_evals.log_store import join
from longform_evals.runs.plan_file import ModelEntry, Plan, Variant
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.parameters import path_names

__all__ = [
    "CELLS_FOLDER",
    "BuiltVariant",
    "Cell",
    "cell_identity",
    "cell_logs",
    "path_digest",
    "plan_cells",
    "plan_logs",
    "samples_digest",
    "variant_content",
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

    @property
    def content(self) -> dict[str, str]:
        """Digests of what the variant reads (:func:`variant_content`), as its task's metadata
        records them."""
        meta: Any = (self.task.metadata or {}).get(PLAN_METADATA) or {}
        return dict(meta.get("content") or {})


def variant_content(variant: Variant, samples: Any) -> dict[str, str]:
    """Digests of what a variant reads: its samples as built, and each file or folder an
    argument names (a data file, a prompt folder), by argument."""
    digests = {"samples": samples_digest(samples)}
    factory = TASK_CARDS[variant.task].factory
    for name in path_names(factory):
        value = variant.args.get(name)
        if isinstance(value, str) and value:
            digests[name] = path_digest(Path(value))
    return digests


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


def samples_digest(samples: Any) -> str:
    """A digest of every sample's content (input, target, choices, id, metadata, files)."""
    h = hashlib.sha256()
    for sample in samples:
        h.update(sample.model_dump_json().encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def path_digest(path: Path) -> str:
    """A digest of a file's bytes, or of a folder's files (names and bytes, in name order);
    ``missing`` where nothing is there (the task itself says what it needs)."""
    h = hashlib.sha256()
    if path.is_file():
        h.update(path.read_bytes())
    elif path.is_dir():
        for root, folders, files in os.walk(path):
            folders.sort()
            for name in sorted(files):
                file = Path(root, name)
                h.update(str(file.relative_to(path)).encode("utf-8", "surrogateescape") + b"\0")
                h.update(file.read_bytes() if file.is_file() else b"")
    else:
        return "missing"
    return h.hexdigest()


def cell_identity(plan: Plan, built: BuiltVariant, model: ModelEntry) -> dict[str, Any]:
    """Everything a cell's results depend on: its key is a digest of this."""
    meta: Any = (built.task.metadata or {}).get(PLAN_METADATA) or {}
    return {
        "task": built.variant.task,
        "task_version": str(built.task.version),
        "content": built.content,
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
    identity = json.dumps(cell_identity(plan, built, model), sort_keys=True, default=str)
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
