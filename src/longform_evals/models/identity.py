"""What makes a model's outputs, as one digest, and the cache policy keyed by it.

Inspect keys its model cache by the model's name, the generation settings and the prompt.
Two different models can share a name: `gguf/x -M path=a.gguf` and `-M path=b.gguf`, two
`scripted/judge` models with other rules, one file edited in place. Every cached call of the
suite (judges, summarizers, readers) therefore adds :func:`model_identity` to the key, so
two models under one name never share answers.
"""

from __future__ import annotations

import hashlib
import json

from inspect_ai.model import CachePolicy, Model

IDENTITY_SCOPE = "model_identity"
"""The cache-scope key that holds :func:`model_identity`."""


def model_identity(model: Model) -> str:
    """A short digest of the model's name, its `-M` arguments and, when the provider has an
    `identity()` method, what that returns (the `gguf` provider: the loaded file's digest;
    the `scripted` provider: its rules)."""
    parts: dict[str, object] = {"name": str(model), "args": model.model_args}
    identity = getattr(model.api, "identity", None)
    if callable(identity):
        parts["api"] = identity()
    text = json.dumps(parts, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_policy(model: Model, enabled: bool, **scopes: str) -> CachePolicy | bool:
    """Inspect's cache policy (no expiry) for a call to `model`, keyed by its identity and
    any further `scopes`; False when caching is off."""
    if not enabled:
        return False
    return CachePolicy(expiry=None, scopes={IDENTITY_SCOPE: model_identity(model), **scopes})
