"""The package's version and the folder it was launched from: a leaf module every layer may
import (the package's `__init__.py` re-exports both, and imports the task registry on first
use, so a module below it that read them from there would import back up)."""

from __future__ import annotations

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
where the user ran the command from; `tasks/X.py` resolves relative paths against it. The
package's `__init__.py` imports this module first thing, which fixes the value then."""
