"""`lmeval/<key>`: an Inspect model that forwards generation to an lm-eval LM object.

The strategy wrapper LMs (`longform_evals.lmeval.wrappers`) let their inner model be any lm-eval
model (``inner=hf,pretrained=...``); the strategies call models through Inspect, so the
wrapper builds the lm-eval LM, attaches it here under a key and hands the strategies
``lmeval/<key>``. Each call becomes one ``generate_until`` request: the conversation's messages
joined by blank lines, or, when attached with ``chat_template`` (lm-eval's
``--apply_chat_template``, which lm-eval does not tell its models), put through the LM's chat
template. Calls are
made one at a time (lm-eval LMs are not written for concurrent use). Tokens are counted with the
LM's own tokenizer where it has one, else with the package's default encoding.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, GenerateConfig, ModelCall, ModelOutput

from longform_evals.models.local_api import MessagesModelAPI, text_output
from longform_evals.text.tokens import get_tokenizer

DEFAULT_MAX_TOKENS = 512
"""Tokens asked for when the caller sets no limit."""

_ATTACHED: dict[str, tuple[Any, bool]] = {}
_LOCK = threading.Lock()


def attach_lm(key: str, lm: Any, chat_template: bool = False) -> str:
    """Make ``lm`` reachable as the Inspect model ``lmeval/<key>`` and return that name."""
    with _LOCK:
        _ATTACHED[key] = (lm, chat_template)
    return f"lmeval/{key}"


def _own(lm: Any, method: str) -> bool:
    """Whether the LM's class implements ``method`` itself (lm-eval's base classes give
    defaults that fetch a tokenizer by name from the Hub)."""
    from lm_eval.api import model as base

    bases = {getattr(base, name, None) for name in ("LM", "TemplateLM")} - {None}
    for cls in type(lm).__mro__:
        if method in vars(cls):
            return cls not in bases
    return False


def _prompt(lm: Any, messages: list[ChatMessage], chat_template: bool) -> str:
    chat = [{"role": m.role, "content": m.text} for m in messages]
    if chat_template:
        return str(lm.apply_chat_template(chat, add_generation_prompt=True))
    return "\n\n".join(m["content"] for m in chat)


def _count(lm: Any, text: str) -> int:
    if _own(lm, "tok_encode"):
        return len(lm.tok_encode(text))
    return get_tokenizer().count(text)


class LmEvalModelAPI(MessagesModelAPI):
    """An attached lm-eval LM seen as an Inspect model (see the module docstring); tools
    offered to it are ignored."""

    def _configure(self, model_name: str, args: dict[str, Any]) -> None:
        if args:
            raise ValueError(f"lmeval/{model_name}: takes no model arguments, got {sorted(args)}")
        with _LOCK:
            attached = _ATTACHED.get(model_name)
        if attached is None:
            raise ValueError(
                f"lmeval/{model_name}: no lm-eval model is attached under this name (a longform "
                "wrapper LM attaches its inner model when lm-eval builds it)"
            )
        self._lm, self._chat_template = attached
        self._call_lock = threading.Lock()

    def max_connections(self) -> int:
        return 1

    def _generate(self, prompt: str, gen_kwargs: dict[str, Any]) -> str:
        from lm_eval.api.instance import Instance

        request = Instance("generate_until", {}, (prompt, gen_kwargs), 0)
        with self._call_lock:
            [text] = self._lm.generate_until([request])
        return str(text)

    async def _answer(
        self, input: list[ChatMessage], config: GenerateConfig
    ) -> tuple[ModelOutput, ModelCall]:
        prompt = _prompt(self._lm, input, self._chat_template)
        gen_kwargs: dict[str, Any] = {
            "until": list(config.stop_seqs or []),
            "max_gen_toks": config.max_tokens or DEFAULT_MAX_TOKENS,
        }
        if config.temperature is not None:
            gen_kwargs["temperature"] = config.temperature
            gen_kwargs["do_sample"] = config.temperature > 0
        text = await anyio.to_thread.run_sync(self._generate, prompt, gen_kwargs)
        output = text_output(
            self.model_name, text, _count(self._lm, prompt), _count(self._lm, text)
        )
        request = {"prompt": prompt, "gen_kwargs": gen_kwargs}
        return output, ModelCall.create(request, {"completion": text})
