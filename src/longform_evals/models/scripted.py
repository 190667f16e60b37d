"""A deterministic, rule-driven Inspect model (`scripted/<name>`) for tests.

The scripted model answers each `generate()` call by searching the conversation with an
ordered list of regex rules; the first rule whose pattern matches supplies the response.
It never touches the network and never loads a tokenizer: token counts are whitespace
word counts.

Rules
-----
A rule has these keys (a `dict`, a :class:`ScriptedRule`, or a `(pattern, response)` tuple):

``pattern`` (required)
    A Python regular expression, applied with :func:`re.search` (use inline flags such as
    ``(?i)`` or ``(?s)`` for case-insensitive or dot-all matching).
``response`` (required)
    * a string;
    * a list of strings, one per call of this rule (the rule keeps its own call counter,
      shared by every sample that reaches it), which is useful to script retries such as
      "first a malformed answer, then a good one";
    * from Python only, a callable ``(text, call_index) -> str``, where ``text`` is the
      text the pattern was searched in and ``call_index`` counts this rule's calls from 0.

    String responses (also list items) are templates that may echo the match: ``\\0`` is
    the whole match, ``\\1`` .. ``\\99`` numbered groups, ``\\g<name>`` (or ``\\g<1>``)
    named groups; a group that did not participate becomes the empty string. No other
    backslash sequence is special, so responses can hold JSON, braces or backslashes
    verbatim. (In a JSON file the backslash itself is escaped: ``"Answer: \\\\1"``.)
``where`` (default ``"last_user"``)
    Which text the pattern is searched in: ``"last_user"`` (the text of the last user
    message; empty when there is none), ``"system"`` (the system messages, joined by a
    blank line) or ``"all"`` (the text of every message, system prompt included, in order
    and joined by a blank line).
``exhausted`` (default ``"cycle"``)
    What a list response does once every item has been used: ``"cycle"`` starts over,
    ``"repeat_last"`` keeps answering with the last item, ``"error"`` raises.
``top_logprobs`` (optional)
    An explicit ``{token: logprob}`` mapping for the first output token, returned when the
    caller asks for logprobs (e.g. ``{"yes": -0.1, "no": -2.3}``).

The ``default`` response (same forms as ``response``) answers when no rule matches; it is
a catch-all rule appended after the others, searched in the last user message. With no
default and no match, :class:`ScriptedModelError` is raised, naming the start of the prompt.

From the command line::

    inspect eval task.py --model scripted/x -M rules=rules.json -M default_response="no idea"

where ``rules.json`` is either a JSON list whose items are rule objects or one
``{"default": ...}`` object (which may also carry ``exhausted``/``top_logprobs``)::

    [
      {"pattern": "(?i)capital of (\\\\w+)", "response": "I do not know \\\\1's capital."},
      {"pattern": "Rate", "response": ["garbled", "Score: 4"], "exhausted": "repeat_last"},
      {"pattern": "Is it true", "response": "yes", "top_logprobs": {"yes": -0.1, "no": -2.3}},
      {"default": "I cannot say."}
    ]

or an object ``{"rules": [...], "default": ...}``. ``rules`` may also be given inline as a
JSON string. The model argument is ``default_response``, not ``default``, because
:func:`inspect_ai.model.get_model` has a ``default`` parameter of its own that would swallow
it. (Inspect splits unquoted ``-M`` values at commas, so a default text containing
a comma is better put in the rules file.)

Generation settings
-------------------
* ``stop_seqs``: the response is cut before the first occurrence of any stop sequence.
* ``max_tokens``: the response is cut to that many whitespace-separated words and the
  stop reason becomes ``"max_tokens"``.
* ``logprobs`` / ``top_logprobs``: every output token (a word with its leading whitespace)
  gets a logprob of 0.0; with ``top_logprobs=k`` each token also lists itself plus
  alternatives ``<alt1>``, ``<alt2>``, ... at -10, -11, ...; a rule's explicit
  ``top_logprobs`` replaces the first token's list (and sets its logprob when the token is
  among its keys).
* Usage is set on every output: input tokens are the words of the whole conversation,
  output tokens the words of the (truncated) response.

What a provider sent
--------------------
Each call's request record (``ModelEvent.call.request`` in the log) is
``{"model", "messages", "config"}``, the config as ``GenerateConfig.model_dump(exclude_none=True)``.
As a test facility, the model argument ``drop_settings`` (a setting's name, or several, e.g.
``-M drop_settings=temperature``) removes those settings from the recorded config, as a
provider that does not send them would; the answers do not change. The suite's check of a
judge's request (:mod:`longform_evals.models.judge_requests`) is tested with it.

Every call is recorded on the instance (:attr:`ScriptedModelAPI.calls`, reachable through
``get_model(...).api``); the most recently created instances are also kept at module level
(:func:`recent_instances`, :func:`scripted_calls`), which is how a test reaches the model an
``inspect_ai.eval()`` run created. Note that :func:`inspect_ai.model.get_model` memoizes
instances by name and arguments: pass ``memoize=False`` (or a unique model name) when a
test needs fresh call counters, or call :meth:`ScriptedModelAPI.reset`.
"""

