"""`inspect eval tasks/hello.py --model ...`: the smoke task of the package."""

from longform_evals.tasks.hello import hello_longform

__all__ = ["hello_longform"]
