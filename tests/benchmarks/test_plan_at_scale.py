"""benchmarks/plan_at_scale.py against moto's S3 server, with the scripted models: two processes
run no cell twice, a resume elsewhere repeats no finished sample, no budget is overspent, and
writing every sample as it finishes costs more bytes than holding samples back."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from object_store import moto_command

REPO = Path(__file__).resolve().parents[2]


def _rows(output: str, heading: str) -> list[list[str]]:
    section = output.split(heading, 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def _number(text: str) -> float:
    return float(text.replace(",", "").rstrip("x"))


def test_plan_at_scale(tmp_path: Path) -> None:
    if moto_command() is None:
        pytest.skip("moto[server] and s3fs are not installed (the dev extra has them)")
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "plan_at_scale.py"), "--latency", "0.3"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    grid = _rows(out, "## 1.")
    assert [row[:3] for row in grid] == [
        ["now", "1", "local folder"],
        ["now", "1", "s3://"],
        ["now", "2", "s3://"],
        ["now", "1", "s3://, max_tasks 3"],
    ]
    assert all(row[5] == "0" and row[6] == "9" for row in grid)  # none twice, 9 logs
    shares = [int(n) for n in grid[2][4].split(", ")]
    assert sum(shares) == 9 and len(shares) == 2, grid[2]  # both processes ran cells
    assert re.search(r"two processes take \d+\.\d\dx the wall time of one", out)

    [resume] = _rows(out, "## 2.")
    assert resume[:2] == ["now", "s3://"]
    assert int(resume[2]) >= 3 and int(resume[3]) >= 3, resume  # in the store as they finished
    assert resume[4] == "0" and resume[5] == "42", resume

    budget = _rows(out, "## 3.")
    assert [row[1] for row in budget] == ["1", "5", "20"]
    for row in budget:
        assert _number(row[3]) < _number(row[4]), row  # past the budget by less than one call
        assert int(row[6]) > 0 and row[7] == "1", row  # refused samples counted, exit 1

    upload = {row[0]: row for row in _rows(out, "## 4.")}
    assert _number(upload["1"][1]) > _number(upload["10"][1]) > _number(upload["1"][2]) / 2
