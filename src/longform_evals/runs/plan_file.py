"""Run plans: the models, task variants and fixed judge of a leaderboard, read from YAML or TOML.

A plan is checked whole before anything runs: unknown keys, tasks, strategies and task
arguments are refused with the plan's path and the entry at fault, and so is a plan whose judge
is unset or is one of the evaluated models, unless it says so (``judge: self`` or
``allow_self_judge: true``). Relative paths in task arguments and ``log_dir`` are taken from
the plan file's folder, so a plan runs the same from any working directory; a ``log_dir`` in
an object store (``s3://bucket/runs``, any location Inspect's log API takes) is kept as it is.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from longform_evals.judges.coherence_judges import coherence_modes
from longform_evals.log_store import is_url, resolve
from longform_evals.runs.catalogue import TASKS, check_task_args

SELF = "self"
"""The judge value that lets every evaluated model judge its own output."""

_TOP_KEYS = {
    "name",
    "log_dir",
    "models",
    "judge",
    "allow_self_judge",
    "tasks",
    "limit",
    "epochs",
    "max_connections",
    "max_samples",
    "max_tasks",
    "budget",
    "prices",
    "log_buffer",
}
_TASK_KEYS = {"task", "name", "args", "variants", "limit", "samples"}
_JUDGE_KEYS = {"model", "mode", "args"}
_BUDGET_KEYS = {"tokens", "money"}
_PRICE_KEYS = {"input", "output", "cache_read"}


class PlanError(ValueError):
    """A plan file that cannot run; the message names the file and the entry at fault."""


@dataclass(frozen=True)
class ModelEntry:
    """An evaluated model: an Inspect model name and its ``-M`` arguments."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Judge:
    """The fixed judge (Inspect's ``grader`` role) and the judging mode given to tasks."""

    model: str | None
    """None: every evaluated model judges itself (allowed only when the plan says so)."""
    mode: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Price:
    """Money per million tokens of one model."""

    input: float
    output: float
    cache_read: float | None = None


@dataclass(frozen=True)
class Variant:
    """One task with fixed arguments: one column group of the leaderboard."""

    task: str
    label: str
    args: Mapping[str, Any]
    limit: int | None = None
    samples: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Plan:
    """A checked plan."""

    path: Path
    name: str
    log_dir: str
    """The plan's log folder: an absolute local path or a store URL (``s3://...``)."""
    models: tuple[ModelEntry, ...]
    judge: Judge
    variants: tuple[Variant, ...]
    limit: int | None = None
    epochs: int = 1
    max_connections: int | None = None
    max_samples: int | None = None
    max_tasks: int | None = None
    budget_tokens: int | None = None
    budget_money: float | None = None
    prices: Mapping[str, Price] = field(default_factory=dict)
    log_buffer: int = 1
    """Finished samples a cell's log holds back before writing them to the store."""


MAX_YAML_DEPTH = 32
"""Nesting a plan may have: a few levels are all any setting needs."""
MAX_YAML_ALIASES = 64
"""Aliases (`*name`) a plan may use, so a file of aliases of aliases cannot expand into
billions of entries when the plan is read."""


