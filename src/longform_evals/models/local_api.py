"""What the package's own providers (`gguf`, `scripted`, `replay`, `lmeval`) share.

:class:`LocalModelAPI` takes Inspect's provider constructor once and hands the model args to
the provider's `_configure`; :class:`MessagesModelAPI` is one that answers from the messages
and the generation config alone (every provider here but `replay`, whose answers depend on
the tools offered too). :func:`text_output` and :func:`token_usage` build an answer and its
usage the same way for each.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    StopReason,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity import wait_exponential, wait_random
from tenacity.wait import WaitBaseT

from longform_evals.inspect_private import readable_error

__all__ = ["LocalModelAPI", "MessagesModelAPI", "text_output", "token_usage"]


class LocalModelAPI(ModelAPI):
    """An Inspect provider of this package: Inspect's constructor, whose model args (`-M
    key=value`, or a role's `model_args`) :meth:`_configure` reads."""

    readable_errors: ClassVar[tuple[type[Exception], ...]] = ()
    """The errors of `_configure` that Inspect's command line prints as their message alone,
    without a traceback (:func:`~longform_evals.inspect_private.readable_error`); others
    propagate as they are."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        try:
            self._configure(model_name, dict(model_args))
        except self.readable_errors as exc:  # a message for Inspect to print alone
            raise readable_error(exc, str(exc)) from None

    @abstractmethod
    def _configure(self, model_name: str, args: dict[str, Any]) -> None:
        """Read the model args (`args` is a copy, free to pop from) and set the model up,
        refusing unknown ones."""

    def retry_wait(self) -> WaitBaseT:
        """Inspect's own wait between retries (3 s doubling up to 30 minutes, with up to 3 s
        of jitter), given here: left to Inspect (`None`), it is built with an argument
        tenacity 9 deprecates, and every call of the provider raises a DeprecationWarning."""
        return wait_exponential(multiplier=3, max=30 * 60) + wait_random(0, 3)


class MessagesModelAPI(LocalModelAPI):
    """A provider whose answer depends on the messages and the generation config only:
    tools offered to it are ignored, or refused with :attr:`tools_refused`."""

    tools_refused: ClassVar[str | None] = None
    """The message of the `ValueError` a call that offers tools raises; None ignores them."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput | Exception, ModelCall]:
        if tools and self.tools_refused is not None:
            raise ValueError(self.tools_refused)
        return await self._answer(input, config)

    @abstractmethod
    async def _answer(
        self, input: list[ChatMessage], config: GenerateConfig
    ) -> tuple[ModelOutput | Exception, ModelCall]:
        """The output of one call (or the error Inspect should raise) and what it sent."""


def token_usage(input_tokens: int, output_tokens: int, cache_read: int | None = None) -> ModelUsage:
    """A call's usage: `input_tokens` not read from a cache, `cache_read` read from one
    (None: the provider has no cache), and a total that counts all of them."""
    usage = ModelUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + (cache_read or 0) + output_tokens,
    )
    if cache_read is not None:
        usage.input_tokens_cache_read = cache_read
    return usage


def text_output(
    model: str,
    text: str,
    input_tokens: int,
    output_tokens: int,
    stop_reason: StopReason = "stop",
) -> ModelOutput:
    """An answer `text` of `model` with its usage (:func:`token_usage`, no cache)."""
    output = ModelOutput.from_content(model=model, content=text, stop_reason=stop_reason)
    output.usage = token_usage(input_tokens, output_tokens)
    return output
