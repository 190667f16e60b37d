"""`inspect eval tasks/narrativeqa.py`: questions about NarrativeQA stories.

The package task `longform_evals/narrativeqa` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import reading as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.narrativeqa)
def narrativeqa(**task_args: Any) -> Task:
    return package.narrativeqa(**task_args)
