"""Task arguments given on the command line (`-T key=value`): parsing and checking."""

from __future__ import annotations

import functools
import inspect
import os
import sys
import typing
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

from pydantic import ConfigDict, PydanticSchemaGenerationError, TypeAdapter, ValidationError

from longform_evals import about
from longform_evals.analysis.ordering import Embed
from longform_evals.inspect_private import readable_error
from longform_evals.models.embeddings import load_embedder
from longform_evals.tasks.parameters import (
    COUNT,
    FRACTION,
    NON_NEGATIVE,
    OPEN_FRACTION,
    POSITIVE,
    Range,
    path_names,
    ranges,
)

__all__ = [
    "COUNT",
    "FRACTION",
    "NON_NEGATIVE",
    "OPEN_FRACTION",
    "POSITIVE",
    "Range",
    "TaskParameterError",
    "call_arguments",
    "checked_values",
    "comma_list",
    "file_entry",
    "from_launch_dir",
    "given_path",
    "similarity_embedder",
    "strict_parameters",
]

P = ParamSpec("P")
R = TypeVar("R")

_UNKNOWN = "unknown_task_args"


_CALL: ContextVar[dict[str, Any] | None] = ContextVar("longform_task_call", default=None)


def call_arguments() -> dict[str, Any]:
    """The arguments of the task being built, as :func:`strict_parameters` resolved them once:
    every parameter, a default where none was given, each value checked (a task body hands
    them to its family's builder with this, rather than with ``locals()``).

    Raises:
        RuntimeError: Outside a task function under `@strict_parameters`.
    """
    found = _CALL.get()
    if found is None:
        raise RuntimeError("call_arguments() is for the body of a task under @strict_parameters")
    return dict(found)


class TaskParameterError(ValueError):
    """A task was given a parameter it does not take (the message lists the valid ones) or a
    value its parameter cannot take (the message says what was expected)."""


def strict_parameters(func: Callable[P, R]) -> Callable[P, R]:
    """Make a task factory refuse parameters it does not take (put it under `@task`).

    Inspect only logs a warning for a `-T` argument no parameter takes and runs the task
    without it, so a misspelt or misremembered option silently runs the default. The
    wrapper declares a catch-all `**` parameter, which makes Inspect pass every argument
    through, and raises :class:`TaskParameterError` naming the unknown ones and listing the
    valid ones. A ``ValueError`` the task raises on a bad value (a ``DataError`` included)
    keeps its class but is made one Inspect's command line prints as a message alone, not a
    traceback (:func:`~longform_evals.inspect_private.readable_error`). While the task is
    built, its arguments, checked and with every default bound, are :func:`call_arguments`.
    """
    signature = inspect.signature(func)
    valid = [name for name, p in signature.parameters.items() if p.kind != p.VAR_KEYWORD]

    typed = _type_checks(func, valid)
    paths = path_names(func)

    @functools.wraps(func)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        unknown = [name for name in kwargs if name not in valid]
        if unknown:
            message = (
                f"task {func.__name__!r} has no parameter "
                + ", ".join(repr(name) for name in unknown)
                + f"; its parameters are: {', '.join(valid)}"
            )
            raise readable_error(TaskParameterError(message), message)
        for name in paths:
            if name in kwargs:
                kwargs[name] = given_path(name, kwargs[name])
        for name, value in kwargs.items():
            if name in typed:
                kwargs[name] = typed[name](func.__name__, name, value)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        resolved = _CALL.set(dict(bound.arguments))
        try:
            return func(*args, **kwargs)
        except ValueError as exc:  # a bad value: Inspect prints the message, no traceback
            raise readable_error(exc, f"task {func.__name__!r}: {exc}") from None
        finally:
            _CALL.reset(resolved)

    catch_all = inspect.Parameter(_UNKNOWN, inspect.Parameter.VAR_KEYWORD, annotation=Any)
    checked.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), catch_all]
    )
    return checked


