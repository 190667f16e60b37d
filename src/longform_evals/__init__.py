"""longform-evals: Inspect AI evaluations of long-document summarization and reading."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from longform_evals.about import LAUNCH_DIR, __version__

if TYPE_CHECKING:
    from inspect_ai import Task

    # the task functions `__getattr__` imports on first use
    from longform_evals._registry import (
        booksum,
        booookscore,
        hello_longform,
        judge_agreement,
        longformfact,
        narrativeqa,
        positional_bias,
        qmsum,
        quality,
        squality,
    )

__all__ = [
    "LAUNCH_DIR",
    "TASK_NAMES",
    "__version__",
    # The task functions, imported on first use (`__getattr__` below); listed here by name so
    # that readers and tools (`inspect-evals-lint`) see what the package exports.
    "booksum",
    "booookscore",
    "hello_longform",
    "judge_agreement",
    "longformfact",
    "narrativeqa",
    "positional_bias",
    "qmsum",
    "quality",
    "squality",
]

TASK_NAMES = tuple(__all__[3:])
"""The suite's task functions, offered as `longform_evals.<name>` (`from longform_evals import
quality`); the same functions `inspect eval longform_evals/<name>` runs."""


def __getattr__(name: str) -> Callable[..., Task]:
    """A task function, imported on first use: the tasks import Inspect and most of the
    package, which `import longform_evals` must not pay for."""
    if name not in TASK_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from longform_evals import _registry  # the one place every task is imported

    function: Callable[..., Task] = getattr(_registry, name)
    globals()[name] = function  # later look-ups skip this function
    return function


def __dir__() -> list[str]:
    return sorted({*globals(), *TASK_NAMES})
