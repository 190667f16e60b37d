"""`inspect eval tasks/booksum.py`: BookSum chapter or book summaries against references.

The package task `longform_evals/booksum` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import narrative as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.booksum)
def booksum(**task_args: Any) -> Task:
    return package.booksum(**task_args)
