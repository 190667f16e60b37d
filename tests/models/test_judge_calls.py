"""A judge's call through the call path (models/calls.py): its settings checked against the
request its provider recorded (models/judge_requests.py), once per model and settings, and its
failures one short error naming the judge (models/judge_errors.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.util import LimitExceededError

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from longform_evals.judges.steps import JUDGE
from longform_evals.models import judge_requests, request_settings, step_usage
from longform_evals.models.calls import generate
from longform_evals.models.judge_errors import JudgeCallError, JudgeSettingsError, settings_error
from longform_evals.models.request_settings import MissedSetting
from longform_evals.models.scripted import ScriptedModelError
from longform_evals.models.step_usage import is_judgement, register_step_kind

OTHER = "judge_calls_test"
"""A step kind that is not a judgement."""
CONFIG = GenerateConfig(temperature=0.0, max_tokens=5, logprobs=True, top_logprobs=5)
SHORT = 600
"""The most characters a judge's error may take."""


@pytest.fixture(autouse=True)
def _fresh_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge_requests, "_VERDICTS", {})
    monkeypatch.setattr(step_usage, "_KINDS", dict(step_usage._KINDS))
    register_step_kind(OTHER, "calls made by this test")


def _judge(**args: Any) -> Any:
    return get_model("scripted/judge", default_response="Yes", memoize=False, **args)


def _call(model: Any, step: str = JUDGE, config: GenerateConfig = CONFIG) -> ModelOutput:
    return asyncio.run(generate(model, "Is it? Answer yes or no.", config, step=step, cache=False))


def test_the_judge_step_is_a_judgement() -> None:
    assert is_judgement(JUDGE)
    assert not is_judgement(OTHER)
    with pytest.raises(ValueError, match="judgement=True"):
        register_step_kind(JUDGE, step_usage.step_kinds()[JUDGE], judgement=False)


def test_a_judge_whose_settings_reach_the_provider_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[object] = []
    real = request_settings.missed_settings

    def counted(request: Any, config: GenerateConfig) -> list[MissedSetting]:
        checked.append(request)
        return real(request, config)

    monkeypatch.setattr(judge_requests, "missed_settings", counted)
    judge = _judge()
    for _ in range(3):
        assert _call(judge).completion == "Yes"
    assert len(checked) == 1  # once per model and settings, not per call
    _call(judge, config=GenerateConfig(temperature=0.0, max_tokens=9))
    assert len(checked) == 2


def test_a_judge_whose_provider_drops_the_temperature_stops() -> None:
    judge = _judge(drop_settings="temperature")
    with pytest.raises(JudgeSettingsError) as caught:
        _call(judge)
    message = str(caught.value)
    assert len(message) < SHORT, message
    assert "scripted/judge" in message
    assert "temperature=0.0 asked, no temperature sent" in message
    assert "openai-api/<service>/<model>" in message and "responses_api" not in message
    # Checked once, and every later call of that judge fails the same way.
    with pytest.raises(JudgeSettingsError):
        _call(judge)


def test_the_judge_is_checked_after_its_model_made_other_calls() -> None:
    # Inspect keeps the request of only the first 5 calls per model and sample: the same
    # model summarizing first must not hide the judge's request from the check.
    judge = _judge(drop_settings="temperature")

    async def summarize_then_judge() -> None:
        for _ in range(6):
            await generate(
                judge, "Summarize.", GenerateConfig(max_tokens=9), step=OTHER, cache=False
            )
        await generate(judge, "Is it? Answer yes or no.", CONFIG, step=JUDGE, cache=False)

    with pytest.raises(JudgeSettingsError, match=r"temperature=0\.0 asked"):
        asyncio.run(summarize_then_judge())


def test_every_dropped_setting_is_named() -> None:
    judge = _judge(drop_settings=["max_tokens", "logprobs", "top_logprobs"])
    with pytest.raises(JudgeSettingsError) as caught:
        _call(judge)
    message = str(caught.value)
    assert "max_tokens=5 asked, no token cap sent" in message
    assert "logprobs=True asked, no request for logprobs sent" in message


def test_a_call_that_is_not_a_judgement_is_not_checked() -> None:
    assert _call(_judge(drop_settings="temperature"), step=OTHER).completion == "Yes"


def test_the_advice_for_the_openai_provider() -> None:
    missed = [MissedSetting("temperature", "temperature=0.0", "no temperature")]
    message = str(settings_error("openai/smollm2-135m", missed))
    assert "reasoning model" in message and "openai-api/<service>/<model>" in message
    assert "responses_api" not in message and len(message) < SHORT


class _GenerateError(RuntimeError):
    """Inspect's `ModelGenerateError` (private): the request dump as its message, the
    provider's own message beside it."""

    def __init__(self, message: str, provider_message: str) -> None:
        super().__init__(message)
        self.provider_message = provider_message


class _Failing:
    """A model whose every call raises `error`."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __str__(self) -> str:
        return "openai-api/longform/smollm2-135m"

    async def generate(self, input: Any, **kwargs: Any) -> ModelOutput:
        raise self.error


def test_a_failed_judge_call_is_one_short_error_naming_the_judge() -> None:
    # Inspect's error for a provider error: up to 200 lines of the request, then the error.
    request = "\n".join(f'  "line {i}": "{"x" * 60}",' for i in range(200))
    cause = ConnectionError("Connection refused: the server at 127.0.0.1:8092 went away")
    error = _GenerateError(f"\nRequest:\n{{\n{request}\n}}\n\n{cause!r}", str(cause))
    error.__cause__ = cause
    with pytest.raises(JudgeCallError) as caught:
        _call(_Failing(error))
    message = str(caught.value)
    assert len(message) < SHORT, message
    assert message.startswith("the judge openai-api/longform/smollm2-135m failed: ConnectionError")
    assert "server at 127.0.0.1:8092 went away" in message
    assert caught.value.__cause__ is error  # the whole error stays in the traceback


def test_limits_and_the_packages_own_errors_pass_unchanged() -> None:
    for error in (
        LimitExceededError("token", value=10, limit=5),
        ScriptedModelError("scripted/judge: no rule matched"),
    ):
        with pytest.raises(type(error)) as caught:
            _call(_Failing(error))
        assert caught.value is error
    # Outside a judgement, any error passes unchanged.
    with pytest.raises(ConnectionError):
        _call(_Failing(ConnectionError("gone")), step=OTHER)


def test_a_reasoning_model_without_temperature_is_announced_not_stopped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """OpenAI's reasoning families take no temperature: their judges run on, said once; a name
    Inspect does not know (a model on a server) missing the same setting is stopped."""
    from longform_evals.models.judge_requests import _reasoning_model_without_temperature
    from longform_evals.models.request_settings import MissedSetting

    dropped = [MissedSetting("temperature", "temperature=0.0", "no temperature")]
    capped = [*dropped, MissedSetting("max_tokens", "max_tokens=1", "no token cap")]

    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        def __str__(self) -> str:
            return self.name

    for name in ("openai/o3-mini", "openai/gpt-5", "openai/gpt-5.1-2025", "azure/o1"):
        assert _reasoning_model_without_temperature(Named(name), dropped), name  # type: ignore[arg-type]
    for name in ("openai/smollm2-135m", "openai/gpt-4o", "openai-api/longform/qwen", "openai/o3x"):
        assert not _reasoning_model_without_temperature(Named(name), dropped), name  # type: ignore[arg-type]
    assert not _reasoning_model_without_temperature(Named("openai/o3"), capped)  # type: ignore[arg-type]
    assert "verdicts are sampled" in caplog.text
