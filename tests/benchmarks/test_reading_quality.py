"""benchmarks/reading_quality.py: the reader's word breakdown is read from a real log."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval as inspect_eval

import longform_evals
from helpers import load_benchmark_script
from longform_evals.tasks.reading import quality

QUALITY = (
    Path(longform_evals.__file__).resolve().parent / "data" / "reading" / "quality_fixture.jsonl"
)
RULES = [
    {
        "pattern": r"(?s)Passage:.*?\n<(\d+)>.*Break point: <number>",
        "response": r"Break point: <\1>",
    },
    {"pattern": r"Shorten it to at most \d+ words\.", "response": "A short gist of this page."},
    {"pattern": r"Which pages would you like to read in full\?", "response": "[0]"},
    {"pattern": r"Answer: \(X\)", "response": "Answer: (B)"},
]


def test_breakdown_of_a_read_agent_run(tmp_path: Path) -> None:
    script = load_benchmark_script("reading_quality")
    [log] = inspect_eval(
        quality(data=str(QUALITY), strategy="read_agent_p"),
        model="scripted/reader",
        model_args={"rules": RULES},
        log_dir=str(tmp_path),
    )
    lines = script.reading_breakdown(log)
    assert len(lines) == 3, lines
    assert "pagination and gisting (shared)" in lines[0] and "lookup" in lines[0]
    assert "answer" in lines[0]
    assert lines[1].startswith("  gists keep ") and "hit the token cap" in lines[1]
    assert "pages asked for (of 6 questions): [0] x6" in lines[2]
    [full] = inspect_eval(
        quality(data=str(QUALITY), strategy="full"),
        model="scripted/reader",
        model_args={"rules": RULES},
        log_dir=str(tmp_path),
    )
    assert script.reading_breakdown(full) == []  # no pages, nothing to break down
