"""The task functions on the package itself: `longform_evals.quality`, `from longform_evals
import squality`. They are the registered tasks, every one of them, and asking for one is what
imports them: a bare `import longform_evals` (which the root task files, the command and
Inspect's plugin loading all do first) imports neither Inspect nor any other package module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import longform_evals
from helpers import task_functions
from longform_evals import _registry

REPO = Path(__file__).resolve().parent.parent


def _fresh(code: str) -> dict[str, object]:
    """What `code` prints as JSON, run in a new interpreter (nothing imported before it)."""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_every_task_is_offered_by_its_name() -> None:
    root = {name for path in (REPO / "tasks").glob("*.py") for name in task_functions(path)}
    assert set(longform_evals.TASK_NAMES) == root
    for name in longform_evals.TASK_NAMES:
        assert getattr(longform_evals, name) is getattr(_registry, name), name
    assert set(longform_evals.TASK_NAMES) <= set(longform_evals.__all__)
    assert set(longform_evals.TASK_NAMES) <= set(dir(longform_evals))


def test_from_import_gives_the_registered_task() -> None:
    from longform_evals import quality, squality

    assert quality is _registry.quality and squality is _registry.squality


def test_other_names_are_still_missing_attributes_and_submodules_still_import() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'bogus'"):
        _ = longform_evals.bogus
    assert not hasattr(longform_evals, "quality_scorer")
    from longform_evals import vocabulary  # a submodule, not a task: imported as before

    assert vocabulary.__name__ == "longform_evals.vocabulary"


def test_importing_the_package_stays_light_until_a_task_is_asked_for() -> None:
    seen = _fresh(
        "import json, sys\n"
        "import longform_evals\n"
        "mine = ('inspect_ai', 'longform_evals')\n"
        "before = sorted(m for m in sys.modules if m.startswith(mine))\n"
        "task = longform_evals.booksum\n"
        "print(json.dumps({'before': before, 'after': 'inspect_ai' in sys.modules,\n"
        "                  'module': task.__module__}))\n"
    )
    assert seen["before"] == ["longform_evals", "longform_evals.about"]
    assert seen["after"] is True
    assert seen["module"] == "longform_evals.tasks.narrative"