class _PlanLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML's loaders are untyped
    """PyYAML's safe loader with a depth and an alias limit (:data:`MAX_YAML_DEPTH`,
    :data:`MAX_YAML_ALIASES`), refused as a YAML error naming the limit."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.YAMLError(f"nested deeper than {MAX_YAML_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def read_plan(path: str | Path) -> Plan:
    """Read and check a plan file (``.yaml``/``.yml`` or ``.toml``).

    Raises:
        PlanError: Naming the file and what is wrong in it.
    """
    plan_path = Path(path)
    try:
        text = plan_path.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise PlanError(f"cannot read plan {plan_path}: {e.strerror or e}") from e
    try:
        if plan_path.suffix == ".toml":
            raw: Any = tomllib.loads(text)
        elif plan_path.suffix in (".yaml", ".yml"):
            raw = yaml.load(text, Loader=_PlanLoader)  # a SafeLoader with limits
        else:
            raise PlanError(f"plan {plan_path}: use a .yaml, .yml or .toml file")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as e:
        raise PlanError(f"plan {plan_path} is not valid {plan_path.suffix[1:]}: {e}") from e
    except RecursionError as e:
        raise PlanError(f"plan {plan_path}: nested too deeply") from e
    if not isinstance(raw, dict):
        raise PlanError(f"plan {plan_path}: expected a mapping of settings at the top")
    return parse_plan(raw, plan_path)


def parse_plan(raw: Mapping[str, Any], path: Path) -> Plan:
    """Check a plan's settings (already parsed from its file at ``path``)."""

    def fail(message: str) -> PlanError:
        return PlanError(f"plan {path}: {message}")

    _known(raw, _TOP_KEYS, "the plan", fail)
    base = path.resolve().parent
    models = tuple(_model(m, i, fail) for i, m in enumerate(_list(raw, "models", fail)))
    if not models:
        raise fail("`models` names no model")
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise fail(f"`models` repeats a model: {', '.join(names)}")
    judge = _judge(raw.get("judge"), fail)
    if judge.model in names and not raw.get("allow_self_judge"):
        raise fail(
            f"the judge {judge.model} is also an evaluated model, so it would judge its "
            "own output; pick another judge or set `allow_self_judge: true`"
        )
    variants: list[Variant] = []
    for i, entry in enumerate(_list(raw, "tasks", fail)):
        variants.extend(_variants(entry, i, base, fail))
    if not variants:
        raise fail("`tasks` names no task")
    labels = [v.label for v in variants]
    duplicated = sorted({x for x in labels if labels.count(x) > 1})
    if duplicated:
        raise fail(f"two task variants share the name {', '.join(duplicated)}; name them")
    budget = raw.get("budget") or {}
    if not isinstance(budget, dict):
        raise fail("`budget` must be a mapping with `tokens` and/or `money`")
    _known(budget, _BUDGET_KEYS, "`budget`", fail)
    prices = _prices(raw.get("prices") or {}, fail)
    budget_money = _money(budget.get("money"), fail)
    if budget_money is not None:
        unpriced = [m for m in [*names, judge.model] if m and m not in prices]
        if unpriced:
            raise fail(f"`budget.money` needs a price for every model; none for {unpriced}")
    log_dir_value = raw.get("log_dir", f"logs/{path.stem}")
    if not isinstance(log_dir_value, str) or not log_dir_value.strip():
        raise fail(f"`log_dir` must be a folder path or a store URL, not {log_dir_value!r}")
    try:
        log_dir = log_location(log_dir_value, base)
    except ValueError as e:
        raise fail(str(e)) from e
    return Plan(
        path=path,
        name=str(raw.get("name", path.stem)),
        log_dir=log_dir,
        models=models,
        judge=judge,
        variants=tuple(variants),
        limit=_positive(raw.get("limit"), "limit", fail),
        epochs=_positive(raw.get("epochs"), "epochs", fail) or 1,
        max_connections=_positive(raw.get("max_connections"), "max_connections", fail),
        max_samples=_positive(raw.get("max_samples"), "max_samples", fail),
        max_tasks=_positive(raw.get("max_tasks"), "max_tasks", fail),
        budget_tokens=_positive(budget.get("tokens"), "budget.tokens", fail),
        budget_money=budget_money,
        prices=prices,
        log_buffer=_positive(raw.get("log_buffer"), "log_buffer", fail) or 1,
    )


def log_location(value: str, base: Path) -> str:
    """A plan's (or ``--log-dir``'s) log folder: a store URL as given, a local path made
    absolute from ``base`` (``~`` expanded).

    Raises:
        ValueError: For a local path that is a file.
    """
    location = resolve(value.strip(), base)
    if not is_url(location) and Path(location).exists() and not Path(location).is_dir():
        raise ValueError(f"`log_dir` {location} is a file, not a folder")
    return location


def _known(raw: Mapping[str, Any], keys: set[str], where: str, fail: Any) -> None:
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise fail(
            f"unknown key(s) {', '.join(map(repr, unknown))} in {where}; "
            f"known: {', '.join(sorted(keys))}"
        )


def _list(raw: Mapping[str, Any], key: str, fail: Any) -> list[Any]:
    value = raw.get(key)
    if value is None:
        raise fail(f"`{key}` is missing")
    if not isinstance(value, list):
        raise fail(f"`{key}` must be a list")
    return value


