"""`inspect eval tasks/qmsum.py`: the package task, re-exported."""

from longform_evals.tasks.reading import qmsum

__all__ = ["qmsum"]
