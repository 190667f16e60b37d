"""The lm-eval tasks of the suite: the task cards (`tasks/cards.py`) that offer lm-eval.

The lm-eval task ``longform_<name>`` (YAML in `tasks/`) is the package's Inspect task
``<name>``: the same loader, the same scorers. Its card says which Inspect task builds its
samples and scorers, what kind of work it asks of a model, how its data is named and when it
is judged. Adding a task here needs its YAML file and a line in
`tests/lmeval/test_agreement.py`; `tests/lmeval/test_task_folder.py` checks that the folder
and the cards agree.
"""

from __future__ import annotations

from longform_evals.tasks.card import Family, TaskCard
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.parameters import role_names

__all__ = ["TASKS", "Family", "LmEvalSetupError", "task_spec"]


class LmEvalSetupError(ValueError):
    """An lm-eval task or wrapper was set up wrongly (unknown task, missing data, a
    strategy that cannot serve the task); the message says what to change."""


TASKS: dict[str, TaskCard] = {name: card for name, card in TASK_CARDS.items() if card.lm_eval}
"""The suite's tasks under lm-eval, by Inspect task name."""

STRATEGY_PARAMETERS = frozenset(
    name
    for spec in TASKS.values()
    if spec.family != "judge"
    for name in role_names(spec.factory, "option", "settings")
)
"""Task parameters that shape how a model reads or summarizes, by their role
(`tasks/parameters.py`): a wrapper's ``model_args`` (the others choose data or scoring, and
belong to the task's metadata; the strategy is the wrapper's own choice)."""


def task_spec(name: str) -> TaskCard:
    """The table entry of ``name`` (an Inspect task name), or a clear error."""
    try:
        return TASKS[name]
    except KeyError:
        raise LmEvalSetupError(
            f"no lm-eval task for {name!r}; the suite's are: {', '.join(TASKS)}"
        ) from None
