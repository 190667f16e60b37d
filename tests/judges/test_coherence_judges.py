"""The coherence judges' table: every BooookScore mode but `auto` is one entry, and the scorers
ask through it."""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import Model, get_model

from helpers import judges_added
from longform_evals.judges.coherence.judges import CoherenceJudging, coherence_modes
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.registry import judge_entry, judge_names


def test_every_mode_is_auto_or_one_entry() -> None:
    assert coherence_modes() == ("auto", *judge_names("coherence"))
    assert {"sentence", "batched", "probe", "fitted"} <= set(judge_names("coherence"))
    for name in judge_names("coherence"):
        entry = judge_entry("coherence", name)
        assert entry.options_type is CoherenceJudging and entry.steps == ("judge",)


def test_the_judge_of_the_registry_answers() -> None:
    async def flags_every_other(
        options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
    ) -> tuple[list[SentenceVerdict], int]:
        extra["calibration"] = "planted in the test"
        verdicts = [
            SentenceVerdict(index=i, sentence=s, parsed=True, confused=i % 2 == 1)
            for i, s in enumerate(sentences)
        ]
        return verdicts, 7

    judge = get_model("scripted/unused", rules=[{"pattern": ".", "response": "x"}])
    with judges_added("coherence", batched=flags_every_other):
        verdicts, calls, extra = asyncio.run(
            CoherenceJudging(mode="batched").judge(judge, ["One.", "Two.", "Three."])
        )
    assert [v.confused for v in verdicts] == [False, True, False] and calls == 7
    assert extra["mode"] == "batched" and extra["calibration"] == "planted in the test"
