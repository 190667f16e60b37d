"""Entry point for Inspect: importing this module registers the package's tasks and models.

Inspect only logs a warning when this import fails, so it is kept light (heavy dependencies
are imported lazily inside the registered factories) and is covered by a test.
"""

from longform_evals.models.providers import gguf, scripted
from longform_evals.tasks.hello import hello_longform

__all__ = ["gguf", "hello_longform", "scripted"]
