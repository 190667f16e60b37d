"""longform-evals: Inspect AI evaluations of long-document summarization and reading."""

import os

__version__ = "0.1.0"


def _working_dir() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the directory was removed
        return None


LAUNCH_DIR = _working_dir()
"""The working directory when the package was first imported. `inspect eval` imports it
(through its plugin entry point) before it changes into a task file's folder, so this is
where the user ran the command from; `tasks/X.py` resolves relative paths against it."""
