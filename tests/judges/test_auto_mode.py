"""`auto` chooses a coherence judge's method by what its provider returns, not by the route's
name: a served packaged model keeps the probe method only with log-probabilities, and a change
is said once, recorded in the score and flagged on the leaderboard."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from inspect_ai.model import ModelAPI, ModelOutput, get_model, modelapi

from longform_evals.judges.coherence.judges import chosen_mode
from longform_evals.reports.leaderboard import Row

PACKAGED = "qwen2.5-coder-1.5b"


@modelapi(name="words-only")
class WordsOnly(ModelAPI):
    """A provider that answers in words and never with log-probabilities (as a server behind
    a route that drops them)."""

    async def generate(self, *args: Any, **kwargs: Any) -> ModelOutput:
        return ModelOutput.from_content(self.model_name, "Yes")


def test_a_served_packaged_judge_with_log_probabilities_keeps_the_probe_method() -> None:
    judge = get_model(f"scripted/{PACKAGED}", default_response="yes", memoize=False)
    assert asyncio.run(chosen_mode("auto", judge)) == ("probe", None)


def test_without_log_probabilities_auto_asks_in_sentences_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    judge = get_model(f"words-only/{PACKAGED}", memoize=False)
    with caplog.at_level(logging.WARNING):
        mode, note = asyncio.run(chosen_mode("auto", judge))
        again = asyncio.run(chosen_mode("auto", judge))
    assert mode == "sentence" and note and "gives no log-probabilities" in note
    assert again == (mode, note)
    said = [r.getMessage() for r in caplog.records if "auto mode asks" in r.getMessage()]
    assert len(said) == 1 and said[0].count("\n") == 0


@pytest.mark.parametrize("mode", ["probe", "sentence", "batched"])
def test_a_mode_the_user_chose_is_kept(mode: str) -> None:
    judge = get_model(f"words-only/{PACKAGED}", memoize=False)
    assert asyncio.run(chosen_mode(mode, judge)) == (mode, None)  # type: ignore[arg-type]


def test_an_unpackaged_judge_gets_the_papers_method_without_a_call() -> None:
    judge = get_model("words-only/some-api-model", memoize=False)
    assert asyncio.run(chosen_mode("auto", judge)) == ("sentence", None)


def test_the_leaderboard_flags_a_changed_mode() -> None:
    row = Row(
        "m", "booookscore", "booookscore", "j", "sentence", "", "log", "success", 1, 1, 0, 0, 0.0
    )
    assert not any("log-probabilities" in f for f in row.flags)
    row.mode_note = "auto mode asks the judge ..."
    assert "judge mode sentence: no log-probabilities from its provider" in row.flags
