"""`inspect eval tasks/squality.py`: the package task, re-exported."""

from longform_evals.tasks.narrative import squality

__all__ = ["squality"]
