"""`lmeval/<key>`: an attached lm-eval LM answering as an Inspect model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model

pytest.importorskip("lm_eval")

from lm_eval.api.model import LM

from longform_evals.models.lmeval_inner import attach_lm


class TemplatedLM(LM):
    """Has its own chat template and tokenizer; echoes what it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[Any] = []

    def apply_chat_template(
        self, chat: list[dict[str, str]], add_generation_prompt: bool = True
    ) -> str:
        return "".join(f"<{m['role']}>{m['content']}" for m in chat) + "<assistant>"

    def tok_encode(self, text: str, **_: Any) -> list[int]:
        return list(range(len(text)))

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        self.requests += requests
        return ["an answer"]

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError


def _ask(lm: TemplatedLM, key: str, chat_template: bool) -> Any:
    model = get_model(attach_lm(key, lm, chat_template), memoize=False)
    messages = [ChatMessageSystem(content="Be brief."), ChatMessageUser(content="Why?")]
    config = GenerateConfig(max_tokens=7, stop_seqs=["\n"], temperature=0.0)
    return asyncio.run(model.generate(messages, config=config))


def test_plain_prompt_and_generation_settings() -> None:
    lm = TemplatedLM()
    output = _ask(lm, "plain", chat_template=False)
    [request] = lm.requests
    prompt, kwargs = request.args
    assert prompt == "Be brief.\n\nWhy?"
    assert kwargs == {"until": ["\n"], "max_gen_toks": 7, "temperature": 0.0, "do_sample": False}
    assert output.completion == "an answer"
    # tokens counted with the LM's own tokenizer (one id per character here)
    assert output.usage.input_tokens == len(prompt) and output.usage.output_tokens == 9


def test_chat_template_when_asked() -> None:
    lm = TemplatedLM()
    _ask(lm, "templated", chat_template=True)
    assert lm.requests[0].args[0] == "<system>Be brief.<user>Why?<assistant>"


def test_unattached_name_is_an_error() -> None:
    with pytest.raises(Exception, match="no lm-eval model is attached under this name"):
        get_model("lmeval/never-attached", memoize=False)
