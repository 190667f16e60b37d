"""The GitHub Actions example of docs/ci.md: valid YAML whose `longform check` steps parse with
the command's own options, and the pytest plugin the docs describe."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from longform_evals.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "longform-check.yml"


def _steps() -> list[dict[str, Any]]:
    workflow = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    assert workflow["name"] and workflow["jobs"], workflow
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_every_longform_check_step_parses_with_the_commands_options() -> None:
    commands = [s["run"] for s in _steps() if "run" in s and "longform check" in s["run"]]
    assert len(commands) == 2, commands
    for command in commands:
        words = shlex.split(command)
        assert words[:2] == ["longform", "check"], command
        # make_context parses (and so validates) the options without running the checks.
        with main.make_context("longform", words[1:], resilient_parsing=False) as ctx:
            sub = main.get_command(ctx, "check")
            assert sub is not None
            sub.make_context("check", words[2:], parent=ctx)


def test_the_uploaded_report_is_the_one_written() -> None:
    steps = _steps()
    written = {
        shlex.split(s["run"])[shlex.split(s["run"]).index("--junit") + 1]
        for s in steps
        if "run" in s and "--junit" in s["run"]
    }
    uploaded = {s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/upload")}
    assert written == uploaded


def test_the_pytest_plugin_runs_a_users_checks(tmp_path: Path) -> None:
    # A user's test file, as docs/ci.md shows it, run by pytest with the installed plugin.
    (tmp_path / "test_mine.py").write_text(
        "import pytest\n"
        "from longform_evals.checks.pytest_plugin import assert_checks_pass, check_params, "
        "run_check\n\n"
        "def test_behaves(longform_checks):\n"
        "    assert_checks_pass(longform_checks(['rouge']))\n\n"
        "@pytest.mark.parametrize('check', check_params(['choice_accuracy']))\n"
        "def test_one(check, longform_judge):\n"
        "    result = run_check(check, longform_judge)\n"
        "    assert result.passed, result.detail\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout, done.stdout


def test_the_plugin_options_are_registered() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    for option in ("--longform-judge", "--longform-record", "--longform-recording"):
        assert option in done.stdout, option
