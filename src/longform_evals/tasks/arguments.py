"""Task arguments given on the command line (`-T key=value`): parsing and checking."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from longform_evals.analysis.ordering import Embed
from longform_evals.models.embeddings import load_embedder

P = ParamSpec("P")
R = TypeVar("R")

_UNKNOWN = "unknown_task_args"


class TaskParameterError(ValueError):
    """A task was given a parameter it does not take; the message lists the valid ones."""


def strict_parameters(func: Callable[P, R]) -> Callable[P, R]:
    """Make a task factory refuse parameters it does not take (put it under `@task`).

    Inspect only logs a warning for a `-T` argument no parameter takes and runs the task
    without it, so a misspelt or misremembered option silently runs the default. The
    wrapper declares a catch-all `**` parameter, which makes Inspect pass every argument
    through, and raises :class:`TaskParameterError` naming the unknown ones and listing the
    valid ones.
    """
    signature = inspect.signature(func)
    valid = [name for name, p in signature.parameters.items() if p.kind != p.VAR_KEYWORD]

    @functools.wraps(func)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        unknown = [name for name in kwargs if name not in valid]
        if unknown:
            raise TaskParameterError(
                f"task {func.__name__!r} has no parameter "
                + ", ".join(repr(name) for name in unknown)
                + f"; its parameters are: {', '.join(valid)}"
            )
        return func(*args, **kwargs)

    catch_all = inspect.Parameter(_UNKNOWN, inspect.Parameter.VAR_KEYWORD, annotation=Any)
    checked.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), catch_all]
    )
    return checked


def same_parameters_as(package_task: Callable[..., Any]) -> Callable[[R], R]:
    """Give a `tasks/X.py` entry function the signature and docstring of the package task it
    runs, so Inspect lists the task's parameters and passes every `-T` argument on (the
    package task checks them)."""

    def copy(entry: R) -> R:
        entry.__signature__ = inspect.signature(package_task)  # type: ignore[attr-defined]
        entry.__doc__ = package_task.__doc__
        return entry

    return copy


def comma_list(value: str | list[str] | None) -> list[str] | None:
    """`"a, b"` -> `["a", "b"]`; a list is kept; None stays None (meaning "all")."""
    if value is None or isinstance(value, list):
        return value
    return [v.strip() for v in value.split(",") if v.strip()]


def similarity_embedder(ranking: str) -> Embed | None:
    """The embedder for `-T ranking=`: `embedding` (the packaged sentence embedder, the
    paper's choice; needs the `embed` extra), `lexical` (word overlap, no extra; None), or a
    sentence-transformers model folder prefixed `embedding:`."""
    if ranking == "lexical":
        return None
    if ranking == "embedding":
        return load_embedder()
    if ranking.startswith("embedding:"):
        return load_embedder(ranking.removeprefix("embedding:"))
    raise ValueError(
        f"unknown ranking {ranking!r}; use 'embedding', 'embedding:<model folder>' or 'lexical'"
    )
