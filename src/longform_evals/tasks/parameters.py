"""What each task parameter is, said once on the parameter: its role, its range, whether it
names a file.

A task function annotates each parameter with ``Annotated[type, Param(...)]`` (the aliases
below for the parameters sibling tasks share), and everything that needs to know what a
parameter means reads it from there (:func:`task_parameters`): `-T` checking (ranges, paths:
`tasks/arguments.py`), the task bodies (a reading task passes its ``option`` parameters to its
strategy, a narrative task its ``settings`` ones to `SummarySettings`) and lm-eval (a wrapper
model takes the ``strategy``, ``option`` and ``settings`` parameters as ``model_args``, the
others are task metadata). A parameter without a `Param` is an error a test reports.
"""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

Role = Literal["data", "strategy", "option", "settings", "scoring"]
"""What a parameter chooses: the items (and where they come from), the strategy, an option of
the strategy, a setting every strategy of the family shares, or how outputs are scored."""

MODEL_SIDE: frozenset[str] = frozenset({"strategy", "option", "settings"})
"""The roles that shape how a model reads or summarizes (a lm-eval wrapper's ``model_args``)."""


@dataclass(frozen=True)
class Range:
    """What a numeric task parameter allows, beyond its type."""

    low: float
    high: float = math.inf
    open_ends: bool = False
    says: str = ""

    def allows(self, value: float) -> bool:
        if self.open_ends:
            return self.low < value < self.high
        return self.low <= value <= self.high


POSITIVE = Range(1, says="a positive integer")
COUNT = Range(0, says="an integer of at least 0")
FRACTION = Range(0.0, 1.0, says="a number in [0, 1]")
OPEN_FRACTION = Range(0.0, 1.0, open_ends=True, says="a number in (0, 1)")
NON_NEGATIVE = Range(0.0, says="a finite number of at least 0")


@dataclass(frozen=True)
class Param:
    """A task parameter's meaning: its role, the range of a number, whether it names a file or
    folder (read as typed, relative to the launch folder: `tasks/arguments.given_path`)."""

    role: Role
    range: Range | None = None
    path: bool = False


DATA = Param("data")
SCORING = Param("scoring")
OPTION = Param("option")
SETTINGS = Param("settings")

# Shared by sibling tasks: one name, one meaning.
DataFile = Annotated[str | None, Param("data", path=True)]
RequiredData = Annotated[str, Param("data", path=True)]
Revision = Annotated[str, DATA]
StrategyName = Annotated[str, Param("strategy")]
PromptsDir = Annotated[str | None, Param("settings", path=True)]
CacheCalls = Annotated[bool, SETTINGS]
ChunkSize = Annotated[int, Param("settings", POSITIVE)]
ContextWindow = Annotated[int, Param("settings", POSITIVE)]
SummaryTokens = Annotated[int, Param("settings", POSITIVE)]
TargetWords = Annotated[int, Param("settings", POSITIVE)]
Temperature = Annotated[float, Param("settings", NON_NEGATIVE)]
StrategyTemperature = Annotated[float | None, Param("settings", NON_NEGATIVE)]
AnswerTokens = Annotated[int | None, Param("settings", POSITIVE)]
Pages = Annotated[int | None, Param("option", POSITIVE)]
Words = Annotated[int | None, Param("option", POSITIVE)]
ReaderLayout = Annotated[str | None, OPTION]
Conditional = Annotated[bool | None, OPTION]
Stage = Annotated[bool, OPTION]
Coherence = Annotated[bool, SCORING]
Tolerance = Annotated[float, Param("scoring", NON_NEGATIVE)]
RaterRule = Annotated[str, SCORING]
Threshold = Annotated[float | None, Param("scoring", FRACTION)]
JudgeText = Annotated[str | None, SCORING]
"""A judge setting given as text (chunking, retrieval, a prompt); None: the calibration's."""
ItemSubset = Annotated[str | list[str] | None, DATA]
"""Which items to keep, comma-separated or a list; None: all."""


F = TypeVar("F", bound=Callable[..., Any])