_STRICT = ConfigDict(strict=True, allow_inf_nan=False)
"""Types as written: booleans only true/false, integers only whole numbers (not "5", not
5.0, not true), numbers finite."""


def _type_checks(
    func: Callable[..., Any], names: list[str]
) -> dict[str, Callable[[str, str, Any], Any]]:
    """A checker per parameter whose annotation pydantic can validate: it returns the value,
    or raises a :class:`TaskParameterError` naming the parameter, the value and what is
    allowed (the type, strictly, then the range its `Param` gives: `tasks/parameters.py`).
    Inspect passes
    `-T` values as YAML parsed them, so `-T chunk_size=abc` arrives as a string and
    `-T chunk_size=-5` as a number that would fail deep inside the task."""
    try:
        hints = typing.get_type_hints(func)
    except (NameError, TypeError):  # an annotation that cannot be resolved: nothing checked
        return {}
    checks: dict[str, Callable[[str, str, Any], Any]] = {}
    allowed = ranges(func)
    for name in names:
        if name not in hints:
            continue
        try:
            adapter: TypeAdapter[Any] = TypeAdapter(hints[name], config=_STRICT)
        except (PydanticSchemaGenerationError, TypeError):  # not a plain type: the task checks
            continue
        checks[name] = functools.partial(_validated, adapter, allowed.get(name))
    return checks


