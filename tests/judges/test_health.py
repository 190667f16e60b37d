"""What a run says aloud about its judge: refused and missing log-probabilities, no
calibration, too many unreadable answers (judges/health.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, ModelOutput

from longform_evals.judges import health
from longform_evals.judges.health import (
    LogprobsRefusedError,
    generate_with_logprobs,
    note_readings,
)

LOGPROBS = GenerateConfig(logprobs=True, top_logprobs=5, max_tokens=1)


@pytest.fixture(autouse=True)
def _fresh_tallies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "_ANNOUNCED", set())
    monkeypatch.setattr(health, "_TALLIES", {})


class _Refusing:
    """A model whose provider refuses log-probabilities, as OpenAI's Responses API on a
    llama.cpp server does (HTTP 400)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    async def generate(self, *args: Any, **kwargs: Any) -> ModelOutput:
        raise RuntimeError(
            '{"model": "x", "top_logprobs": 10}\n'
            "BadRequestError('Error code: 400 - top_logprobs requires logprobs to be set')"
        )


def _generate(model: Any) -> ModelOutput:
    return asyncio.run(generate_with_logprobs(model, "Is it? Answer yes or no.", LOGPROBS, False))


def test_a_refusal_stops_with_the_fix_for_the_openai_provider() -> None:
    with pytest.raises(LogprobsRefusedError) as caught:
        _generate(_Refusing("openai/qwen2.5-coder-1.5b"))
    message = str(caught.value)
    assert "responses_api=false" in message and "openai-api/<service>/<model>" in message
    assert "top_logprobs requires logprobs" in message
    assert '"model"' not in message  # the request dump of the provider's error is left out


def test_a_refusal_by_another_provider_names_the_word_reading_modes() -> None:
    with pytest.raises(LogprobsRefusedError, match="judge_mode=sentence"):
        _generate(_Refusing("someapi/model"))


def test_other_errors_pass_through_unchanged() -> None:
    class Failing(_Refusing):
        async def generate(self, *args: Any, **kwargs: Any) -> ModelOutput:
            raise ConnectionError("server went away")

    with pytest.raises(ConnectionError, match="server went away"):
        _generate(Failing("openai-api/x/y"))


def test_missing_log_probabilities_are_announced_once(caplog: pytest.LogCaptureFixture) -> None:
    class Wordy(_Refusing):
        """A provider that answers but drops the log-probabilities it was asked for."""

        async def generate(self, *args: Any, **kwargs: Any) -> ModelOutput:
            return ModelOutput.from_content(self.name, "Yes")

    model = Wordy("someapi/model")
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        _generate(model)
        _generate(model)
    warnings = [r for r in caplog.records if "no log-probabilities" in r.getMessage()]
    assert len(warnings) == 1


def test_unreadable_share_is_announced_past_ten_percent(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        note_readings("judge/a", "coherence", read=18, unread=2)  # 10 %: not above
        assert not caplog.records
        note_readings("judge/a", "coherence", read=0, unread=1)  # 3 of 21
        note_readings("judge/a", "coherence", read=0, unread=5)  # said once
    [record] = caplog.records
    assert "3 of 21 answers unreadable" in record.getMessage()


def test_few_readings_are_not_enough_to_announce(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        note_readings("judge/b", "raters", read=1, unread=4)
    assert not caplog.records


def test_uncalibrated_judge_is_announced_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=health.__name__):
        health.announce_uncalibrated("openai-api/x/y", "coherence", "uncalibrated (0.5)")
        health.announce_uncalibrated("openai-api/x/y", "coherence", "uncalibrated (0.5)")
    [record] = caplog.records
    assert "has no calibration" in record.getMessage()
