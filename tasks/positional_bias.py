"""`inspect eval tasks/positional_bias.py`: faithfulness of multi-document summaries by order.

The package task `longform_evals/positional_bias` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import positional_bias as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.positional_bias)
def positional_bias(**task_args: Any) -> Task:
    return package.positional_bias(**task_args)
