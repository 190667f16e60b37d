"""`inspect eval tasks/booookscore.py`: book summarization scored with BooookScore.

The package task `longform_evals/booookscore` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import booookscore as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.booookscore)
def booookscore(**task_args: Any) -> Task:
    return package.booookscore(**task_args)