from __future__ import annotations

import math
import re
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelCall,
    ModelOutput,
    TopLogprob,
)

from longform_evals.models.local_api import MessagesModelAPI, text_output
from longform_evals.models.scripted_rules import (
    Exhausted,
    ResponseFn,
    ResponseSpec,
    RuleSpec,
    ScriptedModelError,
    ScriptedRule,
    Where,
    _CompiledRule,
    _parse_rules,
)

__all__ = [
    "Exhausted",
    "ResponseFn",
    "ResponseSpec",
    "RuleSpec",
    "ScriptedCall",
    "ScriptedModelAPI",
    "ScriptedModelError",
    "ScriptedRule",
    "Where",
    "clear_recent_instances",
    "count_words",
    "recent_instances",
    "scripted_calls",
]

_TOKEN = re.compile(r"\s*\S+")
_ALT_LOGPROB_START = -10.0
_PROMPT_PREVIEW_CHARS = 200
_MAX_CONNECTIONS = 256
_RECENT_LIMIT = 64


@dataclass(frozen=True)
class ScriptedCall:
    """One recorded `generate()` call of a scripted model."""

    prompt: str
    """The text of every message, joined by a blank line (what ``where="all"`` searches)."""
    last_user: str
    """The text of the last user message ('' when there is none)."""
    rule: int | None
    """Index of the rule that answered, or None for the default response."""
    call_index: int
    """How many times that rule (or the default) had answered before this call."""
    config: GenerateConfig
    """The generation config of the call."""
    output: ModelOutput
    """The output returned."""

    @property
    def completion(self) -> str:
        """The returned completion text."""
        return self.output.completion


def count_words(text: str) -> int:
    """Count the whitespace-separated words of ``text`` (the scripted model's "tokens")."""
    return len(text.split())


_recent: deque[ScriptedModelAPI] = deque(maxlen=_RECENT_LIMIT)
_recent_lock = threading.Lock()


def recent_instances(model_name: str | None = None) -> list[ScriptedModelAPI]:
    """The most recently created scripted models (oldest first, at most 64).

    Args:
        model_name: Only those with this model name (the part after ``scripted/``).
    """
    with _recent_lock:
        instances = list(_recent)
    if model_name is None:
        return instances
    return [m for m in instances if m.model_name == model_name]


def scripted_calls(model_name: str | None = None) -> list[ScriptedCall]:
    """The recorded calls of :func:`recent_instances`, instance by instance.

    Args:
        model_name: Only calls of models with this model name.
    """
    return [call for m in recent_instances(model_name) for call in m.calls]


def clear_recent_instances() -> None:
    """Forget the instances that :func:`recent_instances` reports."""
    with _recent_lock:
        _recent.clear()


