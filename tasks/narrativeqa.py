"""`inspect eval tasks/narrativeqa.py`: the package task, re-exported."""

from longform_evals.tasks.reading import narrativeqa

__all__ = ["narrativeqa"]
