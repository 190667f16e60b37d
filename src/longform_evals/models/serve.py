"""A GGUF model behind llama.cpp's own OpenAI-compatible HTTP server (`longform serve`).

The server is llama.cpp's (`llama-server`'s code, as the `xllamacpp` runtime of the `local`
extra builds it), not one of this project's: chat completions with log-probabilities, slots,
prompt caching, `/health`, `/v1/models`, API keys. Any OpenAI-compatible client reaches it;
Inspect does through its `openai-api/<service>/<model>` provider:

    longform serve qwen2.5-coder-1.5b --port 8080
    export LONGFORM_BASE_URL=http://127.0.0.1:8080/v1 LONGFORM_API_KEY=local
    inspect eval tasks/booookscore.py --model openai-api/longform/qwen2.5-coder-1.5b

A packaged model is served under its own name, so a judge called
`openai-api/<service>/qwen2.5-coder-1.5b` is the packaged model and uses its calibration
(:func:`~longform_evals.models.gguf_files.packaged_equivalent`).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longform_evals.models.gguf import DEFAULT_N_CTX, _import_runtime, engine_params
from longform_evals.models.gguf_files import (
    MODELS,
    ModelFileError,
    check_gguf_header,
    get_spec,
    packaged_equivalent,
    resolve_model_file,
)
from longform_evals.models.threads import default_threads

__all__ = ["ServeSettings", "ServedModel", "packaged_equivalent", "resolve_served_file"]


@dataclass(frozen=True)
class ServeSettings:
    """What `longform serve` runs.

    Attributes:
        model: a packaged model (`qwen2.5-coder-1.5b`, also written `gguf/qwen2.5-coder-1.5b`)
            or the path of a `.gguf` file.
        host: the address to listen on; loopback by default (no authentication is asked of
            local clients unless `api_key` is set).
        port: the port; 0 picks a free one.
        alias: the model name clients use (default: the packaged name, or the file's stem).
        n_ctx: context window in tokens (default: min(16384, the model's training context)).
        n_threads: CPU threads (default: the cores not busy with other work,
            `models.threads`).
        n_parallel: slots that decode together; one KV buffer shared by all of them.
        api_key: a key clients must send (`Authorization: Bearer ...`); None: none asked.
        verbose: let llama.cpp log its requests to stderr.
    """

    model: str
    host: str = "127.0.0.1"
    port: int = 8080
    alias: str | None = None
    n_ctx: int | None = None
    n_threads: int | None = None
    n_parallel: int = 1
    api_key: str | None = None
    verbose: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be in 0..65535, got {self.port}")
        if self.n_parallel < 1:
            raise ValueError(f"n_parallel must be at least 1, got {self.n_parallel}")
        if self.n_threads is not None and self.n_threads < 1:
            raise ValueError(f"n_threads must be at least 1, got {self.n_threads}")
        if self.n_ctx is not None and self.n_ctx < 256:
            raise ValueError(f"n_ctx={self.n_ctx} is too small (minimum 256)")
        try:
            ipaddress.ip_address(self.host)
        except ValueError:
            if self.host != "localhost":
                raise ValueError(
                    f"host must be an IP address or localhost, got {self.host!r}"
                ) from None


def resolve_served_file(model: str) -> tuple[Path, str, int]:
    """The `.gguf` file of `model` (a packaged name, `gguf/<name>`, or a path), the name to
    serve it under, and its training context.

    Raises:
        ModelFileError: a path that is no GGUF file, or a packaged model whose file fails.
        ValueError: a name that is neither a packaged model nor an existing file.
    """
    name = model.removeprefix("gguf/")
    if name in MODELS:
        spec = get_spec(name)
        return resolve_model_file(name), name, spec.n_ctx_train
    path = Path(model).expanduser()
    if not path.is_file():
        raise ValueError(
            f"{model!r} is neither a packaged model ({', '.join(MODELS)}) nor a .gguf file"
        )
    check_gguf_header(path)
    return path, path.stem, DEFAULT_N_CTX


class ServedModel:
    """A running server; `stop()` (or leaving the `with` block) shuts it down."""

    def __init__(self, settings: ServeSettings) -> None:
        xllamacpp = _import_runtime()
        path, default_alias, train_ctx = resolve_served_file(settings.model)
        self.settings = settings
        self.alias = settings.alias or default_alias
        self.path = path
        self.n_ctx = settings.n_ctx or min(DEFAULT_N_CTX, train_ctx)
        threads = settings.n_threads or default_threads()
        params = engine_params(
            str(path), self.n_ctx, settings.n_parallel, threads, settings.verbose
        )
        params.model_alias = [self.alias]
        params.hostnames = [settings.host]
        params.port = settings.port
        if settings.api_key:
            params.api_keys = [settings.api_key]
        try:
            self._server: Any = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ModelFileError(
                f"llama.cpp could not serve {path} on {settings.host}:{settings.port}: {exc}. "
                "The port may be taken (use --port 0 for a free one), or the file may not be "
                "a supported GGUF model."
            ) from exc
        self.url: str = str(self._server.listening_address).rstrip("/")

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (ends in `/v1`)."""
        return f"{self.url}/v1"

    def stop(self) -> None:
        """Stop listening and free the model (idempotent)."""
        self._server = None

    def __enter__(self) -> ServedModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
