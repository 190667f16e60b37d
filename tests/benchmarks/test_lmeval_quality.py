"""benchmarks/lmeval_quality.py: both runs on the scripted model agree, and the report says so."""

from __future__ import annotations

from pathlib import Path

import pytest

import longform_evals
from helpers import OFFLINE_RULES, load_benchmark_script

pytest.importorskip("lm_eval")

QUALITY = str(
    Path(longform_evals.__file__).resolve().parent / "data" / "reading" / "quality_fixture.jsonl"
)


def test_inspect_and_lm_eval_runs_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LONGFORM_LMEVAL_LOG_DIR", str(tmp_path / "lm"))
    script = load_benchmark_script("lmeval_quality")
    margs = {"rules": OFFLINE_RULES}
    inspect_values = script.inspect_run("scripted/b", margs, QUALITY, 3, str(tmp_path / "i"))
    lm_values = script.lm_eval_run("scripted/b", margs, QUALITY, 3)
    assert inspect_values == lm_values and len(lm_values) == 3
    lines = script.report(inspect_values, lm_values, (2.0, 3.0))
    assert "questions that differ: none" in lines
    assert "answers that differ (text): none" in lines
    assert lines[-1].endswith("ratio 1.50")
    # a disagreement is reported, naming the question
    first = next(iter(lm_values))
    correct, answer = lm_values[first]
    flipped = {**lm_values, first: (1.0 - correct, answer + " (changed)")}
    lines = script.report(inspect_values, flipped, (1.0, 1.0))
    assert f"questions that differ: ['{first}']" in lines
    assert f"answers that differ (text): ['{first}']" in lines
