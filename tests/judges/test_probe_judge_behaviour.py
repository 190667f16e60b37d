"""Behaviour check of the calibrated local probe judge on real planted errors (slow).

The shipped thresholds for gguf/qwen2.5-coder-1.5b must keep flagging planted duplications
and discontinuities of the held-out test split more often than clean sentences: if a change of
prompt, model file or parsing flattens the judge again, this fails.
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources

import pytest

from helpers import local_model_or_skip, needs_local_runtime
from longform_evals.judges.coherence.probe import (
    Prober,
    ProbeSettings,
    thresholds_for,
    verdict_from_probes,
)

JUDGE = "gguf/qwen2.5-coder-1.5b"


def _test_split() -> tuple[list[tuple[list[str], int]], list[tuple[list[str], int]]]:
    rows = [
        json.loads(line)
        for line in resources.files("longform_evals.data")
        .joinpath("coherence/planted_errors.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    test = [r for r in rows if r["split"] == "test"]
    planted = [
        (r["sentences"], r["planted_index"])
        for r in test
        if r["error_type"] in ("duplication", "discontinuity")
    ]
    clean_rows = [r for r in test if r["error_type"] is None]
    clean = [(r["sentences"], i) for r in clean_rows[:1] for i in range(1, len(r["sentences"]))]
    return planted, clean


@pytest.mark.slow
@pytest.mark.live_judge
@needs_local_runtime
def test_calibrated_judge_flags_planted_errors_more_than_clean_sentences() -> None:
    model = local_model_or_skip(JUDGE)
    thresholds, source = thresholds_for(JUDGE, ProbeSettings())
    assert source.startswith("packaged")
    planted, clean = _test_split()

    async def flag_rate(items: list[tuple[list[str], int]]) -> float:
        flags = []
        for sentences, index in items:
            # Only the probes the calibration switches on (as the scorer asks): the verdict
            # reads no other.
            p_yes, _ = await Prober(model, ProbeSettings(cache=False), thresholds).sentence(
                sentences, index
            )
            verdict = verdict_from_probes(index, sentences[index], p_yes, thresholds)
            flags.append(bool(verdict.confused))
        return sum(flags) / len(flags)

    planted_rate = asyncio.run(flag_rate(planted))
    clean_rate = asyncio.run(flag_rate(clean))
    assert planted_rate >= clean_rate + 0.3, (planted_rate, clean_rate)
