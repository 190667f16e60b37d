"""`inspect eval tasks/judge_agreement.py`: how far a judge agrees with people's labels.

The package task `longform_evals/judge_agreement` under its own name, with the same
parameters; relative paths are read from where the command is run, not from `tasks/`.
"""

from typing import Any

from inspect_ai import Task, task

from longform_evals.tasks import judge_agreement as package
from longform_evals.tasks.arguments import file_entry


@task
@file_entry(package.judge_agreement)
def judge_agreement(**task_args: Any) -> Task:
    return package.judge_agreement(**task_args)
