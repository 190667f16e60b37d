"""The `gguf` Inspect provider: GGUF models run in-process on the CPU with llama.cpp.

    inspect eval TASK --model gguf/qwen2.5-coder-1.5b
    inspect eval TASK --model gguf/custom -M path=/models/x.gguf -M n_ctx=8192

One llama.cpp engine is loaded per (file, context, threads, slots) and shared by every
`get_model()` that asks for it, so a task model and a grader role on the same file hold the
weights once. Calls queue on the engine's slots (one by default): with a single slot,
consecutive prompts that share a prefix reuse its KV cache, which is what makes per-sentence
judging of one summary cheap. The blocking call runs in a worker thread (llama.cpp releases
the GIL), so Inspect's event loop stays responsive.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelCall,
    ModelOutput,
    StopReason,
    TopLogprob,
)

from longform_evals.models.free_cores import FreeCores
from longform_evals.models.gguf_files import (
    MODELS,
    ModelFileError,
    check_gguf_header,
    fingerprint_of,
    get_spec,
    resolve_model_file,
    verify_file,
)
from longform_evals.models.local_api import MessagesModelAPI, token_usage

DEFAULT_N_CTX = 16384
DEFAULT_MAX_TOKENS = 1024
_INSTALL_RUNTIME = "pip install 'longform-evals[local]'"


class MissingExtraError(ImportError):
    """An optional dependency of the gguf provider is not installed."""


def _import_runtime() -> Any:
    try:
        import xllamacpp
    except ImportError as exc:
        raise MissingExtraError(
            "the gguf provider needs the llama.cpp runtime `xllamacpp` from the `local` extra; "
            f"install it with: {_INSTALL_RUNTIME}"
        ) from exc
    return xllamacpp


def engine_params(path: str, n_ctx: int, n_parallel: int, threads: int, verbose: bool) -> Any:
    """llama.cpp's settings for a model file: the in-process engine's and `longform serve`'s
    (which adds its address, alias and key)."""
    params = _import_runtime().CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx
    params.n_parallel = n_parallel
    # One KV buffer for all slots: each slot may use the whole context (instead of
    # n_ctx / n_parallel), and idle slots' prefixes stay in the buffer for reuse.
    params.kv_unified = n_parallel > 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = 3 if verbose else 0
    return params


AUTO_THREADS = 0
"""`EngineKey.n_threads` of an engine that sizes its threads to the free cores as it runs."""


@dataclass(frozen=True)
class EngineKey:
    """What makes two engines interchangeable."""

    path: str
    n_ctx: int
    n_threads: int
    """Threads, or `AUTO_THREADS`: the cores other processes leave free, re-checked."""
    n_parallel: int


class Engine:
    """One loaded llama.cpp server and the slots that serialise calls to it.

    With `AUTO_THREADS` the engine starts with the cores free just before it loads (measured
    over a short pause, `models.free_cores`), and, with one slot, measures again between calls
    once 15 s have passed: where the free cores changed (another job started or ended) it
    loads the model again with that many threads before the next call. llama.cpp fixes its
    thread count when it loads, and its threads wait for each other at every step, so one
    thread more than the free cores stalls them all (`models.threads`). A reload costs the
    loading time (the file is in the page cache) and the prompt cache. Each call's thread
    count is in its output's metadata (`threads`), so the log shows what ran.
    """

    def __init__(self, key: EngineKey, verbose: bool) -> None:
        self.key = key
        self.verbose = verbose
        self.watch = FreeCores() if key.n_threads == AUTO_THREADS else None
        self.threads = self.watch.now() if self.watch is not None else key.n_threads
        self.server = self._load(self.threads)
        self.slots = threading.BoundedSemaphore(key.n_parallel)

    def _load(self, threads: int) -> Any:
        key = self.key
        params = engine_params(key.path, key.n_ctx, key.n_parallel, threads, self.verbose)
        try:
            return _import_runtime().Server(params)
        except RuntimeError as exc:
            raise ModelFileError(
                f"llama.cpp could not load {key.path} (n_ctx={key.n_ctx}): {exc}. "
                "The file may be corrupt or not a supported GGUF model."
            ) from exc

    def _fit_threads(self) -> None:
        """Reload with the free cores where they changed (one slot: no other call runs)."""
        if self.watch is None or self.key.n_parallel > 1:
            return
        free = self.watch.since_last()
        if free is None or free == self.threads:
            return
        self.server = None  # the old weights and buffers go before the new ones load
        self.server = self._load(free)
        self.threads = free

    def chat(self, request: dict[str, Any]) -> dict[str, Any]:
        """Run one chat completion, waiting for a free slot first."""
        with self.slots:
            self._fit_threads()
            response = self.server.handle_chat_completions(request)
        if isinstance(response, str):
            response = json.loads(response)
        if not isinstance(response, dict):
            raise RuntimeError(f"unexpected llama.cpp response type: {type(response).__name__}")
        return response


_ENGINES: dict[EngineKey, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def get_engine(key: EngineKey, verbose: bool = False) -> Engine:
    """The shared engine for `key`, loading it on first use."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = Engine(key, verbose)
            _ENGINES[key] = engine
        return engine


