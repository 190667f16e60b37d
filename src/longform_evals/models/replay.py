# inspect-evals-lint: ignore-file[IEBP001] -- a provider: it opens the model it records
"""The `replay/<name>` Inspect provider: a model's answers played back from a recording.

A recording is a JSON Lines file mapping a hash of each call to the full output the recorded
model gave (text, log-probabilities, usage, stop reason), so a judge scores identically from
a replay and checks run the whole scoring path on real judge outputs with no model installed.

Model args (`-M key=value` for the main model; for a role, in its config's `model_args`):
    path: the recording. Default: the packaged `longform_evals/data/replays/<name>.jsonl`
        (`<name>` with characters other than letters, digits, `._-` made `_`). A relative
        path is taken from the directory the command was run in.
    record: an Inspect model name (`gguf/qwen2.5-coder-1.5b`) called on every miss; its
        output is appended to the recording (created when missing) and returned. Without
        it a miss raises :class:`ReplayMissError`, naming the file, the key and the prompt.
    record_args: model args for the `record` model (a mapping, or JSON of one).

Name the model after the recorded one (`replay/qwen2.5-coder-1.5b`): calibration files are
looked up by the part after the provider, so the replay uses the recorded model's thresholds.

The key
-------
The sha256 of a canonical JSON (sorted keys, no whitespace) of what decides the answer:

* every message in order, system prompt included, as its role and text; other content parts
  (images, reasoning) as their JSON, an assistant's tool calls as function and arguments, a
  tool result's function name; never message ids, which are random;
* the tools and tool choice, when tools are offered;
* the generation settings that change the output and are set (:data:`KEY_SETTINGS`:
  sampling, length, stop sequences, seed, log-probabilities, response schema, reasoning,
  `extra_body`). Retries, timeouts, connections, caching and batching are left out, and so
  is `system_message`, which Inspect has already put into the messages. Unset settings are
  left out too, so a new setting in Inspect does not change existing keys.

The model's name is not in the key: one file holds one model's answers.

The file
--------
One JSON object per line. The first line may be a header, written when recording creates
the file: `{"recording": {"model": ..., "longform_evals": <version>, "format": 1}}`. Each
record is `{"key", "model" (the recorded model), "prompt" (the last user message for people
reading the file: whole when short, else its first 300 and last 200 characters),
"prompt_sha256" (the whole message's digest: it finds the same message recorded with other
settings), "config" (the settings that went into the key), "output" (the
`ModelOutput` as `model_dump(mode="json")`)}`; only `key` and `output` are required. Blank
lines are skipped; a line that is not such an object is refused with `file:line`. When a key
appears twice the last record wins, so a call can be re-recorded by appending. Lines are
written with ASCII escapes, so a line break inside a text never splits a record; a
log-probability of minus infinity is written `-Infinity`, as Python's `json` does.

Recording calls the `record` model through Inspect (its own retries, events and usage appear
in the log) without Inspect's cache, appends each answer as one write under a lock, and
answers concurrent misses of one key with a single call; two processes must not record into
one file at once. A recording made with one model refuses `record=` of another.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelCall,
    ModelOutput,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolFunction, ToolInfo
from pydantic import ValidationError

from longform_evals import about
from longform_evals.models.gguf_files import packaged_equivalent
from longform_evals.models.local_api import LocalModelAPI

__all__ = [
    "KEY_SETTINGS",
    "PACKAGED_DIR",
    "Recording",
    "ReplayError",
    "ReplayMissError",
    "ReplayModelAPI",
    "call_key",
    "load_recording",
    "packaged_recording",
]

KEY_SETTINGS: tuple[str, ...] = (
    "max_tokens",
    "temperature",
    "top_p",
    "top_k",
    "seed",
    "stop_seqs",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "best_of",
    "num_choices",
    "logprobs",
    "top_logprobs",
    "prompt_logprobs",
    "response_schema",
    "parallel_tool_calls",
    "internal_tools",
    "effort",
    "verbosity",
    "reasoning_effort",
    "reasoning_mode",
    "reasoning_tokens",
    "reasoning_summary",
    "reasoning_history",
    "modalities",
    "extra_body",
)
"""The `GenerateConfig` fields that go into a call's key (see the module docstring)."""

