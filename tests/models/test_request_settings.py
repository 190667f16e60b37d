"""`missed_settings` (models/request_settings.py) over the requests providers really record:
which of a judge's settings a request left out."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import GenerateConfig

from longform_evals.models.request_settings import missed_settings

PROBE = GenerateConfig(temperature=0.0, max_tokens=1, logprobs=True, top_logprobs=10)
WORDS = GenerateConfig(temperature=0.0, max_tokens=300)
MESSAGES = [{"role": "user", "content": "Is it? Answer yes or no."}]

# As logged by Inspect 0.3.285 against `longform serve smollm2-135m` (llama.cpp).
OPENAI_API = {
    "model": "smollm2-135m",
    "messages": MESSAGES,
    "tools": None,
    "tool_choice": None,
    "extra_headers": {"x-irid": "KuSPn73FZrWh2kUa5HXktA"},
    "max_tokens": 1,
    "temperature": 0.0,
    "logprobs": True,
    "top_logprobs": 10,
}
"""`openai-api/longform/smollm2-135m`: chat completions with every setting."""
OPENAI_CHAT_AS_REASONING = {
    "model": "smollm2-135m",
    "messages": MESSAGES,
    "tools": None,
    "tool_choice": None,
    "extra_headers": {"x-irid": "Zag4BpjBMfXAjJ7Yd9sype"},
    "logprobs": True,
    "top_logprobs": 10,
    "max_completion_tokens": 1,
}
"""`openai/smollm2-135m -M responses_api=false`: the unknown name taken for a reasoning model,
so no temperature."""
OPENAI_RESPONSES = {
    "tools": None,
    "tool_choice": None,
    "extra_headers": {"x-irid": "LgUeVNUaLS9x2szoefppKi"},
    "model": "smollm2-135m",
    "input": [{"type": "message", "role": "user", "content": MESSAGES[0]["content"]}],
    "include": ["reasoning.encrypted_content", "message.output_text.logprobs"],
    "store": False,
    "max_output_tokens": 1,
    "temperature": 0.0,
    "top_logprobs": 10,
    "reasoning": {"summary": "auto"},
}
"""`openai/smollm2-135m`: the Responses API, every setting sent (llama.cpp then refuses it:
HTTP 400 "top_logprobs requires logprobs to be set to true", the call path's refusal)."""

ANTHROPIC = {
    "model": "claude-3-5-haiku-latest",
    "system": "You judge.",
    "messages": MESSAGES,
    "max_tokens": 300,
    "temperature": 0.0,
    "extra_headers": {"x-irid": "abc"},
}
GOOGLE = {
    "contents": [{"role": "user", "parts": [{"text": MESSAGES[0]["content"]}]}],
    "generation_config": {
        "temperature": 0.0,
        "maxOutputTokens": 1,
        "responseLogprobs": True,
        "logprobs": 10,
        "httpOptions": {"headers": {"x-irid": "abc"}},
    },
    "safety_settings": [],
    "tools": None,
}


def _missed(request: dict[str, Any], config: GenerateConfig = PROBE) -> list[str]:
    return [m.setting for m in missed_settings(request, config)]


def test_chat_completions_with_every_setting_pass() -> None:
    assert _missed(OPENAI_API) == []


def test_the_reasoning_model_request_misses_the_temperature() -> None:
    [missed] = missed_settings(OPENAI_CHAT_AS_REASONING, PROBE)
    assert (missed.setting, missed.asked, missed.sent) == (
        "temperature",
        "temperature=0.0",
        "no temperature",
    )


def test_the_responses_api_asks_logprobs_through_include() -> None:
    assert _missed(OPENAI_RESPONSES) == []
    assert _missed({**OPENAI_RESPONSES, "max_output_tokens": 16}) == ["max_tokens"]
    without = {**OPENAI_RESPONSES, "include": ["reasoning.encrypted_content"], "top_logprobs": 0}
    assert _missed(without) == ["logprobs"]


def test_anthropic_and_google_shapes() -> None:
    assert _missed(ANTHROPIC, WORDS) == []
    assert _missed(ANTHROPIC, PROBE) == ["max_tokens", "logprobs"]
    assert _missed(GOOGLE) == []  # nested, camelCase
    hotter = {**GOOGLE, "generation_config": {**GOOGLE["generation_config"], "temperature": 1}}
    [missed] = missed_settings(hotter, PROBE)
    assert missed.sent == "temperature=1"


def test_other_caps_and_what_is_not_asked_is_not_checked() -> None:
    assert _missed({"gen_kwargs": {"max_gen_toks": 5, "temperature": 0}}, WORDS) == []
    assert _missed({"n_predict": 5, "temperature": 0.0}, WORDS) == []
    assert _missed({"num_predict": 400, "temperature": 0.0}, WORDS) == ["max_tokens"]
    assert _missed({}, GenerateConfig()) == []
    # Inspect's mockllm records the messages alone: no record of the settings, nothing missed.
    assert _missed({"model": "model", "messages": MESSAGES}) == []
    # A flag is not a number: `temperature: true` is no temperature 1.
    assert _missed({"temperature": True, "max_tokens": 1}, GenerateConfig(temperature=1.0)) == [
        "temperature"
    ]
    assert _missed({"logprobs": False, "top_logprobs": None}, GenerateConfig(logprobs=True)) == [
        "logprobs"
    ]
