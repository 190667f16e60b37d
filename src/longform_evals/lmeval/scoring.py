# inspect-evals-lint: ignore-file[IEBP001] -- lm-eval drives these runs: no solver is around
"""Inspect runs behind the lm-eval tasks: the strategy on the documents' samples, and the
task's own scorers on a completion.

Every value lm-eval reports for a document is a value of the Inspect task's scorers on the
same sample, taken from an Inspect log (``LONGFORM_LMEVAL_LOG_DIR``, default ``logs/lm-eval``),
so judgements, retries and parse failures are in that log. A strategy wrapper runs solver and
scorers in one eval, as ``inspect eval`` does (the scorers that read the strategy's trace see
it); a plain lm-eval model's completions are scored in one eval per task after generation
(the ``prescore`` filter). Results are kept per (task, arguments, sample, completion), so
``process_results`` reads them instead of judging again.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import ChatMessageAssistant, Model, ModelOutput, get_model
from inspect_ai.scorer import Score, value_to_float
from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.lmeval.catalogue import LmEvalSetupError, task_spec
from longform_evals.lmeval.docs import build_task, doc_args, doc_sample

LOG_DIR_ENV = "LONGFORM_LMEVAL_LOG_DIR"
"""Environment variable naming the folder of the Inspect logs of lm-eval runs."""

PLAIN_MODEL_SKIPPED = ("reading_stats", "limited")
"""Scorers left out when a plain lm-eval model answered: they report a strategy's trace and
sample limits, which a single lm-eval call does not have."""

USAGE_KEYS = ("inner_calls", "inner_tokens", "judge_calls", "judge_tokens")
"""Per-document model usage read from the log (lm-eval itself counts neither)."""


class LmEvalRunError(RuntimeError):
    """An Inspect run behind an lm-eval task failed; the message names its log."""


@dataclass(frozen=True)
class Outcome:
    """What the Inspect run gave one sample."""

    completion: str
    values: dict[str, float]
    """Every number of its scores and its model usage (see :func:`score_values`)."""
    scores: dict[str, Score]
    """Its scores as Inspect recorded them (metrics over samples are computed from these)."""


@dataclass
class _Results:
    outcomes: dict[tuple[str, str, str], Outcome] = field(default_factory=dict)


_RESULTS = _Results()


def _task_key(doc: Mapping[str, Any]) -> str:
    return f"{doc['task']}|{doc['args']}|{doc['judge']}"


def log_dir() -> str:
    """Where the Inspect logs of lm-eval runs go."""
    return os.environ.get(LOG_DIR_ENV) or os.path.join("logs", "lm-eval")


def judge_model(judge: str) -> str | Model:
    """The judge named by a document: an Inspect model name, or a JSON object with ``model``
    and optional ``model_args`` (how a scripted or configured judge is given).

    Raises:
        LmEvalSetupError: For an object without a model name, or a model Inspect cannot make.
    """
    if not judge.startswith("{"):
        return judge
    spec = json.loads(judge)
    name, args = spec.get("model"), spec.get("model_args") or {}
    if not isinstance(name, str) or not isinstance(args, dict):
        raise LmEvalSetupError(f"judge {judge}: needs `model` (a name) and optional `model_args`")
    try:
        return get_model(name, memoize=False, **args)
    except Exception as exc:
        raise LmEvalSetupError(f"judge {name}: {exc}") from exc


def _float(value: Any) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool | int | float):
        return float(value)
    return float(value_to_float()(value))


def score_values(sample: EvalSample) -> dict[str, float]:
    """Every number of the sample's scores, under its key (the scorer's name for a scalar); a
    key more than one scorer gives is prefixed with each scorer's name (``rouge_scored``)."""
    items = [
        (scorer_name, key, value)
        for scorer_name, score in (sample.scores or {}).items()
        for key, value in (
            score.value.items() if isinstance(score.value, dict) else [(scorer_name, score.value)]
        )
    ]
    shared = Counter(key for _, key, _ in items)
    return {
        (f"{scorer_name}_{key}" if shared[key] > 1 else key): _float(value)
        for scorer_name, key, value in items
    }


def usage_values(sample: EvalSample) -> dict[str, float]:
    """Calls and tokens of the evaluated model (``inner``) and of model roles (``judge``)."""
    counts = dict.fromkeys(USAGE_KEYS, 0.0)
    for event in sample.events:
        if not isinstance(event, ModelEvent):
            continue
        who = "inner" if event.role is None else "judge"
        counts[f"{who}_calls"] += 1
        usage = event.output.usage
        if usage is not None:
            counts[f"{who}_tokens"] += usage.input_tokens + usage.output_tokens
    return counts


