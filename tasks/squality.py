"""`inspect eval tasks/squality.py`: question-focused story summaries (SQuALITY).

The package task `longform_evals/squality` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import narrative as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.squality)
def squality(**task_args: Any) -> Task:
    return package.squality(**task_args)
