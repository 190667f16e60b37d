"""Which of a judge's settings a request sent to its provider left out (a pure function).

Inspect records what each provider sent (``ModelEvent.call.request``), in the provider's own
shape: OpenAI's chat completions (``max_tokens`` or ``max_completion_tokens``, ``logprobs``),
its Responses API (``max_output_tokens``, ``include: [..."message.output_text.logprobs"]``),
Anthropic's messages, Google's nested ``generation_config`` (``maxOutputTokens``,
``responseLogprobs``), llama.cpp or lm-eval arguments (``n_predict``, ``max_gen_toks``).
:func:`missed_settings` reads any of them: keys are compared without case, ``_`` or ``-``, at
any depth of nested mappings and lists.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from inspect_ai.model import GenerateConfig

__all__ = ["TOKEN_CAP_KEYS", "MissedSetting", "missed_settings"]

TOKEN_CAP_KEYS: Final = frozenset(
    {
        "maxtokens",
        "maxcompletiontokens",
        "maxoutputtokens",
        "maxnewtokens",
        "maxtokenstosample",
        "maxgentoks",
        "maxgenlen",
        "maxtokencount",
        "numpredict",
        "npredict",
    }
)
"""The names a provider gives the cap on the answer's tokens (normalized: :func:`_key`)."""
_SETTING_KEYS: Final = frozenset(
    {"temperature", "logprobs", "toplogprobs", "responselogprobs", "include"}
)
"""The other keys of the settings checked (normalized)."""


@dataclass(frozen=True)
class MissedSetting:
    """A setting of the judge's config that the request did not carry."""

    setting: str
    """``temperature``, ``max_tokens`` or ``logprobs``."""
    asked: str
    """What the config asked, as ``temperature=0.0``."""
    sent: str
    """What the request carried instead, as ``no temperature``."""


def missed_settings(request: Mapping[str, Any], config: GenerateConfig) -> list[MissedSetting]:
    """The settings of `config` that `request` does not honour; empty when every one does.

    Checked, when `config` sets them: the temperature (a ``temperature`` key with that
    value), the token cap (a cap key, :data:`TOKEN_CAP_KEYS`, at most the config's), and
    log-probabilities when asked for (``logprobs`` true or a count, ``response_logprobs``,
    ``top_logprobs``, or an ``include`` entry naming logprobs). A request that names none of
    these is no record of the settings (Inspect's `mockllm` records the messages alone):
    nothing is missed.
    """
    found: dict[str, list[Any]] = {}
    for key, value in _entries(request):
        found.setdefault(key, []).append(value)
    if not found.keys() & (_SETTING_KEYS | TOKEN_CAP_KEYS):
        return []
    missed: list[MissedSetting] = []
    if config.temperature is not None:
        temperatures = [v for v in found.get("temperature", []) if _number(v)]
        if not any(math.isclose(v, config.temperature, abs_tol=1e-9) for v in temperatures):
            sent = f"temperature={temperatures[0]}" if temperatures else "no temperature"
            missed.append(MissedSetting("temperature", f"temperature={config.temperature}", sent))
    if config.max_tokens is not None:
        caps = [v for key in TOKEN_CAP_KEYS for v in found.get(key, []) if _number(v)]
        if not any(v <= config.max_tokens for v in caps):
            sent = f"a cap of {min(caps)}" if caps else "no token cap"
            missed.append(MissedSetting("max_tokens", f"max_tokens={config.max_tokens}", sent))
    if config.logprobs and not _asks_logprobs(found):
        missed.append(MissedSetting("logprobs", "logprobs=True", "no request for logprobs"))
    return missed


def _key(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def _entries(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (normalized key, value) of the mappings nested in `value`."""
    if isinstance(value, Mapping):
        for name, item in value.items():
            yield _key(str(name)), item
            yield from _entries(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _entries(item)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _asks_logprobs(found: Mapping[str, list[Any]]) -> bool:
    flags = found.get("logprobs", []) + found.get("responselogprobs", [])
    counts = found.get("logprobs", []) + found.get("toplogprobs", [])
    included = [i for v in found.get("include", []) if isinstance(v, list) for i in v]
    return (
        any(v is True for v in flags)
        or any(_number(v) and v > 0 for v in counts)
        or any(isinstance(i, str) and "logprobs" in i for i in included)
    )