def _positive(value: Any, key: str, fail: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise fail(f"`{key}` must be a whole number of at least 1, not {value!r}")
    return value


def _money(value: Any, fail: Any) -> float | None:
    if value is None:
        return None
    if not _number(value) or value <= 0:
        raise fail(f"`budget.money` must be a positive finite number, not {value!r}")
    return float(value)


def _number(value: Any) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _mapping(value: Any, where: str, fail: Any) -> dict[str, Any]:
    """``value`` as a dict of settings (None: empty), else an error naming ``where``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail(f"{where} must be a mapping of names to values, not {value!r}")
    return dict(value)


def _model(entry: Any, i: int, fail: Any) -> ModelEntry:
    if isinstance(entry, str) and "/" in entry:
        return ModelEntry(entry)
    if isinstance(entry, dict) and isinstance(entry.get("model"), str):
        _known(entry, {"model", "args"}, f"models[{i}]", fail)
        return ModelEntry(entry["model"], _mapping(entry.get("args"), f"models[{i}].args", fail))
    raise fail(
        f"models[{i}] = {entry!r}: give an Inspect model name (provider/model) or a mapping "
        "with `model` and `args`"
    )


def _judge(value: Any, fail: Any) -> Judge:
    if value is None:
        raise fail(
            "`judge` is unset, so each model would judge its own output and the scores "
            "would not be comparable; name a fixed judge model, or write `judge: self` to "
            "allow self-judging explicitly"
        )
    if value == SELF:
        return Judge(None)
    if isinstance(value, str):
        return Judge(value)
    if isinstance(value, dict):
        _known(value, _JUDGE_KEYS, "`judge`", fail)
        model = value.get("model")
        if not isinstance(model, str):
            raise fail("`judge.model` must be a model name or `self`")
        mode = value.get("mode")
        if mode is not None and str(mode) not in coherence_modes():
            raise fail(f"`judge.mode` = {mode!r}: use one of {', '.join(coherence_modes())}")
        return Judge(
            None if model == SELF else model,
            None if mode is None else str(mode),
            _mapping(value.get("args"), "`judge.args`", fail),
        )
    raise fail(f"`judge` = {value!r}: give a model name, `self`, or a mapping with `model`")


def _prices(raw: Any, fail: Any) -> dict[str, Price]:
    if not isinstance(raw, dict):
        raise fail("`prices` must map model names to {input, output} per million tokens")
    prices = {}
    for model, price in raw.items():
        if not isinstance(price, dict) or not {"input", "output"} <= set(price):
            raise fail(f"prices[{model!r}] needs `input` and `output` (money per 1M tokens)")
        _known(price, _PRICE_KEYS, f"prices[{model!r}]", fail)
        for key in ("input", "output", "cache_read"):
            value: Any = price.get(key)
            if (key != "cache_read" or value is not None) and not (_number(value) and value >= 0):
                raise fail(
                    f"prices[{model!r}].{key} must be a finite number of at least 0, not {value!r}"
                )
        cache_read = price.get("cache_read")
        prices[str(model)] = Price(
            float(price["input"]),
            float(price["output"]),
            None if cache_read is None else float(cache_read),
        )
    return prices


def _variants(entry: Any, i: int, base: Path, fail: Any) -> list[Variant]:
    if isinstance(entry, str):
        entry = {"task": entry}
    if not isinstance(entry, dict) or not isinstance(entry.get("task"), str):
        raise fail(f"tasks[{i}] = {entry!r}: give a task name or a mapping with `task`")
    _known(entry, _TASK_KEYS, f"tasks[{i}]", fail)
    task = entry["task"]
    if task not in TASKS:
        raise fail(f"tasks[{i}]: unknown task {task!r}; known: {', '.join(sorted(TASKS))}")
    args = _mapping(entry.get("args"), f"tasks[{i}].args", fail)
    grid = entry.get("variants") or {}
    if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
        raise fail(f"tasks[{i}].variants must map argument names to non-empty lists")
    samples = entry.get("samples")
    if samples is not None and not isinstance(samples, list):
        raise fail(f"tasks[{i}].samples must be a list of sample ids")
    out = []
    for combo in itertools.product(*grid.values()):
        chosen = {**args, **dict(zip(grid, combo, strict=True))}
        try:
            resolved = check_task_args(task, chosen, base)
        except ValueError as e:
            raise fail(f"tasks[{i}] ({task}): {e}") from e
        suffix = ",".join(f"{k}={v}" for k, v in zip(grid, combo, strict=True))
        label = str(entry.get("name") or task) + (f"[{suffix}]" if suffix else "")
        out.append(
            Variant(
                task=task,
                label=label,
                args=resolved,
                limit=_positive(entry.get("limit"), f"tasks[{i}].limit", fail),
                samples=None if samples is None else tuple(map(str, samples)),
            )
        )
    return out
