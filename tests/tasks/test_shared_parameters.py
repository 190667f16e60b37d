"""`sharing`: sibling tasks declare a family's parameters once, and every reader of a task's
parameters (Inspect, `-T` checks, roles, docstrings) sees them."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import pytest

from longform_evals.tasks.arguments import TaskParameterError, strict_parameters
from longform_evals.tasks.narrative import booksum, squality
from longform_evals.tasks.parameters import (
    DATA,
    Pages,
    PromptsDir,
    ranges,
    role_names,
    sharing,
)
from longform_evals.tasks.reading import narrativeqa, qmsum, quality


def _group(pages: Pages = 3, prompts_dir: PromptsDir = None) -> None:
    """A group.

    Args:
        pages: pages to read.
        prompts_dir: where prompts are.
    """


def _task() -> Any:
    """A fresh task function (`sharing` composes the function it is given, in place)."""

    def task(data: Annotated[str | None, DATA] = None, **shared: Any) -> dict[str, Any]:
        """A task.

        Args:
            data: the items.

        Returns:
            The arguments.
        """
        return shared

    return task


def test_the_group_parameters_follow_the_tasks_own() -> None:
    composed = strict_parameters(sharing(_group)(_task()))
    assert list(inspect.signature(composed).parameters)[:3] == ["data", "pages", "prompts_dir"]
    assert role_names(composed, "option") == ("pages",)
    assert ranges(composed)["pages"].low == 1
    assert composed(pages=2) == {"pages": 2}
    with pytest.raises(TaskParameterError, match="pages=0"):
        composed(pages=0)
    with pytest.raises(TaskParameterError, match="'page'"):
        composed(page=2)


def test_the_docstring_lists_the_group_parameters_inside_args() -> None:
    doc = sharing(_group)(_task()).__doc__ or ""
    args, returns = doc.split("Returns:")
    assert "data: the items." in args and "pages: pages to read." in args
    assert "prompts_dir: where prompts are." in args and "The arguments." in returns
    indent = {
        line.strip().split(":")[0]: len(line) - len(line.lstrip()) for line in args.split("\n")
    }
    assert indent["pages"] == indent["data"]  # indented as the task's own entries


def test_a_task_without_a_catch_all_or_redeclaring_a_group_parameter_is_refused() -> None:
    def plain(data: str | None = None) -> None:
        """Args:
        data: x."""

    def again(pages: int = 1, **shared: Any) -> None:
        """Args:
        pages: x."""

    with pytest.raises(TypeError, match="needs a \\*\\*shared"):
        sharing(_group)(plain)
    with pytest.raises(TypeError, match="pages"):
        sharing(_group)(again)


@pytest.mark.parametrize("siblings", [(quality, narrativeqa, qmsum), (booksum, squality)])
def test_siblings_share_their_family_parameters(siblings: tuple[Any, ...]) -> None:
    tails = []
    for factory in siblings:
        parameters = inspect.signature(factory).parameters
        start = list(parameters).index("strategy")
        tails.append([(n, p.default) for n, p in parameters.items()][start:])
        doc = factory.__doc__ or ""
        assert all(f"        {name}: " in doc for name in parameters if name != "unknown_task_args")
    assert all(tail == tails[0] for tail in tails)
