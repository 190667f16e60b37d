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
import os
import re
import stat
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

from longform_evals.judges.coherence.judges import coherence_modes
from longform_evals.log_store import StoreError, check_writable, is_url, resolve
from longform_evals.runs.catalogue import check_task_args
from longform_evals.tasks.cards import TASK_CARDS

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


MAX_PLAN_BYTES = 1_000_000
"""Size a plan file may have: a plan is a few dozen lines; a bigger file is a mistake."""
MAX_YAML_DEPTH = 32
"""Nesting a plan may have: a few levels are all any setting needs."""
MAX_YAML_ALIASES = 64
"""Aliases (`*name`) a plan may use."""
MAX_YAML_NODES = 100_000
"""Values a plan may hold once its aliases are expanded, so a few aliases of aliases cannot
stand for billions of entries (each use of an alias counts its whole value again)."""
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _PlanLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML's loaders are untyped
    """PyYAML's safe loader made strict for plans: a repeated key in one mapping, an alias
    inside the value it names (a recursive alias), more than :data:`MAX_YAML_ALIASES` aliases,
    more than :data:`MAX_YAML_DEPTH` levels and more than :data:`MAX_YAML_NODES` values once
    aliases are expanded are YAML errors naming the key or limit and the line."""

    def __init__(self, stream: str, name: str) -> None:
        super().__init__(stream)
        self.name = name  # the marks of errors name the plan file, not "<unicode string>"
        self._depth = 0
        self._aliases = 0
        self._open_anchors: set[str] = set()
        self._checked: set[int] = set()

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise _error(f"more than {MAX_YAML_ALIASES} aliases", event.start_mark)
            if event.anchor in self._open_anchors:
                raise _error(
                    f"the alias *{event.anchor} is inside the value &{event.anchor} it names "
                    "(a recursive alias)",
                    event.start_mark,
                )
        anchor = getattr(event, "anchor", None)
        self._depth += 1
        if anchor is not None and not isinstance(event, yaml.AliasEvent):
            self._open_anchors.add(anchor)
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _error(f"nested deeper than {MAX_YAML_DEPTH} levels", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            if anchor is not None and not isinstance(event, yaml.AliasEvent):
                self._open_anchors.discard(anchor)

    def compose_document(self) -> Any:
        node = super().compose_document()
        if _expanded_size(node, {}) > MAX_YAML_NODES:
            raise _error(
                f"more than {MAX_YAML_NODES:,} values once its aliases are expanded",
                node.start_mark,
            )
        return node

    def flatten_mapping(self, node: Any) -> None:
        # Every mapping passes here before its merge keys (`<<: *base`) are folded in, also
        # one that is itself merged elsewhere: the keys the plan wrote are checked once.
        if id(node) not in self._checked:
            self._checked.add(id(node))
            self._refuse_repeated_keys(node)
        super().flatten_mapping(node)

    def _refuse_repeated_keys(self, node: Any) -> None:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue  # a key written beside a merge overrides it, as YAML defines
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:
                continue  # an unhashable key: the base constructor refuses it
            if first is not key_node:
                raise _error(
                    f"the key {key!r} is repeated (first on line {first.start_mark.line + 1}); "
                    "a mapping gives each key once",
                    key_node.start_mark,
                )


def _error(problem: str, mark: Any) -> yaml.MarkedYAMLError:
    return yaml.constructor.ConstructorError(None, None, problem, mark)


def _expanded_size(node: Any, sizes: dict[int, int]) -> int:
    """The values ``node`` stands for with every alias expanded (shared nodes counted at each
    use, computed once each)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = size
    return size


def _yaml_problem(e: yaml.YAMLError, text: str) -> str:
    """A YAML error as one line: the line, the column and the problem."""
    if isinstance(e, yaml.reader.ReaderError):  # a character YAML does not allow
        line = text.count("\n", 0, e.position) + 1
        return f"line {line}: the character {chr(e.character)!r} is not allowed in YAML"
    if isinstance(e, yaml.MarkedYAMLError) and e.problem_mark is not None:
        mark = e.problem_mark
        problem = " ".join(str(e.problem or e.context or "").split())
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return " ".join(str(e).split())


def _toml_problem(e: tomllib.TOMLDecodeError, text: str) -> str:
    """A TOML error with the text of the line it names (tomllib names no key)."""
    message = " ".join(str(e).split())
    found = re.search(r"line (\d+)", message)
    lines = text.splitlines()
    if found and 0 < int(found.group(1)) <= len(lines):
        message += f": `{lines[int(found.group(1)) - 1].strip()[:120]}`"
    if message.startswith(("Cannot overwrite", "Cannot declare")):
        message += " (a key or table given twice; give each once)"
    return message


_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _file_kind(mode: int) -> str | None:
    """What a file that is not a regular file is (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def _plan_text(plan_path: Path) -> str:
    """The text of a plan file, checked to be a regular UTF-8 file of a plan's size before it
    is opened (a named pipe would block the reader forever)."""
    try:
        info = os.stat(plan_path)
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or str(e)
        raise PlanError(f"cannot read plan {plan_path}: {reason}") from e
    kind = _file_kind(info.st_mode)
    if kind is not None:
        raise PlanError(f"plan {plan_path} is {kind}, not a regular file; name the plan file")
    if info.st_size > MAX_PLAN_BYTES:
        raise PlanError(
            f"plan {plan_path} is {info.st_size:,} bytes; a plan is at most "
            f"{MAX_PLAN_BYTES:,} bytes (is it the right file?)"
        )
    try:
        # O_NONBLOCK: if the file was swapped for a pipe since the check, opening cannot hang
        fd = os.open(plan_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if _file_kind(os.fstat(f.fileno()).st_mode) is not None:
                raise PlanError(f"plan {plan_path} is not a regular file")
            data = f.read(MAX_PLAN_BYTES + 1)
    except OSError as e:
        raise PlanError(f"cannot read plan {plan_path}: {e.strerror or e}") from e
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise PlanError(
            f"plan {plan_path} is not UTF-8 text (byte {e.start}, line {line}); save it as UTF-8"
        ) from e


def read_plan(path: str | Path) -> Plan:
    """Read and check a plan file (``.yaml``/``.yml`` or ``.toml``).

    Raises:
        PlanError: Naming the file and what is wrong in it.
    """
    plan_path = Path(path)
    if plan_path.suffix not in (".toml", ".yaml", ".yml"):
        raise PlanError(f"plan {plan_path}: use a .yaml, .yml or .toml file")
    text = _plan_text(plan_path)
    try:
        if plan_path.suffix == ".toml":
            raw: Any = tomllib.loads(text)
        else:
            loader = _PlanLoader(text, str(plan_path))  # a SafeLoader with limits
            try:
                raw = loader.get_single_data()
            finally:
                loader.dispose()
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"plan {plan_path} is not valid toml: {_toml_problem(e, text)}") from e
    except yaml.YAMLError as e:
        raise PlanError(f"plan {plan_path} is not valid yaml: {_yaml_problem(e, text)}") from e
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
    allow_self = raw.get("allow_self_judge", False)
    if not isinstance(allow_self, bool):
        raise fail(f"`allow_self_judge` must be true or false, not {allow_self!r}")
    if judge.model in names and not allow_self:
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
    _refuse_repeated_cells(variants, fail)
    budget = raw.get("budget")
    if budget is not None and (not isinstance(budget, dict) or not budget):
        raise fail(
            f"`budget` must be a mapping with `tokens` and/or `money`, not {budget!r}; leave it "
            "out for no budget"
        )
    budget = budget or {}
    _known(budget, _BUDGET_KEYS, "`budget`", fail)
    if (
        "budget" in raw
        and raw["budget"] is not None
        and all(budget.get(k) is None for k in _BUDGET_KEYS)
    ):
        raise fail("`budget` sets neither `tokens` nor `money`; leave it out for no budget")
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
        name=_name(raw.get("name", path.stem), "`name`", fail),
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


def log_location(value: str, base: Path, option: str = "`log_dir`") -> str:
    """A plan's (or ``--log-dir``'s) log folder: a store URL as given, a local path made
    absolute from ``base`` (``~`` expanded) and checked to be a folder that can be written
    (or made), so a run stops before any model is called.

    Raises:
        ValueError: For a local path that is a file, lies under a file or in a folder that
            cannot be written, or names an unknown user's home (``~name``).
    """
    try:
        location = resolve(value.strip(), base)
    except (RuntimeError, ValueError, OSError) as e:  # `~nobody/...`, a NUL in the path
        raise ValueError(f"{option} {value!r} cannot be made a path: {e}") from e
    if is_url(location):
        parsed = urlparse(location)
        if not parsed.netloc or parsed.query or parsed.fragment or parsed.params:
            raise ValueError(
                f"{option} {value!r} is no store folder: a store URL names a bucket and a "
                "path (`s3://bucket/logs`), without `?` or `#`"
            )
    else:
        try:
            check_writable(location)
        except StoreError as e:
            raise ValueError(f"{option} {location} cannot be used: {e}") from e
    return location


def _name(value: Any, where: str, fail: Any) -> str:
    """A plan's or variant's name: a non-empty string (a number is taken as its text)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float) or not str(value):
        raise fail(f"{where} must be a non-empty text, not {value!r}")
    return str(value).strip() or _name(None, where, fail)


def _refuse_repeated_cells(variants: list[Variant], fail: Any) -> None:
    """Two variants that would run the same task with the same arguments on the same samples
    are one cell named twice: its samples would be run and shown twice."""
    seen: dict[str, str] = {}
    for v in variants:
        key = repr((v.task, sorted(v.args.items(), key=str), v.samples, v.limit))
        if key in seen:
            raise fail(
                f"task variants {seen[key]} and {v.label} are the same cell (same task, "
                "arguments and samples); keep one"
            )
        seen[key] = v.label


def _known(raw: Mapping[str, Any], keys: set[str], where: str, fail: Any) -> None:
    unknown = sorted((k for k in raw if k not in keys), key=str)
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


def _samples(value: Any, i: int, fail: Any) -> tuple[str, ...] | None:
    """A variant's sample ids: a non-empty list of texts or whole numbers, each once."""
    if value is None:
        return None
    where = f"tasks[{i}].samples"
    if not isinstance(value, list):
        raise fail(f"{where} must be a list of sample ids, not {value!r}")
    if not value:
        raise fail(f"{where} is empty; list the sample ids to run, or leave `samples` out")
    wrong = [x for x in value if isinstance(x, bool) or not isinstance(x, str | int)]
    if wrong:
        raise fail(f"{where}: {wrong[0]!r} is not a sample id (give texts or whole numbers)")
    ids = tuple(str(x) for x in value)
    repeated = [x for x, n in Counter(ids).items() if n > 1]
    if repeated:
        raise fail(f"{where} repeats {', '.join(repeated[:5])}; name each sample once")
    return ids


def _variants(entry: Any, i: int, base: Path, fail: Any) -> list[Variant]:
    if isinstance(entry, str):
        entry = {"task": entry}
    if not isinstance(entry, dict) or not isinstance(entry.get("task"), str):
        raise fail(f"tasks[{i}] = {entry!r}: give a task name or a mapping with `task`")
    _known(entry, _TASK_KEYS, f"tasks[{i}]", fail)
    task = entry["task"]
    if task not in TASK_CARDS:
        raise fail(f"tasks[{i}]: unknown task {task!r}; known: {', '.join(sorted(TASK_CARDS))}")
    args = _mapping(entry.get("args"), f"tasks[{i}].args", fail)
    grid = entry.get("variants") or {}
    if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
        raise fail(f"tasks[{i}].variants must map argument names to non-empty lists")
    samples = _samples(entry.get("samples"), i, fail)
    both = sorted((k for k in grid if k in args), key=str)
    if both:
        raise fail(
            f"tasks[{i}]: {', '.join(map(str, both))} given in both `args` and `variants`; "
            "give each argument in one of them"
        )
    out = []
    for combo in itertools.product(*grid.values()):
        chosen = {**args, **dict(zip(grid, combo, strict=True))}
        try:
            resolved = check_task_args(task, chosen, base)
        except (ValueError, TypeError) as e:
            raise fail(f"tasks[{i}] ({task}): {e}") from e
        suffix = ",".join(f"{k}={v}" for k, v in zip(grid, combo, strict=True))
        name = task if entry.get("name") is None else _name(entry["name"], f"tasks[{i}].name", fail)
        label = name + (f"[{suffix}]" if suffix else "")
        out.append(
            Variant(
                task=task,
                label=label,
                args=resolved,
                limit=_positive(entry.get("limit"), f"tasks[{i}].limit", fail),
                samples=samples,
            )
        )
    return out
