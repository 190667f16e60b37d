"""The base the package's providers share (models/local_api.py) and their registration."""

from __future__ import annotations

import asyncio

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.tool import ToolInfo

import longform_evals._registry as registry
from longform_evals import inspect_private
from longform_evals.inspect_private import PrerequisiteError, registry_info
from longform_evals.models.gguf import GGUFModelAPI
from longform_evals.models.lmeval_inner import LmEvalModelAPI
from longform_evals.models.local_api import (
    LocalModelAPI,
    MessagesModelAPI,
    text_output,
    token_usage,
)
from longform_evals.models.providers import PROVIDERS, provider_class
from longform_evals.models.replay import ReplayError, ReplayModelAPI
from longform_evals.models.scripted import ScriptedModelAPI, ScriptedModelError

TOOL = ToolInfo(name="lookup", description="Look something up.")


def test_each_provider_is_registered_under_its_name_with_its_class() -> None:
    expected = {
        "gguf": GGUFModelAPI,
        "scripted": ScriptedModelAPI,
        "replay": ReplayModelAPI,
        "lmeval": LmEvalModelAPI,
    }
    assert set(PROVIDERS) == set(expected)
    for name, cls in expected.items():
        assert provider_class(name) is cls
        assert issubclass(cls, LocalModelAPI)
        assert registry_info(getattr(registry, name)).name == f"longform_evals/{name}"


def test_usage_counts_cached_input_in_the_total_only_when_there_is_a_cache() -> None:
    plain = token_usage(7, 3)
    assert (plain.input_tokens, plain.output_tokens, plain.total_tokens) == (7, 3, 10)
    assert plain.input_tokens_cache_read is None
    assert "input_tokens_cache_read" not in plain.model_fields_set
    cached = token_usage(30, 3, cache_read=20)
    assert (cached.total_tokens, cached.input_tokens_cache_read) == (53, 20)
    assert token_usage(5, 1, cache_read=0).input_tokens_cache_read == 0


def test_text_output_carries_text_stop_reason_and_usage() -> None:
    output = text_output("m", "an answer", 4, 2, "max_tokens")
    assert (output.model, output.completion, output.stop_reason) == ("m", "an answer", "max_tokens")
    assert output.usage == token_usage(4, 2)
    assert text_output("m", "x", 1, 1).stop_reason == "stop"


def test_tools_are_ignored_or_refused_as_each_provider_says() -> None:
    assert issubclass(ScriptedModelAPI, MessagesModelAPI)
    assert issubclass(LmEvalModelAPI, MessagesModelAPI)
    # replay's answers depend on the tools offered: it keeps Inspect's whole generate
    assert not issubclass(ReplayModelAPI, MessagesModelAPI)
    messages: list[ChatMessage] = [ChatMessageUser(content="hello")]
    scripted = ScriptedModelAPI("t", default_response="hi")
    output, _ = asyncio.run(scripted.generate(messages, [TOOL], "auto", GenerateConfig()))
    assert not isinstance(output, Exception) and output.completion == "hi"
    # gguf refuses before touching its engine, so no model file is needed
    gguf = GGUFModelAPI.__new__(GGUFModelAPI)
    with pytest.raises(ValueError, match=r"^the gguf provider does not support tool calling$"):
        asyncio.run(gguf.generate(messages, [TOOL], "auto", GenerateConfig()))


def test_only_the_gguf_providers_argument_errors_are_printed_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(inspect_private, "_display_silenced", lambda: False)
    with pytest.raises(ValueError, match="gguf provider: unknown model args") as gguf:
        get_model("gguf/qwen2.5-coder-0.5b", memoize=False, nope=1)
    assert isinstance(gguf.value, PrerequisiteError)
    with pytest.raises(ScriptedModelError) as scripted:
        ScriptedModelAPI("t", nope=1)
    assert not isinstance(scripted.value, PrerequisiteError)
    with pytest.raises(ReplayError) as replay:
        ReplayModelAPI("t", nope=1)
    assert not isinstance(replay.value, PrerequisiteError)
