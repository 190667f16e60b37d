"""The suite under EleutherAI's lm-evaluation-harness (docs/lm-eval.md).

`tasks/` is an lm-eval task folder (``lm_eval --include_path``); its tasks read data through
the package's loaders and score through the package's Inspect scorers. `wrappers.py` registers
the strategy wrapper LMs (``longform-readagent`` and the others), which run the Inspect solvers
around an inner model; `launcher.py` is ``longform lm-eval``. Importing this package imports
neither lm-eval nor Inspect's evaluator, so the `lm-eval` extra is needed only when used.
"""

from __future__ import annotations

from pathlib import Path

TASK_FOLDER = Path(__file__).resolve().parent / "tasks"
"""The lm-eval task folder: pass it to ``lm_eval --include_path`` or ``TaskManager``."""

__all__ = ["TASK_FOLDER"]