def sharing(group: Callable[..., None]) -> Callable[[F], F]:
    """Give a task function the parameters that ``group`` declares, in place of its ``**shared``
    parameter, and their descriptions at the end of its docstring's ``Args:`` (put it under
    `@strict_parameters`).

    Sibling tasks (the reading family, the narrative one) take the same strategy parameters:
    ``group`` is a function that only declares them, with their annotations, defaults and
    docstring, so each is written once. Everything that reads a task's parameters (Inspect,
    `-T` checking, the cards, lm-eval) sees the composed signature; the task body reads the
    values with `tasks.arguments.call_arguments`.

    Raises:
        TypeError: If the task function has no ``**shared`` parameter, or declares one of
            ``group``'s parameters itself.
    """
    shared = inspect.signature(group).parameters
    hints = typing.get_type_hints(group, include_extras=True)

    def compose(task: F) -> F:
        own = inspect.signature(task).parameters
        if "shared" not in own or own["shared"].kind != inspect.Parameter.VAR_KEYWORD:
            raise TypeError(
                f"{task.__name__} needs a **shared parameter to take {group.__name__}'s"
            )
        clash = sorted(set(own) & set(shared))
        if clash:
            raise TypeError(f"{task.__name__} declares {clash}, which {group.__name__} declares")
        kept = [p for name, p in own.items() if name != "shared"]
        task.__signature__ = inspect.signature(task).replace(  # type: ignore[attr-defined]
            parameters=[*kept, *shared.values()]
        )
        annotations = {k: v for k, v in task.__annotations__.items() if k != "shared"}
        task.__annotations__ = {**annotations, **{n: hints[n] for n in shared}}
        task.__doc__ = _with_arguments(task.__doc__ or "", group.__doc__ or "")
        return task

    return compose


def _with_arguments(doc: str, group_doc: str) -> str:
    """``doc`` with the entries of ``group_doc``'s ``Args:`` put at the end of its own."""
    extra = inspect.cleandoc(group_doc).split("Args:\n", 1)[-1].split("\n\n", 1)[0]
    lines = doc.split("\n")
    header = next((i for i, line in enumerate(lines) if line.strip() == "Args:"), None)
    if header is None:
        raise TypeError(f"a docstring that takes shared parameters needs an Args: section:\n{doc}")
    indent = lines[header][: len(lines[header]) - len(lines[header].lstrip())]
    end = header + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(indent + " ")):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    added = [indent + line if line else line for line in extra.split("\n")]
    return "\n".join([*lines[:end], *added, *lines[end:]])


def _unwrapped(function: Callable[..., Any]) -> Callable[..., Any]:
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    return function


def task_parameters(function: Callable[..., Any]) -> dict[str, Param | None]:
    """Each parameter of the task function (or its `@task` wrapper) and its `Param` (None:
    the parameter has none)."""
    inner = _unwrapped(function)
    hints = typing.get_type_hints(inner, include_extras=True)
    found: dict[str, Param | None] = {}
    for name in typing.get_type_hints(inner):
        if name == "return":
            continue
        metadata = getattr(hints[name], "__metadata__", ())
        found[name] = next((m for m in metadata if isinstance(m, Param)), None)
    return found


def names_with(function: Callable[..., Any], test: Callable[[Param], bool]) -> tuple[str, ...]:
    """The parameters of ``function`` whose `Param` passes ``test``, in signature order."""
    return tuple(n for n, p in task_parameters(function).items() if p is not None and test(p))


def role_names(function: Callable[..., Any], *roles: Role) -> tuple[str, ...]:
    """The parameters of ``function`` with one of ``roles``."""
    return names_with(function, lambda p: p.role in roles)


def path_names(function: Callable[..., Any]) -> tuple[str, ...]:
    """The parameters of ``function`` that name files or folders."""
    return names_with(function, lambda p: p.path)


def ranges(function: Callable[..., Any]) -> Mapping[str, Range]:
    """The range of each numeric parameter of ``function`` that has one."""
    return {n: p.range for n, p in task_parameters(function).items() if p and p.range}


def chosen_options(function: Callable[..., Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The strategy options of a call of the task ``function`` (its ``option`` parameters,
    taken from ``values``) that differ from the task's defaults: only those are passed to the
    strategy, so a strategy without an option runs under the task's default and refuses a
    value the user chose for it (naming the strategies that take it)."""
    signature = inspect.signature(_unwrapped(function)).parameters
    return {
        name: values[name]
        for name in role_names(function, "option")
        if values[name] != signature[name].default
    }
