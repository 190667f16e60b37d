"""`inspect eval tasks/booksum.py`: BookSum chapter or book summaries against references.

The package task `longform_evals/booksum` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import narrative as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.booksum)
def booksum(**task_args: Any) -> Task:
    return package.booksum(**task_args)
