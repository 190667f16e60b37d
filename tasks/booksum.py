"""`inspect eval tasks/booksum.py`: the package task, re-exported."""

from longform_evals.tasks.narrative import booksum

__all__ = ["booksum"]
