"""`inspect eval tasks/qmsum.py`: query-focused meeting summaries (QMSum).

The package task `longform_evals/qmsum` under its own name, with the same parameters;
relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import reading as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.qmsum)
def qmsum(**task_args: Any) -> Task:
    return package.qmsum(**task_args)