def _as_bool(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return bool(value)


class GGUFModelAPI(MessagesModelAPI):
    """Inspect ModelAPI over an in-process llama.cpp engine.

    Model args (`-M key=value`):
        path: a `.gguf` file to load instead of a named model (the name is then a label).
        sha256: optional digest the file at `path` must have.
        n_ctx: context window in tokens (default min(16384, the model's training context)).
        n_threads: CPU threads (default: the cores other processes leave free, measured
            before the engine loads and again between calls, `Engine`).
        n_parallel: slots that decode together (default 1); they share one KV buffer, so
            each may use the whole context, but a prefix cached in one slot is not reused
            by another.
        cache_prompt: reuse a cached prompt prefix (default true); false makes every call
            process its whole prompt, so the same prompt gets the same answer whatever ran
            before (a call's `GenerateConfig(cache_prompt=...)` still decides for that call).
        verbose: let llama.cpp log to stderr.
    """

    readable_errors = (ValueError, ModelFileError)
    tools_refused = "the gguf provider does not support tool calling"

    def _configure(self, model_name: str, args: dict[str, Any]) -> None:
        """Read the model args, find and check the model file, and load its engine."""
        path_arg = args.pop("path", None)
        sha256 = args.pop("sha256", None)
        n_ctx = args.pop("n_ctx", None)
        threads_arg = args.pop("n_threads", None)
        n_threads = AUTO_THREADS if threads_arg is None else int(threads_arg)
        n_parallel = int(args.pop("n_parallel", 1))
        verbose = _as_bool(args.pop("verbose", False))
        self.cache_prompt = _as_bool(args.pop("cache_prompt", True))
        if args:
            raise ValueError(
                f"gguf provider: unknown model args {sorted(args)}; accepted: path, sha256, "
                "n_ctx, n_threads, n_parallel, cache_prompt, verbose"
            )
        if n_parallel < 1 or (threads_arg is not None and n_threads < 1):
            raise ValueError("gguf provider: n_parallel and n_threads must be at least 1")

        _import_runtime()  # the missing-extra error before any file work
        if path_arg is not None:
            path = Path(str(path_arg)).expanduser()
            check_gguf_header(path)
            if sha256:
                verify_file(path, str(sha256))
            # Without a digest the file's fingerprint stands for its content (an edited or
            # replaced file under the same path is another model).
            self.file_digest = str(sha256) if sha256 else f"fingerprint:{fingerprint_of(path)}"
            train_ctx = MODELS[model_name].n_ctx_train if model_name in MODELS else DEFAULT_N_CTX
        else:
            spec = get_spec(model_name)
            path = resolve_model_file(model_name)
            self.file_digest = spec.sha256
            check_gguf_header(path)
            train_ctx = spec.n_ctx_train
        self.n_ctx = int(n_ctx) if n_ctx is not None else min(DEFAULT_N_CTX, train_ctx)
        if self.n_ctx < 256:
            raise ValueError(f"gguf provider: n_ctx={self.n_ctx} is too small (minimum 256)")
        self.model_path = path
        self.engine = get_engine(
            EngineKey(str(path.resolve()), self.n_ctx, n_threads, n_parallel), verbose
        )
        self._tokenizer_name = "qwen3" if "qwen" in model_name.lower() else "cl100k_base"
        # Running totals over this instance's calls, for benchmarks and quick checks.
        # Times are llama.cpp's own (ms spent processing prompts and generating tokens).
        self.totals: dict[str, float] = {
            "calls": 0,
            "prompt_tokens": 0,
            "cached_tokens": 0,
            "output_tokens": 0,
            "prompt_ms": 0.0,
            "generation_ms": 0.0,
        }

    def identity(self) -> str:
        """What makes this model's outputs: the digest of the loaded file (see
        :mod:`longform_evals.models.identity`)."""
        return self.file_digest

    def max_tokens(self) -> int | None:
        return DEFAULT_MAX_TOKENS

    def max_connections(self) -> int:
        # More connections than slots would only queue in worker threads.
        return self.engine.key.n_parallel

    def connection_key(self) -> str:
        return f"gguf:{self.engine.key.path}"

    async def count_text_tokens(self, text: str) -> int:
        from longform_evals.text import count_tokens

        return count_tokens(text, self._tokenizer_name)

    async def _answer(
        self, input: list[ChatMessage], config: GenerateConfig
    ) -> tuple[ModelOutput | Exception, ModelCall]:
        request = self._request(input, config)
        start = time.monotonic()
        response = await anyio.to_thread.run_sync(self.engine.chat, request)
        elapsed = time.monotonic() - start
        call = ModelCall.create(request=request, response=response, time=elapsed)
        return self._output(response, elapsed), call

    def _request(self, input: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": [_message_dict(m) for m in input],
            "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
            # Reuse of the shared prefix is the point of this provider; opt out per call
            # with GenerateConfig(cache_prompt=False), or for the model with -M cache_prompt=false.
            "cache_prompt": (
                self.cache_prompt
                if config.cache_prompt in (None, "auto")
                else bool(config.cache_prompt)
            ),
        }
        optional = {
            "temperature": config.temperature,
            "top_p": config.top_p,
            "top_k": config.top_k,
            "seed": config.seed,
            "frequency_penalty": config.frequency_penalty,
            "presence_penalty": config.presence_penalty,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        if config.stop_seqs:
            request["stop"] = list(config.stop_seqs)
        if config.logprobs or config.top_logprobs:
            request["logprobs"] = True
            request["top_logprobs"] = config.top_logprobs or 5
        if config.response_schema is not None:
            schema = config.response_schema
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema.name,
                    "schema": schema.json_schema.model_dump(exclude_none=True),
                },
            }
        return request

    def _output(self, response: dict[str, Any], elapsed: float) -> ModelOutput | Exception:
        error = response.get("error")
        if error is not None:
            message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
            if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
                # Inspect's convention for an over-long prompt: an empty answer that says why.
                output = ModelOutput.from_content(
                    self.model_name, "", stop_reason="model_length", error=message
                )
                output.time = elapsed
                return output
            return RuntimeError(f"llama.cpp error: {message}")
        choice = response["choices"][0]
        content = choice.get("message", {}).get("content") or ""
        usage = response.get("usage", {})
        cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        output_tokens = int(usage.get("completion_tokens", 0))
        self.totals["calls"] += 1
        self.totals["prompt_tokens"] += prompt_tokens
        self.totals["cached_tokens"] += cached
        self.totals["output_tokens"] += output_tokens
        timings = response.get("timings") or {}
        self.totals["prompt_ms"] += float(timings.get("prompt_ms") or 0.0)
        self.totals["generation_ms"] += float(timings.get("predicted_ms") or 0.0)
        return ModelOutput(
            model=self.model_name,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(
                        content=content, model=self.model_name, source="generate"
                    ),
                    stop_reason=_stop_reason(choice.get("finish_reason")),
                    logprobs=_logprobs(choice.get("logprobs")),
                )
            ],
            usage=token_usage(prompt_tokens - cached, output_tokens, cache_read=cached),
            input_context_tokens=prompt_tokens,
            time=elapsed,
            metadata={"timings": response.get("timings", {}), "threads": self.engine.threads},
            response_id=response.get("id"),
        )


def _message_dict(message: ChatMessage) -> dict[str, str]:
    if isinstance(message, ChatMessageSystem):
        role = "system"
    elif isinstance(message, ChatMessageUser):
        role = "user"
    elif isinstance(message, ChatMessageAssistant):
        role = "assistant"
    else:
        raise ValueError(f"the gguf provider cannot send a {message.role!r} message")
    return {"role": role, "content": message.text}


def _stop_reason(finish_reason: object) -> StopReason:
    if finish_reason == "length":
        return "max_tokens"
    if finish_reason == "stop":
        return "stop"
    return "unknown"


def _logprobs(data: object) -> Logprobs | None:
    if not isinstance(data, dict) or not data.get("content"):
        return None
    return Logprobs(
        content=[
            Logprob(
                token=item["token"],
                logprob=item["logprob"],
                bytes=item.get("bytes"),
                top_logprobs=[
                    TopLogprob(token=t["token"], logprob=t["logprob"], bytes=t.get("bytes"))
                    for t in item.get("top_logprobs") or []
                ],
            )
            for item in data["content"]
        ]
    )
