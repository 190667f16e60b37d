"""benchmarks/clean_readings.py, part A on the packaged corpora: no clean sentence of the
planted sets or of the sentences written for issue 60 gets a reading."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_no_packaged_clean_sentence_gets_a_reading(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "clean_readings.py"), "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines() if line[:2] == "| "}
    assert rows["planted"].endswith("| 0 | 0 |"), out
    assert rows["written"] == "| written | 30 | 30 | 0 | 0 |", out
    assert "booookscore" not in rows  # no shared data in that folder
