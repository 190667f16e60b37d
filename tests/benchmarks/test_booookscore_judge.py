"""benchmarks/booookscore_judge.py calibration: per layout, only the probes that layout asks are
calibrated, each threshold keeps its false-flag rate on clean sentences at the target, and a
probe without signal is switched off."""

from __future__ import annotations

import asyncio
from types import ModuleType

import pytest
from inspect_ai.model import get_model

from helpers import load_benchmark_script
from longform_evals.judges.coherence.probe import JOINT_ORDER, PROBES, ProbeThreshold


def _script() -> ModuleType:
    return load_benchmark_script("booookscore_judge")


def _data(bench: ModuleType) -> tuple[list[object], list[dict[str, float | None]]]:
    """20 clean sentences and 4 planted duplications; `repeats` separates them, `follows`
    (flag on "no") gives every sentence the same answer."""
    items, probes = [], []
    for i in range(20):
        items.append(bench.Item("calibration", "c", i, ["s"] * 25, None))
        probes.append({"repeats": i / 100, "follows": 0.5, "matters": 0.5, "explained": 0.5})
    for i in range(4):
        items.append(bench.Item("calibration", f"d{i}", 3, ["s"] * 5, "duplication"))
        probes.append({"repeats": 0.9, "follows": 0.5, "matters": 0.5, "explained": 0.5})
    return items, probes


def test_joint_calibration_covers_only_its_questions() -> None:
    bench = _script()
    items, probes = _data(bench)
    table = bench.calibrate(items, probes, 0.05, 0.15, "joint")
    assert set(table) == set(JOINT_ORDER)
    repeats = table["repeats"]
    assert repeats["enabled"] and repeats["calibration_recall"] == 1.0
    assert repeats["calibration_false_flag_rate"] <= 0.05
    assert not table["follows"]["enabled"]  # the same answer for everything: no signal


def test_per_probe_calibration_covers_every_probe() -> None:
    bench = _script()
    items, probes = _data(bench)
    table = bench.calibrate(items, probes, 0.05, 0.15, "per_probe")
    assert set(table) == {p.name for p in PROBES}
    assert table["introduced"]["n_clean"] == 0  # never asked in this data


def test_same_verdicts_compares_confused_or_not_per_item() -> None:
    bench = _script()
    items = [bench.Item("test", "t", 1, ["a", "b"], None) for _ in range(3)]
    low = ProbeThreshold(0.5)
    thresholds = {p.name: low for p in PROBES}
    ours = [{"repeats": 0.9}, {"repeats": 0.1}, {"repeats": 0.9}]  # flag, clean, flag
    theirs = [{"repeats": 0.8}, {"repeats": 0.2}, {"repeats": 0.2}]  # flag, clean, clean
    assert bench.same_verdicts(items, ours, thresholds, theirs, thresholds) == [
        True,
        True,
        False,
    ]


def test_verdict_agreement_counts_sentences_both_read() -> None:
    agreement = _script().verdict_agreement
    a = {("s", 0): True, ("s", 1): False, ("s", 2): None, ("t", 0): True}
    b = {("s", 0): True, ("s", 1): True, ("s", 2): False}
    assert agreement(a, b) == (1, 2)


def test_sentence_layouts_are_compared_on_the_test_split(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = _script()
    # The numbered layout flags sentence 2 of every summary; the quoted one flags nothing.
    model = get_model(
        "scripted/layouts",
        rules=[
            {
                "pattern": "Sentence to judge: 2$",
                "response": "Questions: Who?\nTypes: entity_omission",
            },
            {"pattern": "Sentence to judge", "response": "No confusion."},
        ],
        memoize=False,
    )
    items = [i for i in bench.load_items() if i.summary_id.startswith("s07")]
    asyncio.run(bench.compare_sentence_layouts(model, items, ["numbered", "quoted"]))
    out = capsys.readouterr().out
    test = [i for i in items if i.split == "test"]
    second = sum(1 for i in test if i.index == 1)
    assert f"{len(test) - second}/{len(test)} sentences" in out
    with pytest.raises(SystemExit, match="sideways"):
        asyncio.run(bench.compare_sentence_layouts(model, items, ["sideways"]))