PACKAGED_DIR = Path(__file__).resolve().parent.parent / "data" / "replays"
"""Where the package keeps its recordings, one `<name>.jsonl` per recorded model."""

FORMAT = 1
_PREVIEW_CHARS = 300
_TAIL_CHARS = 200
_MAX_CONNECTIONS = 256


class ReplayError(ValueError):
    """A replay model was set up wrongly, or its recording is missing or corrupt."""


class ReplayMissError(ReplayError):
    """A call the recording has no answer for (never retried: the provider's `should_retry`
    is False for every error, and Inspect retries no other exception of this kind)."""


def packaged_recording(name: str) -> Path:
    """The packaged recording of `replay/<name>` (which may not exist)."""
    return PACKAGED_DIR / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', name)}.jsonl"


def call_key(
    input: Sequence[ChatMessage],
    tools: Sequence[ToolInfo],
    tool_choice: ToolChoice | None,
    config: GenerateConfig,
) -> tuple[str, dict[str, Any]]:
    """The key of a call and the settings that went into it (see the module docstring)."""
    settings = config.model_dump(mode="json", include=set(KEY_SETTINGS), exclude_none=True)
    payload: dict[str, Any] = {"messages": [_message_key(m) for m in input], "config": settings}
    if tools:
        payload["tools"] = [t.model_dump(mode="json", exclude_none=True) for t in tools]
        payload["tool_choice"] = (
            {"function": tool_choice.name} if isinstance(tool_choice, ToolFunction) else tool_choice
        )
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), settings


def _message_key(message: ChatMessage) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": message.role, "text": message.text}
    if not isinstance(message.content, str):
        other = [
            part.model_dump(mode="json", exclude_none=True)
            for part in message.content
            if part.type != "text"
        ]
        if other:
            entry["other_content"] = other
    if isinstance(message, ChatMessageAssistant) and message.tool_calls:
        entry["tool_calls"] = [
            {"function": c.function, "arguments": c.arguments} for c in message.tool_calls
        ]
    if isinstance(message, ChatMessageTool):
        entry["function"] = message.function
    return entry


def _last_user(input: Sequence[ChatMessage]) -> str:
    users = [m for m in input if isinstance(m, ChatMessageUser)]
    return users[-1].text if users else ""


@dataclass
class Recording:
    """A loaded recording: outputs by key, and what helps explain a miss."""

    path: Path
    model: str | None = None
    """The recorded model named by the header (None without a header)."""
    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    settings_by_prompt: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The settings of the last record of each message (by its sha256), to say what differs on
    a miss."""
    digest: str = hashlib.sha256(b"").hexdigest()
    """sha256 of the file as loaded."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _start(prompt: str) -> str:
    return prompt[:_PREVIEW_CHARS] + ("..." if len(prompt) > _PREVIEW_CHARS else "")


def _quoted(prompt: str) -> str:
    """The message as a record keeps it for people reading the file: whole when short, else
    its start and end (templates put the varying part last)."""
    if len(prompt) <= _PREVIEW_CHARS + _TAIL_CHARS:
        return prompt
    return _start(prompt) + " [...] " + prompt[-_TAIL_CHARS:]


def load_recording(path: Path) -> Recording:
    """Read a recording (module docstring); a missing file is an empty recording.

    Raises:
        ReplayError: naming `file:line` for a line that is not a header or a record.
    """
    recording = Recording(path)
    if not path.exists():
        return recording
    data = path.read_bytes()
    recording.digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: not UTF-8 text ({exc})") from exc
    seen_record = False
    # Split on "\n" only: str.splitlines() would also split at characters such as U+2028.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{where}: not JSON ({exc.msg})") from exc
        if not isinstance(item, dict):
            raise ReplayError(f"{where}: expected a JSON object, got {type(item).__name__}")
        if "recording" in item:
            if seen_record or recording.model is not None:
                raise ReplayError(f"{where}: a header is only allowed on the first line")
            header = item["recording"]
            model = header.get("model") if isinstance(header, dict) else None
            if not isinstance(model, str):
                raise ReplayError(f'{where}: the header needs {{"recording": {{"model": ...}}}}')
            recording.model = model
            continue
        key, output = item.get("key"), item.get("output")
        if not isinstance(key, str) or not isinstance(output, dict):
            raise ReplayError(f"{where}: a record needs a string 'key' and an object 'output'")
        try:
            recording.outputs[key] = ModelOutput.model_validate(output)
        except ValidationError as exc:
            raise ReplayError(f"{where}: 'output' is not a ModelOutput: {exc}") from exc
        digest, settings = item.get("prompt_sha256"), item.get("config")
        if not isinstance(digest, str) and isinstance(item.get("prompt"), str):
            digest = _digest(item["prompt"])  # a record that kept the whole message
        if isinstance(digest, str) and isinstance(settings, dict):
            recording.settings_by_prompt[digest] = settings
        seen_record = True
    return recording