def checked_values(task: Callable[..., Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` of the task function ``task`` (its ``@task`` wrapper, or the function),
    checked against each parameter's type and range as at task creation (a plan checks its
    variants with this before anything runs).

    Raises:
        TaskParameterError: Naming the task, the parameter, the value and what is allowed.
    """
    inner = task
    while hasattr(inner, "__wrapped__"):
        inner = inner.__wrapped__
    checks = _type_checks(inner, list(args))
    name = getattr(inner, "__name__", "task")
    return {k: checks[k](name, k, v) if k in checks else v for k, v in args.items()}


def _validated(
    adapter: TypeAdapter[Any], allowed: Range | None, task: str, name: str, value: Any
) -> Any:
    def refuse(reason: str) -> TaskParameterError:
        message = f"task {task!r}: {name}={value!r}: {reason}"
        return cast(TaskParameterError, readable_error(TaskParameterError(message), message))

    try:
        checked = adapter.validate_python(value)
    except ValidationError as exc:
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:  # a number where text is expected ("-T split=2020"): its digits
                return adapter.validate_python(str(value))
            except ValidationError:
                pass
        raise refuse("; ".join(error["msg"] for error in exc.errors())) from None
    number = isinstance(checked, int | float) and not isinstance(checked, bool)
    if allowed is not None and number and not allowed.allows(checked):
        raise refuse(f"must be {allowed.says}")
    return checked


def _typed_task_arg(name: str, argv: list[str]) -> str | None:
    """The text after ``name=`` of the last ``-T`` argument for ``name`` in ``argv``, as
    typed (Inspect's ``-T`` takes the key with ``-`` or ``_``), or None."""
    found = None
    for index, arg in enumerate(argv):
        if arg == "-T" and index + 1 < len(argv):
            pair = argv[index + 1]
        elif arg.startswith("-T") and "=" in arg:
            pair = arg[2:]
        else:
            continue
        key, sep, text = pair.partition("=")
        if sep and key.replace("-", "_") == name:
            found = text
    return found


def _path_exists(text: str) -> bool:
    """Whether ``text`` names an entry (a broken link too) here or in the launch folder."""
    launch = about.LAUNCH_DIR
    try:
        return os.path.lexists(text) or (
            launch is not None and os.path.lexists(os.path.join(launch, text))
        )
    except ValueError:  # a NUL character
        return False


def given_path(name: str, value: Any) -> Any:
    """The file or folder the user named for the path parameter ``name``, as they typed it.

    Inspect reads each ``-T`` value as YAML and splits it at commas, so a file name can reach
    the task changed: ``a,b.jsonl`` as a list, ``notes #2.jsonl`` cut at the ``#``,
    ``#draft.jsonl`` and ``~`` as None (the packaged data, silently), ``yes`` as a boolean,
    ``2024-01-01`` as a date, ``1.50`` as ``1.5``. When the value that arrived names nothing
    that exists, the text typed after ``-T name=`` on this process's command line is used
    instead; a list of strings is joined back with commas; a leading ``~`` is expanded to the
    home folder when that names an entry.

    Args:
        name: The parameter (one whose `Param` says it names a path).
        value: What Inspect (or a caller) passed.

    Returns:
        The path as text, or ``value`` unchanged when nothing better is known.
    """
    text = value if isinstance(value, str) else None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        text = ",".join(value)
    typed = _typed_task_arg(name, sys.argv[1:])
    if typed is not None and typed != text and (text is None or not _path_exists(text)):
        text = typed
    if text is not None and text.startswith("~"):
        home = os.path.expanduser(text)
        text = home if home != text and _path_exists(home) else text
    return text if text is not None else value


def from_launch_dir(task_args: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """Relative paths among the task arguments, made absolute against the directory the
    command was run from (:data:`longform_evals.about.LAUNCH_DIR`) where they exist there.

    Inspect creates and runs a task of `inspect eval tasks/X.py` in the file's folder, so
    `-T data=my.jsonl` given from the repository root would otherwise be looked for in
    `tasks/`. A path that exists only relative to the task file's folder is left alone.
    A path Inspect's reading of ``-T`` changed is first taken as typed (:func:`given_path`).
    """
    launch = about.LAUNCH_DIR
    resolved = dict(task_args)
    for name in paths:
        if name in resolved:
            resolved[name] = given_path(name, resolved[name])
        value = resolved.get(name)
        if launch is None:
            continue
        if isinstance(value, str) and value and not Path(value).is_absolute():
            candidate = Path(launch) / value
            if os.path.lexists(candidate):  # a broken link too: its loader names it
                resolved[name] = str(candidate)
    return resolved


def file_entry(package_task: Callable[..., R]) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Make a `tasks/X.py` entry function run the package task (put it under `@task`).

    The entry gets the package task's signature and docstring, so Inspect lists the task's
    parameters and passes every `-T` argument on (the package task checks them); relative
    paths are resolved as :func:`from_launch_dir` says.
    """

    def wrap(entry: Callable[..., R]) -> Callable[..., R]:
        paths = path_names(package_task)

        @functools.wraps(entry)
        def run(**task_args: Any) -> R:
            return entry(**from_launch_dir(task_args, paths))

        run.__signature__ = inspect.signature(package_task)  # type: ignore[attr-defined]
        run.__doc__ = package_task.__doc__
        return run

    return wrap


def comma_list(value: str | list[str] | None) -> list[str] | None:
    """`"a, b"` -> `["a", "b"]`; a list is kept; None stays None (meaning "all")."""
    if value is None or isinstance(value, list):
        return value
    return [v.strip() for v in value.split(",") if v.strip()]


def similarity_embedder(ranking: str) -> Embed | None:
    """The embedder for `-T ranking=`: `embedding` (the packaged sentence embedder, the
    paper's choice; needs the `embed` extra), `lexical` (word overlap, no extra; None), or a
    sentence-transformers model folder prefixed `embedding:`. The model is loaded on first
    use, so inputs that all carry their own ranking never load it."""
    if ranking == "lexical":
        return None
    if ranking == "embedding":
        return _loaded_on_first_use(None)
    if ranking.startswith("embedding:"):
        return _loaded_on_first_use(ranking.removeprefix("embedding:"))
    raise ValueError(
        f"unknown ranking {ranking!r}; use 'embedding', 'embedding:<model folder>' or 'lexical'"
    )


def _loaded_on_first_use(name: str | None) -> Embed:
    loaded: list[Embed] = []

    def embed(texts: list[str]) -> list[list[float]]:
        if not loaded:
            loaded.append(load_embedder() if name is None else load_embedder(name))
        return loaded[0](texts)

    return embed
