"""`inspect eval tasks/narrativeqa.py`: questions about NarrativeQA stories.

The package task `longform_evals/narrativeqa` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import reading as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.narrativeqa)
def narrativeqa(**task_args: Any) -> Task:
    return package.narrativeqa(**task_args)