_FILE_LOCKS: dict[Path, threading.Lock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def _file_lock(path: Path) -> threading.Lock:
    """One lock per recording file, shared by every replay model of this process."""
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(path.resolve(), threading.Lock())


def _append_line(path: Path, record: Mapping[str, Any], header: Mapping[str, Any]) -> None:
    """Append `record` as one line (with `header` first when the file is new or empty)."""
    with _file_lock(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        text = ""
        if not path.exists() or path.stat().st_size == 0:
            text = json.dumps({"recording": dict(header)}) + "\n"
        else:
            with path.open("rb") as existing:
                existing.seek(-1, os.SEEK_END)
                if existing.read(1) != b"\n":
                    text = "\n"  # a hand-edited file without a final newline
        text += json.dumps(record) + "\n"
        # One write per line, under the lock: no other record can land inside it.
        with path.open("ab") as file:
            file.write(text.encode("utf-8"))


def _resolve_path(name: str, path: object) -> Path:
    if path is None or path == "":
        return packaged_recording(name)
    resolved = Path(str(path)).expanduser()
    # Inspect may change into a task file's folder before creating a role's model.
    if not resolved.is_absolute() and about.LAUNCH_DIR is not None:
        resolved = Path(about.LAUNCH_DIR) / resolved
    return resolved


def _record_args(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"replay provider: record_args is not JSON: {exc}") from exc
    if not isinstance(value, Mapping):
        raise ReplayError("replay provider: record_args must be a mapping of model args")
    return dict(value)


class ReplayModelAPI(LocalModelAPI):
    """Answers from a recording, recording misses from another model when asked to.

    See the module docstring for the model args, the key and the file format.
    """

    def _configure(self, model_name: str, args: dict[str, Any]) -> None:
        """Read the model args (module docstring) and load the recording."""
        path_arg = args.pop("path", None)
        record = args.pop("record", None)
        record_args = _record_args(args.pop("record_args", None))
        if args:
            raise ReplayError(
                f"replay provider: unknown model args {sorted(args)}; accepted: path, record, "
                "record_args"
            )
        if record_args and not record:
            raise ReplayError("replay provider: record_args needs record=MODEL")
        self.path = _resolve_path(model_name, path_arg)
        if not record and not self.path.exists():
            if path_arg:
                raise ReplayError(
                    f"replay/{model_name}: the recording {self.path} does not exist; record it "
                    "by adding the model arg record=MODEL"
                )
            raise ReplayError(
                f"replay/{model_name}: no recording: no path=FILE was given and the package "
                f"has none at {self.path}; pass path=FILE, or record one with record=MODEL"
            )
        self.recording = load_recording(self.path)
        self.recorder: Model | None = None
        if record:
            self.recorder = get_model(str(record), **record_args)
            recorded = self.recording.model
            if recorded is not None and recorded != str(self.recorder):
                raise ReplayError(
                    f"replay/{model_name}: {self.path} was recorded with {recorded}; "
                    f"recording {self.recorder} into it would mix two models' answers"
                )
        self._in_flight: dict[str, anyio.Event] = {}
        self.replayed = 0
        """Calls answered from the recording."""
        self.recorded = 0
        """Calls answered by the `record` model (and appended to the recording)."""

    def identity(self) -> str:
        """The digest of the recording as loaded (see :mod:`longform_evals.models.identity`):
        a re-recorded file is another model."""
        return self.recording.digest

    def max_connections(self) -> int:
        # Replaying is instantaneous; a recording run is paced by the recorded model.
        if self.recorder is not None:
            return self.recorder.api.max_connections()
        return _MAX_CONNECTIONS

    def should_retry(self, ex: Exception) -> bool:
        # A miss or a bad file stays so on retry; the recorded model retries its own calls.
        return False

    async def count_text_tokens(self, text: str) -> int:
        # The same count in replay and record mode, offline (Inspect's default may download).
        from longform_evals.text import count_tokens

        return count_tokens(text)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        """The recorded output of this call (module docstring), recording it on a miss when
        a `record` model is set. (Inspect's whole `generate`, not `MessagesModelAPI`'s: the
        tools offered go into the key.)"""
        key, settings = call_key(input, tools, tool_choice, config)
        output = self.recording.outputs.get(key)
        source = "replayed"
        if output is None:
            output = await self._record(key, settings, input, tools, tool_choice, config)
            source = "recorded"
        else:
            self.replayed += 1
        request = {"recording": str(self.path), "key": key, "config": settings}
        # A copy: Inspect sets the time on the output it gets.
        return output.model_copy(deep=True), ModelCall.create(request, {"source": source})

    async def _record(
        self,
        key: str,
        settings: dict[str, Any],
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if self.recorder is None:
            raise ReplayMissError(self._miss_message(key, settings, input))
        # Concurrent misses of one key wait for the first, so they all get one answer,
        # as they will from the replay.
        while (pending := self._in_flight.get(key)) is not None:
            await pending.wait()
            found = self.recording.outputs.get(key)
            if found is not None:
                self.replayed += 1
                return found
        done = self._in_flight[key] = anyio.Event()
        try:
            result = await self.recorder.generate(
                input,
                tools=tools,
                tool_choice=tool_choice,
                # Inspect already put the system message into `input`.
                config=config.model_copy(update={"system_message": None}),
                cache=False,
            )
            dumped = result.model_dump(mode="json")
            # What the replay will return, so a recording run scores as its replays do.
            output = ModelOutput.model_validate(dumped)
            prompt = _last_user(input)
            record = {
                "key": key,
                "model": str(self.recorder),
                "prompt": _quoted(prompt),
                "prompt_sha256": _digest(prompt),
                "config": settings,
                "output": dumped,
            }
            header = {
                "model": str(self.recorder),
                "longform_evals": about.__version__,
                "format": FORMAT,
            }
            _append_line(self.path, record, header)
            self.recording.outputs[key] = output
            self.recording.settings_by_prompt[_digest(prompt)] = settings
            if self.recording.model is None:
                self.recording.model = str(self.recorder)
            self.recorded += 1
            return output
        finally:
            del self._in_flight[key]
            done.set()

    def _miss_message(self, key: str, settings: dict[str, Any], input: list[ChatMessage]) -> str:
        prompt = _last_user(input)
        message = (
            f"replay/{self.model_name}: {self.path} has no answer for this call (key {key}, "
            f"{len(self.recording.outputs)} recorded). The last user message starts: "
            f"{_start(prompt)!r}."
        )
        if len(prompt) > _PREVIEW_CHARS:
            # Templates put the varying part last, so the end tells calls apart.
            message += f" It ends: {'...' + prompt[-_TAIL_CHARS:]!r}."
        other = self.recording.settings_by_prompt.get(_digest(prompt))
        if other is not None:
            message += (
                f" The same message was recorded with other messages or settings: {other} "
                f"(this call: {settings})."
            )
        recorded = self.recording.model or "MODEL"
        return message + (
            f" To record it, add the model arg record={recorded}: misses are then asked of "
            f"that model and appended to {self.path}."
        )


def stands_for(model: Model) -> str:
    """The model whose answers ``model`` gives: the recorded model of a replay (from its
    header, else the model recording it), otherwise ``model`` itself. Scorers that choose a
    method by the judge's provider ask this, so a replayed judge is judged the same way as
    the model it replays. A served packaged model (`openai-api/<service>/<packaged name>`)
    stands for the packaged `gguf/` model (`gguf_files.packaged_equivalent`)."""
    api = model.api
    if isinstance(api, ReplayModelAPI):
        if api.recording.model:
            return api.recording.model
        if api.recorder is not None:
            return str(api.recorder)
    return packaged_equivalent(str(model)) or str(model)
