"""A hierarchical-merging run killed half-way and retried with `inspect eval-retry` makes no
finished call twice (benchmarks/resume_after_kill.py, run with the scripted model)."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from types import ModuleType

import pytest

from helpers import load_benchmark_script

# Each answer depends on its prompt alone, so a retried call would get the same answer.
RULES = {
    "rules": [
        {
            "pattern": r"(?s)Passage from the story:\s*(\S+ \S+ \S+ \S+)",
            "response": r"The passage that opens with \1 goes on.",
        },
        {
            "pattern": r"(?s)in story order:\s*(\S+ \S+ \S+ \S+ \S+ \S+ \S+ \S+)",
            "response": r"Merged, \1 and more.",
        },
    ],
    "default": "No confusion found.",
}


def _script() -> ModuleType:
    return load_benchmark_script("resume_after_kill")


def _number(pattern: str, text: str) -> int:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in the output:\n{text}"
    return int(match[1])


def test_a_killed_and_retried_run_repeats_no_finished_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES), encoding="utf-8")
    args = ["--model", "scripted/resume", "-M", f"rules={rules}", "-M", "latency=0.2"]
    args += ["--chunk-size", "256", "--kill-after", "10", "--log-dir", str(tmp_path / "logs")]
    code = _script().main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    killed = _number(r"killed run: (\d+) calls finished", out)
    read = _number(r"(\d+) calls read from the cache", out)
    made = _number(r"(\d+) summarizer calls and", out)
    total = _number(r"summarizer calls of the sample: (\d+)", out)
    assert "status 'started'" in out  # the kill left an unfinished log
    assert 10 <= killed < total and made > 0
    assert read == killed and killed + made == total
    assert "calls repeated: 0" in out


def test_an_entry_cut_off_by_the_kill_is_not_a_finished_call(tmp_path: Path) -> None:
    # Inspect writes a cache entry in place: a SIGKILL mid-write leaves a file that does not
    # load, which the retry must make again (counting it made a repeat appear under load).
    folder = tmp_path / "generate" / "model"
    folder.mkdir(parents=True)
    whole = pickle.dumps((None, "an answer"))
    (folder / "done").write_bytes(whole)
    (folder / "cut").write_bytes(whole[: len(whole) // 2])
    (folder / "empty").write_bytes(b"")
    assert _script().cache_entries(tmp_path) == (1, 2)
