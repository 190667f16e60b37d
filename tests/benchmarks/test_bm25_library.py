"""benchmarks/bm25_library.py: the library BM25 ranks the development sets' source units as
the hand-written index it replaced did (read from git), sentence for sentence."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import load_benchmark_script

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


def _baseline() -> str:
    commit: str = load_benchmark_script("bm25_library").DEFAULT_BASELINE
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=REPO, capture_output=True
    )
    if found.returncode != 0:
        pytest.skip(f"commit {commit} (the hand-written index) is not in this clone's history")
    return commit


@pytest.mark.skipif(not (DATA / "human_labels" / "longsciverify").exists(), reason="no data")
def test_the_library_ranks_every_sentence_as_the_hand_written_index() -> None:
    commit = _baseline()
    out = subprocess.run(
        [
            *(sys.executable, str(REPO / "benchmarks" / "bm25_library.py")),
            *("--baseline", commit, "--data", str(DATA), "--repeats", "1"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    sets = re.findall(r"^(longsciverify|longformfact) \|", out, re.M)
    assert sorted(sets) == ["longformfact", "longsciverify"], out
    for line in out.splitlines():
        if line.startswith(("longsciverify |", "longformfact |")):
            cells = [c.strip() for c in line.split("|")]
            sentences = int(cells[2])
            assert sentences > 0
            assert cells[4:] == [f"{sentences}/{sentences}"] * 3, line
    assert "x the hand-written time" in out
