"""Inspect model providers of this package: `gguf/<name>`, `scripted/<name>`, `replay/<name>`
and `lmeval/<key>` (an lm-eval LM inside a longform wrapper).

The factories import their implementations lazily so that registering them costs nothing
and a missing optional extra only matters when the provider is actually used.
"""

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="gguf")
def gguf() -> type[ModelAPI]:
    from longform_evals.models.gguf import GGUFModelAPI

    return GGUFModelAPI


@modelapi(name="scripted")
def scripted() -> type[ModelAPI]:
    from longform_evals.models.scripted import ScriptedModelAPI

    return ScriptedModelAPI


@modelapi(name="replay")
def replay() -> type[ModelAPI]:
    from longform_evals.models.replay import ReplayModelAPI

    return ReplayModelAPI


@modelapi(name="lmeval")
def lmeval() -> type[ModelAPI]:
    from longform_evals.models.lmeval_inner import LmEvalModelAPI

    return LmEvalModelAPI
