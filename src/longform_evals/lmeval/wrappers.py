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
    """A longform strategy around an inner model (see the module docstring)."""

    strategies: ClassVar[Mapping[Family, str]] = {}
    """The strategy run for each kind of task; a kind it lacks is refused."""
    wrapper: ClassVar[str] = ""

    def __init__(self, inner: str | None = None, **model_args: Any) -> None:
        super().__init__()
        if not inner:
            raise LmEvalSetupError(
                f"{self.wrapper} needs its inner model: --model_args inner=<model>"
            )
        self.strategy_map: dict[Family, str] = dict(self.strategies)
        extra = model_args.pop("_additional_config", None) or {}
        chat_template = bool(model_args.pop("chat_template", False))
        self.strategy_args = {k: v for k, v in model_args.items() if k in STRATEGY_PARAMETERS}
        inner_args = {k: v for k, v in model_args.items() if k not in STRATEGY_PARAMETERS}
        self.strategy_args.update(self._own_arguments(inner_args))
        self.inner_name = inner
        self.model = _inner_model(inner, inner_args, extra, chat_template)

    def _own_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """Take this wrapper's own arguments out of ``args`` (none by default)."""
        return {}

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
            fits = [name for name, cls in WRAPPERS.items() if family in cls.strategies]
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


class HierarchicalLM(StrategyLM):
    """Hierarchical merging (BooookScore): chunk summaries merged level by level."""

    wrapper = "longform-hierarchical"
    strategies: ClassVar[Mapping[Family, str]] = {"summary": "hierarchical"}


class IncrementalLM(StrategyLM):
    """Incremental updating (BooookScore): one summary updated chunk by chunk."""

    wrapper = "longform-incremental"
    strategies: ClassVar[Mapping[Family, str]] = {"summary": "incremental"}


class NexusSumLM(StrategyLM):
    """NexusSum: preprocess, summarize, compress."""

    wrapper = "longform-nexussum"
    strategies: ClassVar[Mapping[Family, str]] = {"summary": "nexus_sum"}


class ReadAgentLM(StrategyLM):
    """ReadAgent: gist memory, then look up pages (``lookup=parallel`` by default, or
    ``sequential``)."""

    wrapper = "longform-readagent"
    strategies: ClassVar[Mapping[Family, str]] = {"reading": "read_agent_p"}

    def _own_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        lookup = str(args.pop("lookup", "parallel"))
        choices = {"parallel": "read_agent_p", "sequential": "read_agent_s"}
        if lookup not in choices:
            raise LmEvalSetupError(
                f"{self.wrapper}: lookup must be parallel or sequential, got {lookup!r}"
            )
        self.strategy_map = {"reading": choices[lookup]}
        return {}


class TruncateLM(StrategyLM):
    """The truncation baselines: the document's start that fits (``words`` of it when reading;
    the summarizer's context window when summarizing)."""

    wrapper = "longform-truncate"
    strategies: ClassVar[Mapping[Family, str]] = {"reading": "truncate_first", "summary": "full"}


WRAPPERS: dict[str, type[StrategyLM]] = {
    cls.wrapper: cls for cls in (HierarchicalLM, IncrementalLM, NexusSumLM, ReadAgentLM, TruncateLM)
}
"""The wrapper LMs by their lm-eval model name."""

for _name, _cls in WRAPPERS.items():
    register_model(_name)(_cls)
