"""``longform lm-eval ...``: lm-eval's command line with the suite's wrappers and tasks.

lm-eval finds models only in its own registry (it has no plugin discovery), so the launcher
imports `wrappers` (which registers ``longform-readagent`` and the others) and adds the
packaged task folder to ``--include_path`` before handing the arguments to lm-eval. A first
argument that is an option means ``run`` (lm-eval's own default).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from longform_evals.lmeval import TASK_FOLDER

SUBCOMMANDS = ("run", "ls", "list", "validate")
"""lm-eval's subcommands (``ls`` and ``list`` are one)."""


def lm_eval_argv(args: Sequence[str]) -> list[str]:
    """The argv handed to lm-eval: subcommand first, the task folder included."""
    argv = list(args)
    if not argv or argv[0].startswith("-"):
        argv.insert(0, "run")
    if argv[0] in SUBCOMMANDS and "-h" not in argv and "--help" not in argv:
        if "--include_path" in argv:
            at = argv.index("--include_path") + 1
            if at < len(argv):
                argv[at] = os.pathsep.join([argv[at], str(TASK_FOLDER)])
        else:
            argv += ["--include_path", str(TASK_FOLDER)]
    return ["lm-eval", *argv]


def main(args: Sequence[str]) -> None:
    """Run lm-eval's command line on ``args`` with the wrappers registered."""
    try:
        from lm_eval.__main__ import cli_evaluate

        import longform_evals.lmeval.wrappers  # noqa: F401  (registers the wrapper LMs)
    except ImportError as exc:
        raise SystemExit(
            f"longform lm-eval needs lm-eval: pip install 'longform-evals[lm-eval]' ({exc})"
        ) from exc
    from longform_evals.lmeval.catalogue import LmEvalSetupError
    from longform_evals.lmeval.scoring import LmEvalRunError

    sys.argv = lm_eval_argv(args)
    try:
        cli_evaluate()
    except (LmEvalSetupError, LmEvalRunError) as exc:
        raise SystemExit(f"longform lm-eval: {exc}") from exc
