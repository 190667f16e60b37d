"""benchmarks/fault_classes.py: every `fault` marker of the suite names a class of its table
and an outcome it knows, every class has a marked test, and the table adds up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import BENCHMARKS, load_benchmark_script

script = load_benchmark_script("fault_classes")


def test_every_marker_names_a_class_and_every_class_has_a_marked_test() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    listed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "fault_classes.py"), "--collect-only"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert listed.returncode == 0, listed.stdout[-3000:] + listed.stderr[-3000:]
    found = json.loads(listed.stdout)
    assert found["problems"] == []
    used = {cls for _, cls, _ in found["marks"]}
    assert used <= set(script.CLASSES), used - set(script.CLASSES)
    assert set(script.CLASSES) <= used, (
        f"classes without a marked test: {set(script.CLASSES) - used}"
    )
    assert {outcome for *_, outcome in found["marks"]} <= set(script.OUTCOMES)


def test_the_table_counts_outcomes_and_failures_per_class() -> None:
    Mark = script.Mark
    marks = [
        Mark("t.py::a", "surrogate", "clear error"),
        Mark("t.py::b", "surrogate", "clear error"),
        Mark("t.py::c", "surrogate", "counted"),
        Mark("t.py::c", "oversize", "clear error"),
        Mark("t.py::d", "fence_marker", "neutralised"),
    ]
    ended = {"t.py::a": "passed", "t.py::b": "xfailed", "t.py::c": "passed", "t.py::d": "failed"}
    cells = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in script.table(marks, ended).splitlines()
    ]
    rows = {row[0]: row[1:] for row in cells}
    # cases, clear error, counted, neutralised, still wrong; before: cases, silent, crash, hang
    surrogate = next(row for name, row in rows.items() if name.endswith("(`surrogate`)"))
    assert surrogate == ["3", "1", "1", "0", "1", "10", "5", "5", "0"]
    total = rows["**total**"]
    assert total[:5] == ["**5**", "**2**", "**1**", "**0**", "**2**"]
    assert total[5] == f"**{sum(c.cases for c in script.CLASSES.values())}**"
    notes = script.notes(marks, ended)
    assert "still wrong (fails): t.py::d" in notes
    assert "still wrong (expected to fail): t.py::b" in notes
