"""`inspect eval tasks/hello.py`: the smoke task of the package.

The package task `longform_evals/hello_longform` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import hello as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.hello_longform)
def hello_longform(**task_args: Any) -> Task:
    return package.hello_longform(**task_args)
