"""The coherence judges' table: every BooookScore mode but `auto` is one entry, and the scorers
ask through it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from inspect_ai.model import Model, get_model

from longform_evals.judges.coherence import SentenceVerdict
from longform_evals.judges.coherence_judges import (
    COHERENCE_JUDGES,
    CoherenceJudging,
    coherence_modes,
)


def test_every_mode_is_auto_or_one_entry() -> None:
    assert coherence_modes() == ("auto", "sentence", "batched", "probe", "fitted")
    assert set(coherence_modes()) == {"auto", *COHERENCE_JUDGES}


def test_the_judge_of_the_table_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    async def flags_every_other(
        options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
    ) -> tuple[list[SentenceVerdict], int]:
        extra["calibration"] = "planted in the test"
        verdicts = [
            SentenceVerdict(index=i, sentence=s, parsed=True, confused=i % 2 == 1)
            for i, s in enumerate(sentences)
        ]
        return verdicts, 7

    monkeypatch.setitem(COHERENCE_JUDGES, "batched", flags_every_other)
    judge = get_model("scripted/unused", rules=[{"pattern": ".", "response": "x"}])
    verdicts, calls, extra = asyncio.run(
        CoherenceJudging(mode="batched").judge(judge, ["One.", "Two.", "Three."])
    )
    assert [v.confused for v in verdicts] == [False, True, False] and calls == 7
    assert extra["mode"] == "batched" and extra["calibration"] == "planted in the test"