class ScriptedModelAPI(MessagesModelAPI):
    """A deterministic Inspect model whose answers are chosen by regex rules.

    See the module docstring for the rule format and generation behaviour, and
    :meth:`_configure` for the model args (``ScriptedModelAPI("t", rules=...,
    default_response=..., latency=...)``); ``base_url`` and ``api_key`` are ignored.
    """

    def _configure(self, model_name: str, args: dict[str, Any]) -> None:
        """Read the model args.

        Args:
            model_name: The model name (the part after ``scripted/``).
            args: The model args:

                * ``rules``: A sequence of rules (mappings, :class:`ScriptedRule` or
                  ``(pattern, response)`` tuples, optionally including one
                  ``{"default": ...}`` item), a ``{"rules": [...], "default": ...}``
                  mapping, the path of a JSON file holding either, or such JSON inline.
                * ``default_response``: The response when no rule matches (giving a default
                  both here and in ``rules`` is an error). Not named ``default``, which
                  :func:`inspect_ai.model.get_model` would take for itself.
                * ``latency``: Seconds each call waits (asynchronously) before answering, to
                  stand in for a remote model when measuring concurrency (default 0).
                * ``drop_settings``: Settings left out of each call's request record (a name
                  or a sequence of names; a test facility, see the module docstring).

                No others are accepted; any are reported as an error to catch typos.
        """
        rules = args.pop("rules", None)
        default_response = args.pop("default_response", None)
        latency = args.pop("latency", 0.0)
        drop = args.pop("drop_settings", ())
        if args:
            raise ScriptedModelError(
                f"scripted model: unknown model argument(s) {sorted(args)}; "
                "accepted: 'rules', 'default_response', 'latency', 'drop_settings'"
            )
        self._dropped = frozenset([drop] if isinstance(drop, str) else map(str, drop))
        try:
            self._latency = float(latency)
        except (TypeError, ValueError):
            self._latency = math.nan
        if not math.isfinite(self._latency) or self._latency < 0:
            raise ScriptedModelError(
                f"scripted model: latency must be a finite number of seconds >= 0, got {latency!r}"
            )
        parsed, default_entry = _parse_rules(rules)
        if default_response is not None:
            if default_entry is not None:
                raise ScriptedModelError(
                    "scripted model: a default response was given both in 'rules' and "
                    "as 'default_response'"
                )
            default_entry = {"default": default_response}
        self._rules = [
            _CompiledRule(rule, f"scripted model rule {i} ({rule.pattern!r})")
            for i, rule in enumerate(parsed)
        ]
        self._default: _CompiledRule | None = None
        if default_entry is not None:
            self._default = _CompiledRule(
                ScriptedRule(
                    pattern="",
                    response=default_entry["default"],
                    exhausted=default_entry.get("exhausted", "cycle"),
                    top_logprobs=default_entry.get("top_logprobs"),
                ),
                "scripted model default response",
            )
        self._lock = threading.Lock()
        self._calls: list[ScriptedCall] = []
        with _recent_lock:
            _recent.append(self)

    @property
    def calls(self) -> list[ScriptedCall]:
        """A snapshot of the calls made so far, in order."""
        with self._lock:
            return list(self._calls)

    @property
    def rules(self) -> list[ScriptedRule]:
        """The rules, in matching order (without the default)."""
        return [r.rule for r in self._rules]

    def identity(self) -> str:
        """The rules and default response (see :mod:`longform_evals.models.identity`): two
        scripted models under one name with other rules answer differently."""
        rules = [r.rule for r in self._rules]
        return repr((rules, self._default.rule if self._default else None))

    def reset(self) -> None:
        """Forget recorded calls and restart every rule's response sequence."""
        with self._lock:
            self._calls.clear()
            for rule in self._rules:
                rule.count = 0
            if self._default is not None:
                self._default.count = 0

    def max_connections(self) -> int:
        """Generation is instantaneous, so allow many concurrent calls."""
        return _MAX_CONNECTIONS

    async def count_text_tokens(self, text: str) -> int:
        """Count tokens as whitespace-separated words (never loads tiktoken)."""
        return count_words(text)

    async def _answer(
        self, input: list[ChatMessage], config: GenerateConfig
    ) -> tuple[ModelOutput, ModelCall]:
        """Answer ``input`` from the first matching rule (see the module docstring); tools
        are ignored."""
        if self._latency:
            await anyio.sleep(self._latency)
        texts = _conversation_texts(input)
        with self._lock:
            chosen, rule_index, match, index = self._choose(texts)
        raw = chosen.respond(texts[chosen.rule.where], match, index)
        text, stop_reason = _truncate(raw, config)
        output = text_output(
            self.model_name, text, count_words(texts["all"]), count_words(text), stop_reason
        )
        if config.logprobs or config.top_logprobs:
            output.choices[0].logprobs = _synth_logprobs(
                text, config.top_logprobs, chosen.top_logprobs
            )
        call = ScriptedCall(
            prompt=texts["all"],
            last_user=texts["last_user"],
            rule=rule_index,
            call_index=index,
            config=config,
            output=output,
        )
        with self._lock:
            self._calls.append(call)
        request = {
            "model": self.model_name,
            "messages": [m.model_dump() for m in input],
            "config": {
                k: v
                for k, v in config.model_dump(exclude_none=True).items()
                if k not in self._dropped
            },
        }
        response = {"rule": rule_index, "call_index": index, "completion": text}
        return output, ModelCall.create(request, response)

    def _choose(
        self, texts: Mapping[str, str]
    ) -> tuple[_CompiledRule, int | None, re.Match[str], int]:
        """Pick the first matching rule and claim its next call index (lock held).

        Returns the rule, its index (None for the default), the match and the call index.
        """
        for rule_index, rule in enumerate(self._rules):
            match = rule.regex.search(texts[rule.rule.where])
            if match is not None:
                index = rule.count
                rule.count += 1
                return rule, rule_index, match, index
        if self._default is not None:
            match = self._default.regex.search(texts["last_user"])
            assert match is not None  # the empty pattern always matches
            index = self._default.count
            self._default.count += 1
            return self._default, None, match, index
        preview = texts["last_user"] or texts["all"]
        if len(preview) > _PROMPT_PREVIEW_CHARS:
            preview = preview[:_PROMPT_PREVIEW_CHARS] + "..."
        raise ScriptedModelError(
            f"scripted/{self.model_name}: no rule matched and there is no default response "
            f"({len(self._rules)} rule(s)); the prompt starts with: {preview!r}"
        )


