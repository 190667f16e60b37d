"""Every task argument is typed and ranged when the task is created: a bad `-T` value is an
error naming the task, the parameter, the value and what is allowed, before any sample runs."""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import task_functions
from longform_evals.inspect_private import PrerequisiteError
from longform_evals.tasks import (
    booookscore,
    hello,
    judge_agreement,
    longformfact,
    narrative,
    positional_bias,
    reading,
)
from longform_evals.tasks.arguments import (
    COUNT,
    FRACTION,
    NON_NEGATIVE,
    OPEN_FRACTION,
    POSITIVE,
    Range,
    TaskParameterError,
    _type_checks,
)
from longform_evals.tasks.parameters import path_names, ranges, role_names, task_parameters

MODULES = [booookscore, hello, judge_agreement, longformfact, narrative, positional_bias, reading]


def _tasks() -> dict[str, Callable[..., Any]]:
    """The `@task` functions of the package's task modules."""
    found: dict[str, Callable[..., Any]] = {}
    for module in MODULES:
        for name in task_functions(Path(str(module.__file__))):
            found[name] = getattr(module, name)
    return found


TASKS = _tasks()


def _hints(task: Callable[..., Any]) -> dict[str, Any]:
    inner = task
    while hasattr(inner, "__wrapped__"):
        inner = inner.__wrapped__
    hints = typing.get_type_hints(inner)
    hints.pop("return", None)
    names = inspect.signature(inner).parameters
    return {name: hint for name, hint in hints.items() if name in names}


def _numeric(hint: Any) -> bool:
    return any(t in (int, float) for t in (typing.get_args(hint) or (hint,)))


def test_the_tasks_are_found() -> None:
    assert {"booookscore", "squality", "booksum", "quality", "longformfact"} <= set(TASKS)


def test_every_parameter_of_every_task_says_what_it_is() -> None:
    """Each parameter carries its `Param` (role, range, path-ness) on the parameter itself, so
    a new one cannot go unclassified (tasks/parameters.py)."""
    missing = [
        f"{task}.{name}"
        for task, function in TASKS.items()
        for name, param in task_parameters(function).items()
        if param is None
    ]
    assert not missing, f"annotate these with Annotated[type, Param(...)]: {missing}"


def test_every_numeric_parameter_of_every_task_has_a_range() -> None:
    missing = [
        f"{task}.{name}"
        for task, function in TASKS.items()
        for name, hint in _hints(function).items()
        if _numeric(hint) and name not in ranges(function)
    ]
    assert not missing, f"give these a range in their Param: {missing}"


def test_the_paths_and_model_side_parameters_are_those_the_tasks_read_as_such() -> None:
    assert path_names(TASKS["quality"]) == ("data", "prompts_dir")
    assert path_names(TASKS["judge_agreement"]) == ("data", "calibration", "books", "prompts_dir")
    assert role_names(TASKS["quality"], "option") == (
        "max_pages", "layout", "conditional", "k", "words", "min_words", "max_words",
    )  # fmt: skip
    assert role_names(TASKS["booksum"], "option") == ("preprocess", "compress")
    assert set(role_names(TASKS["squality"], "settings")) == {
        "target_words", "chunk_size", "context_window", "temperature", "prompts_dir", "cache",
    }  # fmt: skip


OUT_OF_RANGE: dict[int, list[Any]] = {
    id(POSITIVE): [0, -5],
    id(COUNT): [-1],
    id(FRACTION): [-0.1, 2.0, 1e9],
    id(OPEN_FRACTION): [0.0, 1.0],
    id(NON_NEGATIVE): [-0.1],
}
WRONG_TYPE_NUMBER = ["big", True, math.nan, math.inf, [1, 2]]
WRONG_TYPE_BOOL = ["maybe", "yes", 1, "true"]
WRONG_TYPE_TEXT = [[1, 2], {"a": 1}]


def _bad_values() -> list[tuple[str, str, Any, str]]:
    cases: list[tuple[str, str, Any, str]] = []
    for task, function in sorted(TASKS.items()):
        for name, hint in _hints(function).items():
            kinds = set(typing.get_args(hint) or (hint,))
            if _numeric(hint):
                allowed: Range = ranges(function)[name]
                for value in OUT_OF_RANGE[id(allowed)]:
                    cases.append((task, name, value, f"must be {allowed.says}"))
                for value in WRONG_TYPE_NUMBER:
                    cases.append((task, name, value, "Input should be"))
                if int in kinds:
                    cases.append((task, name, 1.5, "valid integer"))
            elif bool in kinds:
                for value in WRONG_TYPE_BOOL:
                    cases.append((task, name, value, "valid boolean"))
            elif str in kinds:
                for value in WRONG_TYPE_TEXT:
                    cases.append((task, name, value, "Input should be"))
    return cases


BAD_VALUES = _bad_values()


def test_the_table_covers_every_kind_of_parameter() -> None:
    assert len(BAD_VALUES) > 300
    assert {"chunk_size", "threshold", "temperature", "focus", "score_only", "data"} <= {
        name for _, name, _, _ in BAD_VALUES
    }


@pytest.mark.fault("task_argument", "clear error")
@pytest.mark.parametrize(("task", "name", "value", "says"), BAD_VALUES)
def test_a_bad_value_is_refused_at_creation(task: str, name: str, value: Any, says: str) -> None:
    with pytest.raises(TaskParameterError) as caught:
        TASKS[task](**{name: value})
    message = str(caught.value)
    assert f"task {task!r}: {name}={value!r}: " in message and says in message
    assert isinstance(caught.value, ValueError)


@pytest.mark.fault("task_argument", "clear error")
def test_an_error_is_printed_by_inspect_as_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from longform_evals import inspect_private

    monkeypatch.setattr(inspect_private, "_display_silenced", lambda: False)
    with pytest.raises(TaskParameterError) as caught:
        TASKS["squality"](focus="notbool")
    assert isinstance(caught.value, PrerequisiteError)
    assert caught.value.message == str(caught.value)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("task", "args"),
    [
        ("booookscore", {"chunk_size": 512, "temperature": 0, "judge_batch": 0, "cache": False}),
        ("squality", {"target_words": 150, "tolerance": 0.2, "temperature": 0.3}),
        ("longformfact", {"threshold": 0.5, "calibrate": 0.3, "max_tokens": 1}),
        ("quality", {"words": 3000, "k": 2, "max_pages": 1}),
        ("judge_agreement", {"threshold": 1.0, "budget": 10}),
    ],
)
def test_good_values_pass_unchanged(task: str, args: dict[str, Any]) -> None:
    inner = TASKS[task]
    while hasattr(inner, "__wrapped__"):
        inner = inner.__wrapped__
    checks = _type_checks(inner, list(args))
    for name, value in args.items():
        assert checks[name](task, name, value) == value


def test_a_number_where_text_is_expected_is_read_as_its_digits() -> None:
    inner = TASKS["squality"]
    while hasattr(inner, "__wrapped__"):
        inner = inner.__wrapped__
    assert _type_checks(inner, ["split"])["split"]("squality", "split", 2020) == "2020"
