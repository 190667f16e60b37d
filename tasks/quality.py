"""`inspect eval tasks/quality.py`: multiple-choice questions about long articles (QuALITY).

The package task `longform_evals/quality` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import reading as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.quality)
def quality(**task_args: Any) -> Task:
    return package.quality(**task_args)