def _conversation_texts(input: Sequence[ChatMessage]) -> dict[str, str]:
    """The texts rules can search, keyed by :data:`Where` value."""
    users = [m for m in input if isinstance(m, ChatMessageUser)]
    return {
        "last_user": users[-1].text if users else "",
        "system": "\n\n".join(m.text for m in input if isinstance(m, ChatMessageSystem)),
        "all": "\n\n".join(m.text for m in input),
    }


def _truncate(text: str, config: GenerateConfig) -> tuple[str, Literal["stop", "max_tokens"]]:
    """Apply ``stop_seqs`` and then ``max_tokens`` (in whitespace words) to ``text``."""
    if config.stop_seqs:
        cut = min(
            (pos for pos in (text.find(s) for s in config.stop_seqs if s) if pos >= 0),
            default=-1,
        )
        if cut >= 0:
            text = text[:cut]
    if config.max_tokens is not None:
        tokens = _TOKEN.findall(text)
        if len(tokens) > config.max_tokens:
            return "".join(tokens[: max(config.max_tokens, 0)]), "max_tokens"
    return text, "stop"


def _synth_logprobs(text: str, top_k: int | None, explicit: Mapping[str, float] | None) -> Logprobs:
    """Deterministic logprobs for ``text`` (see the module docstring)."""
    content: list[Logprob] = []
    for position, token in enumerate(_TOKEN.findall(text)):
        logprob = 0.0
        top: list[TopLogprob] | None = None
        if position == 0 and explicit is not None:
            found = explicit.get(token, explicit.get(token.strip()))
            if found is not None:
                logprob = found
            entries = sorted(explicit.items(), key=lambda kv: kv[1], reverse=True)
            if top_k:
                entries = entries[:top_k]
            top = [_top(tok, lp) for tok, lp in entries]
        elif top_k:
            top = [_top(token, 0.0)] + [
                _top(f"<alt{i}>", _ALT_LOGPROB_START - (i - 1)) for i in range(1, top_k)
            ]
        content.append(
            Logprob(
                token=token,
                logprob=logprob,
                bytes=list(token.encode("utf-8")),
                top_logprobs=top,
            )
        )
    return Logprobs(content=content)


def _top(token: str, logprob: float) -> TopLogprob:
    return TopLogprob(token=token, logprob=logprob, bytes=list(token.encode("utf-8")))
