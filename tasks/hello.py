"""`inspect eval tasks/hello.py`: the smoke task of the package.

The package task `longform_evals/hello_longform` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import hello as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.hello_longform)
def hello_longform(**task_args: Any) -> Task:
    return package.hello_longform(**task_args)
