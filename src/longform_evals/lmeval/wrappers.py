# inspect-evals-lint: ignore-file[IEBP001] -- lm-eval drives these runs: no solver is around
"""The strategy wrapper LMs: lm-eval models that run the suite's Inspect strategies around an
inner model.

``--model longform-readagent --model_args inner=gguf/qwen2.5-coder-1.5b,max_pages=2`` answers
every ``longform_*`` generation request by running the ReadAgent solver on the request's
document (one Inspect eval per task, all its requests as samples, with the task's scorers), so
the strategy code, its log, retries and model usage are Inspect's. ``inner`` is an Inspect model
name (``provider/model``) or an lm-eval model name (``hf``, ``local-chat-completions``, ...).
The other ``model_args`` are the strategy's task parameters when some longform task takes them
(``max_pages``, ``chunk_size``, ``target_words``, ...), else the inner model's arguments;
``chat_template=true`` puts an lm-eval inner model's prompts through its chat template.

Importing this module registers the wrappers with lm-eval (``longform lm-eval`` does so before
handing over to lm-eval's command line).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, ClassVar

import lm_eval.models  # noqa: F401  (lm-eval's own models register first; see registration below)
from inspect_ai.model import Model, get_model
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.utils import simple_parse_args_string

from longform_evals.lmeval.catalogue import STRATEGY_PARAMETERS, Family, LmEvalSetupError, task_spec
from longform_evals.lmeval.docs import doc_args, doc_sample
from longform_evals.lmeval.scoring import remember, run_samples
from longform_evals.models.lmeval_inner import attach_lm
from longform_evals.solvers.strategies import Strategy, strategies

_keys = itertools.count()


def _inner_model(
    inner: str, args: Mapping[str, Any], extra: Mapping[str, Any], chat_template: bool
) -> Model:
    """The inner model as an Inspect model (an lm-eval one attached under ``lmeval/``)."""
    if "/" in inner:
        try:
            return get_model(inner, **args)
        except Exception as exc:
            raise LmEvalSetupError(f"inner model {inner!r}: {exc}") from exc
    from lm_eval.api.registry import get_model as lm_eval_model

    try:
        cls = lm_eval_model(inner)
    except ValueError:
        raise LmEvalSetupError(
            f"unknown inner model {inner!r}: neither an Inspect model name (provider/model, "
            "e.g. gguf/qwen2.5-coder-1.5b) nor a model registered with lm-eval (hf, vllm, "
            "local-chat-completions, ...)"
        ) from None
    lm = cls.create_from_arg_obj(dict(args), dict(extra))
    key = f"{inner}-{next(_keys)}"
    return get_model(attach_lm(key, lm, chat_template))


class StrategyLM(LM):  # type: ignore[misc]
    """A longform strategy around an inner model (see the module docstring). Each wrapper is
    a subclass made by :func:`register_wrappers` from the strategies naming it in the
    registry (`solvers/strategies.py`)."""

    wrapper: ClassVar[str] = ""
    """Its lm-eval model name: ``longform-<wrapper>`` of the registry's entries."""

    def __init__(self, inner: str | None = None, **model_args: Any) -> None:
        super().__init__()
        if not inner:
            raise LmEvalSetupError(
                f"{self.wrapper} needs its inner model: --model_args inner=<model>"
            )
        extra = model_args.pop("_additional_config", None) or {}
        chat_template = bool(model_args.pop("chat_template", False))
        self.strategy_map = self._choose_strategies(model_args)
        self.strategy_args = {k: v for k, v in model_args.items() if k in STRATEGY_PARAMETERS}
        inner_args = {k: v for k, v in model_args.items() if k not in STRATEGY_PARAMETERS}
        self.inner_name = inner
        self.model = _inner_model(inner, inner_args, extra, chat_template)

    def _choose_strategies(self, model_args: dict[str, Any]) -> dict[Family, str]:
        """The strategy run for each kind of task: the registry's entries naming this wrapper,
        one per family (a ``wrapper_choice`` key in ``model_args`` picks among several; it is
        taken out of them)."""
        chosen: dict[Family, str] = {}
        for family, entries in _served(self.wrapper).items():
            keys = {e.wrapper_choice[0] for e in entries if e.wrapper_choice}
            for key in sorted(keys):
                if key in model_args:
                    value = str(model_args.pop(key))
                    values = [e.wrapper_choice[1] for e in entries if e.wrapper_choice]
                    if value not in values:
                        raise LmEvalSetupError(
                            f"{self.wrapper}: {key} must be {' or '.join(values)}, got {value!r}"
                        )
                    entries = [e for e in entries if e.wrapper_choice == (key, value)]
            chosen[family] = entries[0].name
        if not chosen:
            raise LmEvalSetupError(f"{self.wrapper} runs no registered strategy")
        return chosen

    @classmethod
    def create_from_arg_string(
        cls, arg_string: str, additional_config: dict[str, Any] | None = None
    ) -> StrategyLM:
        return cls.create_from_arg_obj(simple_parse_args_string(arg_string), additional_config)

    @classmethod
    def create_from_arg_obj(
        cls, arg_dict: dict[str, Any], additional_config: dict[str, Any] | None = None
    ) -> StrategyLM:
        # lm-eval's own settings (batch_size, device, ...) go to an lm-eval inner model only
        extra = {k: v for k, v in (additional_config or {}).items() if v is not None}
        return cls(_additional_config=extra, **arg_dict)

    def strategy_for(self, task: str) -> str | None:
        """The strategy this wrapper runs on ``task`` (None: the task has no generation step,
        the inner model judges), or a clear error."""
        family = task_spec(task).family
        if family == "judge":
            return None
        if family not in self.strategy_map:
            fits = sorted({_LM_NAME + e.wrapper for e in strategies(family) if e.wrapper})
            raise LmEvalSetupError(
                f"{self.wrapper} cannot serve longform_{task}: that task asks for "
                f"{'summaries' if family == 'summary' else 'answers to questions'}; use "
                + " or ".join(fits)
            )
        return self.strategy_map[family]

    def _task_strategy_args(self, task: str) -> dict[str, Any]:
        params = task_spec(task).parameters()
        return {k: v for k, v in self.strategy_args.items() if k in params}

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        """Run the strategy on each request's document; one Inspect eval per task."""
        groups: dict[tuple[str, str, str], list[int]] = {}
        for i, request in enumerate(requests):
            doc = request.doc
            if not isinstance(doc, Mapping) or "sample" not in doc:
                raise LmEvalSetupError(
                    f"{self.wrapper} runs the suite's strategies on longform_* tasks only; "
                    f"{request.task_name!r} is not one of them"
                )
            groups.setdefault((doc["task"], doc["args"], doc["judge"]), []).append(i)
        out = [""] * len(requests)
        for (task, _, judge), indices in groups.items():
            strategy = self.strategy_for(task)
            first = requests[indices[0]].doc
            unique = {str(requests[i].doc["id"]): requests[i].doc for i in indices}
            samples = [doc_sample(doc) for doc in unique.values()]
            results = run_samples(
                task,
                doc_args(first),
                samples,
                self.model,
                # LongFormFact measures the inner model as the judge
                judge if strategy is not None else "",
                strategy=strategy,
                strategy_args=self._task_strategy_args(task) if strategy else None,
            )
            completions = {}
            for doc, outcome in zip(unique.values(), results, strict=True):
                remember(doc, outcome)
                completions[str(doc["id"])] = outcome.completion
            for i in indices:
                out[i] = completions[str(requests[i].doc["id"])]
        return out

    def loglikelihood(
        self, requests: list[Instance], disable_tqdm: bool = False
    ) -> list[tuple[float, bool]]:
        task = requests[0].task_name if requests else "?"
        raise LmEvalSetupError(
            f"{self.wrapper} generates text and gives no log-likelihoods, which {task} asks "
            "for; run the generation variant (longform_quality instead of longform_quality_mc) "
            "or give the inner model to lm-eval directly"
        )

    def loglikelihood_rolling(
        self, requests: list[Instance], disable_tqdm: bool = False
    ) -> list[float]:
        return [value for value, _ in self.loglikelihood(requests, disable_tqdm)]


