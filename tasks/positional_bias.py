"""`inspect eval tasks/positional_bias.py`: faithfulness of multi-document summaries by order.

The package task `longform_evals/positional_bias` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import positional_bias as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.positional_bias)
def positional_bias(**task_args: Any) -> Task:
    return package.positional_bias(**task_args)
