"""Inspect's evaluation linter (`inspect-evals-lint`, configured in pyproject.toml) finds
nothing: every check is met, skipped as not applicable, or suppressed in the file it concerns
with the reason written beside it (the linter refuses a suppression without one)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_the_linter_passes_with_no_finding_left() -> None:
    linter = shutil.which("inspect-evals-lint", path=str(Path(sys.executable).parent))
    if linter is None:
        pytest.skip("inspect-evals-lint is not installed (the `dev` extra)")
    run = subprocess.run(
        [linter, "--all", "--output-format", "json"], cwd=REPO, capture_output=True, text=True
    )
    report = json.loads(run.stdout)
    findings = [
        f"{d['status']} {d['code']} {d.get('file')}:{d.get('line')} {d['message']}"
        for package in report["packages"]
        for d in package["diagnostics"]
        if d["status"] in ("fail", "warn")
    ]
    assert report["passed"] and run.returncode == 0, findings
    assert findings == []
    assert report["summary"]["pass"] >= 20  # the checks ran, not just skipped
