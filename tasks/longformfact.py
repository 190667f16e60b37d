"""`inspect eval tasks/longformfact.py`: meta-evaluation of the faithfulness judge on LongFormFact.

The package task `longform_evals/longformfact` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import longformfact as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.longformfact)
def longformfact(**task_args: Any) -> Task:
    return package.longformfact(**task_args)
