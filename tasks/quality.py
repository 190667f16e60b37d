"""`inspect eval tasks/quality.py`: the package task, re-exported."""

from longform_evals.tasks.reading import quality

__all__ = ["quality"]
