"""`inspect eval tasks/booookscore.py`: book summarization scored with BooookScore.

The package task `longform_evals/booookscore` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import booookscore as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.booookscore)
def booookscore(**task_args: Any) -> Task:
    return package.booookscore(**task_args)
