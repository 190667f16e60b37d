"""`inspect eval tasks/qmsum.py`: query-focused meeting summaries (QMSum).

The package task `longform_evals/qmsum` under its own name, with the same parameters.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import reading as package
from longform_evals.tasks.arguments import same_parameters_as


@task
@same_parameters_as(package.qmsum)
def qmsum(**task_args: Any) -> Task:
    return package.qmsum(**task_args)
