"""benchmarks/throughput.py: part A runs a judged multi-sample task both ways and reports the
ratios; the level-0 timing reads the right calls from a real log (scripted models)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from helpers import load_benchmark_script
from longform_evals.tasks.booookscore import booookscore


def _script() -> ModuleType:
    return load_benchmark_script("throughput")


def test_clean_summaries_are_whole_clean_summaries(tmp_path: Path) -> None:
    path = _script().clean_summaries(3, tmp_path)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["s01-clean", "s02-clean", "s03-clean"]
    assert all(r["summary"].count(". ") >= 5 for r in rows)


def test_part_a_judges_every_summary_both_ways(capsys: object) -> None:
    model = get_model("scripted/throughput", rules=[{"pattern": ".", "response": "No"}])
    one, many = _script().part_a(model, 2)
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "--max-connections 1" in out and "default / one connection" in out
    assert one.seconds > 0 and many.seconds > 0


def test_level0_seconds_counts_only_the_chunk_summaries(tmp_path: Path) -> None:
    model = get_model(
        "scripted/level0",
        rules=[],
        default_response="Ines studies a frozen orchard and finds a faulty sensor.",
        memoize=False,
    )
    task = booookscore(chunk_size=512)
    [log] = inspect_eval(task, model=model, limit=1, score=False, log_dir=str(tmp_path))
    assert log.samples
    trace = log.samples[0].metadata["summary_trace"]
    level0 = sum(1 for step in trace if step.get("level") == 0)
    calls = sum(1 for step in trace if step.get("step") != "compress")
    assert 1 < level0 < calls  # chunk summaries, then at least one merge
    seconds, output_tokens = _script().level0_seconds(log)
    assert seconds >= 0 and output_tokens > 0
