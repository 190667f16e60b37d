"""`inspect eval tasks/booookscore.py --model ...`: book summarization scored with BooookScore."""

from longform_evals.tasks.booookscore import booookscore

__all__ = ["booookscore"]
