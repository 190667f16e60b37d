"""Inspect model providers of this package: `gguf/<name>`, `scripted/<name>`, `replay/<name>`
and `lmeval/<key>` (an lm-eval LM inside a longform wrapper).

The factories import their implementations lazily so that registering them costs nothing
and a missing optional extra only matters when the provider is actually used.
"""

from importlib import import_module

from inspect_ai.model import ModelAPI, modelapi

PROVIDERS: dict[str, str] = {
    "gguf": "longform_evals.models.gguf:GGUFModelAPI",
    "scripted": "longform_evals.models.scripted:ScriptedModelAPI",
    "replay": "longform_evals.models.replay:ReplayModelAPI",
    "lmeval": "longform_evals.models.lmeval_inner:LmEvalModelAPI",
}
"""Each provider's name and its class (`module:class`, imported on the provider's first use)."""


def provider_class(name: str) -> type[ModelAPI]:
    """The class of the provider `name` (a key of :data:`PROVIDERS`), importing its module."""
    module, _, cls = PROVIDERS[name].partition(":")
    found: type[ModelAPI] = getattr(import_module(module), cls)
    return found


def _register(name: str) -> type[ModelAPI]:
    """Register the provider `name` with Inspect, its class imported when first used."""
    return modelapi(name=name)(lambda: provider_class(name))


gguf = _register("gguf")
scripted = _register("scripted")
replay = _register("replay")
lmeval = _register("lmeval")