_LM_NAME = "longform-"


def _served(wrapper: str) -> dict[Family, list[Strategy]]:
    """The registry's entries a wrapper (its lm-eval name) runs, by family."""
    served: dict[Family, list[Strategy]] = {}
    for entry in strategies():
        if entry.wrapper is not None and _LM_NAME + entry.wrapper == wrapper:
            served.setdefault(entry.family, []).append(entry)
    return served


WRAPPERS: dict[str, type[StrategyLM]] = {}
"""The wrapper LMs by their lm-eval model name (:func:`register_wrappers` fills it)."""


def register_wrappers() -> dict[str, type[StrategyLM]]:
    """Make and register with lm-eval a wrapper LM for every wrapper name in the strategy
    registry that has none yet (a strategy registered later gets its own on the next call)."""
    for entry in strategies():
        if entry.wrapper is None or _LM_NAME + entry.wrapper in WRAPPERS:
            continue
        name = _LM_NAME + entry.wrapper
        served = ", ".join(f"{e.name} ({e.family})" for es in _served(name).values() for e in es)
        cls = type(
            f"{entry.wrapper.title().replace('_', '')}LM",
            (StrategyLM,),
            {"wrapper": name, "__doc__": f"The strategies {served} around an inner model."},
        )
        register_model(name)(cls)
        WRAPPERS[name] = cls
    return WRAPPERS


register_wrappers()