@solver
def given_completion(completions: Mapping[str, str]) -> Solver:
    """Answer each sample with the completion an lm-eval model gave for it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        text = completions[str(state.sample_id)]
        state.output = ModelOutput.from_content("lm-eval", text)
        state.messages.append(ChatMessageAssistant(content=text, model="lm-eval"))
        return state

    return solve


def run_samples(
    task: str,
    args: Mapping[str, Any],
    samples: Sequence[Sample],
    model: str | Model,
    judge: str,
    *,
    solver_: Solver | None = None,
    strategy: str | None = None,
    strategy_args: Mapping[str, Any] | None = None,
) -> list[Outcome]:
    """Run the Inspect task on ``samples`` (its own solver with ``strategy``, or
    ``solver_``) and return each sample's completion and values, in order.

    Raises:
        LmEvalRunError: When the eval or a sample fails (naming the log).
    """
    task_args = dict(args)
    if strategy is not None:
        task_args["strategy"] = strategy
    task_args.update(strategy_args or {})
    built = build_task(task, task_args)
    scorers = built.scorer
    if solver_ is not None:
        scorers = [s for s in scorers or [] if _scorer_name(s) not in PLAIN_MODEL_SKIPPED]
    job = task_with(
        copy.copy(built),
        dataset=MemoryDataset(list(samples), name=built.dataset.name),
        solver=solver_ if solver_ is not None else built.solver,
        scorer=scorers,
    )
    roles = {"grader": judge_model(judge)} if judge else None
    [log] = inspect_eval(
        job, model=model, model_roles=roles, log_dir=log_dir(), display="none", score=True
    )
    where = log.location
    if log.status != "success" or log.samples is None:
        message = log.error.message if log.error else log.status
        raise LmEvalRunError(f"longform_{task}: the Inspect run failed: {message} (log: {where})")
    by_id = {str(s.id): s for s in log.samples}
    out = []
    for sample in samples:
        done = by_id.get(str(sample.id))
        if done is None or done.error is not None:
            why = done.error.message if done is not None and done.error else "no result"
            raise LmEvalRunError(f"longform_{task}: sample {sample.id}: {why} (log: {where})")
        usage = usage_values(done)
        if solver_ is not None:
            usage = {k: v for k, v in usage.items() if k.startswith("judge")}
        # a scorer's own value of the same name (BooookScore's judge_calls) is the one Inspect
        # reports, so it wins over the count read from the events
        values = {**usage, **score_values(done)}
        out.append(Outcome(done.output.completion, values, dict(done.scores or {})))
    return out


def _scorer_name(scorer: Any) -> str:
    from longform_evals.inspect_private import registry_unqualified_name

    return str(registry_unqualified_name(scorer))


def remember(doc: Mapping[str, Any], outcome: Outcome) -> None:
    """Keep a document's outcome for ``process_results``."""
    _RESULTS.outcomes[(_task_key(doc), str(doc["id"]), outcome.completion)] = outcome


def recalled(doc: Mapping[str, Any], completion: str) -> Outcome | None:
    """The outcome kept for this document and completion, if any."""
    return _RESULTS.outcomes.get((_task_key(doc), str(doc["id"]), completion))


def score_completions(docs: Sequence[Mapping[str, Any]], completions: Sequence[str]) -> None:
    """Score completions of a plain lm-eval model with the task's scorers, one Inspect run
    per task, and keep the outcomes (those already kept are not scored again; judge tasks
    are left to the hooks, which read the model's verdict).

    Raises:
        LmEvalSetupError: When a judged task has no judge.
    """
    groups: dict[str, list[tuple[Mapping[str, Any], str]]] = {}
    for doc, completion in zip(docs, completions, strict=True):
        # a plain model's answer on LongFormFact is its own verdict, read by the task hooks
        if task_spec(str(doc["task"])).family == "judge":
            continue
        if recalled(doc, completion) is None:
            groups.setdefault(_task_key(doc), []).append((doc, completion))
    for pairs in groups.values():
        first = pairs[0][0]
        task, args, judge = str(first["task"]), doc_args(first), str(first["judge"])
        if task_spec(task).judged(args) and not judge:
            raise LmEvalSetupError(
                f"longform_{task} is scored by an LLM judge: name one with "
                '--metadata \'{"judge": "<inspect model>"}\' or the LONGFORM_JUDGE variable'
            )
        samples = [doc_sample(doc) for doc, _ in pairs]
        answers = {str(s.id): completion for s, (_, completion) in zip(samples, pairs, strict=True)}
        model = judge_model(judge) if judge else "none"
        results = run_samples(task, args, samples, model, judge, solver_=given_completion(answers))
        for (doc, _), outcome in zip(pairs, results, strict=True):
            remember(doc, outcome)
