"""`inspect eval tasks/longformfact.py`: meta-evaluation of the faithfulness judge on LongFormFact.

The package task `longform_evals/longformfact` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import longformfact as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.longformfact)
def longformfact(**task_args: Any) -> Task:
    return package.longformfact(**task_args)
