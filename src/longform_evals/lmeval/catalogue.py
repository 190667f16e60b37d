"""The lm-eval tasks of the suite, one line each: which Inspect task builds its samples and
scorers, what kind of work it asks of a model, and how its data is named.

The lm-eval task ``longform_<name>`` (YAML in `tasks/`) is the package's Inspect task
``<name>``: the same loader, the same scorers. Adding a task here needs its YAML file and a
line in `tests/lmeval/test_agreement.py`; `tests/lmeval/test_task_folder.py` checks that the
folder and this table agree.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai import Task

from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.longformfact import longformfact
from longform_evals.tasks.narrative import booksum, squality
from longform_evals.tasks.reading import narrativeqa, qmsum, quality

Family = Literal["reading", "summary", "judge"]
"""What a task asks of the model: answer questions on a document, summarize one, or judge
given summaries (LongFormFact: the model under evaluation is the faithfulness judge)."""


class LmEvalSetupError(ValueError):
    """An lm-eval task or wrapper was set up wrongly (unknown task, missing data, a
    strategy that cannot serve the task); the message says what to change."""


@dataclass(frozen=True)
class TaskSpec:
    """One lm-eval task of the suite."""

    factory: Callable[..., Task]
    """The package's Inspect task function."""
    family: Family
    data_parameter: str
    """The task function's parameter naming its data (``data`` or ``data_dir``)."""
    data_required: bool
    """No published copy is read when the data is omitted (QMSum, and BooookScore's
    bundled stories are its default, so it is not required there)."""
    judged: Callable[[Mapping[str, Any]], bool]
    """Whether the task's scorers call the judge (the ``grader`` role), given its arguments."""

    def parameters(self) -> list[str]:
        """The task function's parameter names."""
        return [
            name
            for name, p in inspect.signature(self.factory).parameters.items()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        ]


def _always(_: Mapping[str, Any]) -> bool:
    return True


def _with_coherence(args: Mapping[str, Any]) -> bool:
    return bool(args.get("coherence", False))


TASKS: dict[str, TaskSpec] = {
    "quality": TaskSpec(quality, "reading", "data", False, lambda _: False),
    "narrativeqa": TaskSpec(narrativeqa, "reading", "data", False, _always),
    "qmsum": TaskSpec(qmsum, "reading", "data", True, _always),
    "squality": TaskSpec(squality, "summary", "data", False, _with_coherence),
    "booksum": TaskSpec(booksum, "summary", "data", False, _with_coherence),
    "booookscore": TaskSpec(booookscore, "summary", "data", False, _always),
    "longformfact": TaskSpec(longformfact, "judge", "data_dir", False, _always),
}
"""The suite's tasks under lm-eval, by Inspect task name."""

_NOT_STRATEGY = {
    "data", "strategy", "coherence", "hard_only", "kind", "query_types", "split", "level",
    "summaries_only", "rater_rule", "tolerance", "score_only", "focus", "judge_batch",
    "judge_cache", "judge_layout", "judge_mode",
}  # fmt: skip

STRATEGY_PARAMETERS = (
    frozenset(p for spec in TASKS.values() if spec.family != "judge" for p in spec.parameters())
    - _NOT_STRATEGY
)
"""Task parameters that shape how a model reads or summarizes: a wrapper's ``model_args`` (the
others choose data or scoring, and belong to the task's metadata)."""


def task_spec(name: str) -> TaskSpec:
    """The table entry of ``name`` (an Inspect task name), or a clear error."""
    try:
        return TASKS[name]
    except KeyError:
        raise LmEvalSetupError(
            f"no lm-eval task for {name!r}; the suite's are: {', '.join(TASKS)}"
        ) from None
