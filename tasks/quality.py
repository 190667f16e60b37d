"""`inspect eval tasks/quality.py`: multiple-choice questions about long articles (QuALITY).

The package task `longform_evals/quality` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import reading as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.quality)
def quality(**task_args: Any) -> Task:
    return package.quality(**task_args)
