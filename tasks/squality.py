"""`inspect eval tasks/squality.py`: question-focused story summaries (SQuALITY).

The package task `longform_evals/squality` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import narrative as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.squality)
def squality(**task_args: Any) -> Task:
    return package.squality(**task_args)
