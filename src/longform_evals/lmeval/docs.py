"""lm-eval documents made from the Inspect task's own samples.

Each document carries the Inspect sample it came from (as JSON), the task's arguments and the
judge, so a wrapper can run the strategy on exactly that sample and the scorers can score it;
``prompt`` is the one-call prompt a plain lm-eval model answers (the reading strategies' answer
template, or the full-context summary template, with the whole document).

Task arguments come from lm-eval's ``--metadata`` JSON: a key of the task's own object
(``{"qmsum": {"data": "..."}}``) or a top-level key any task takes (``{"data": "..."}``, used
by every task that has the parameter); ``judge`` names the Inspect model that judges
(else the ``LONGFORM_JUDGE`` environment variable).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import Sample

from longform_evals.lmeval.catalogue import STRATEGY_PARAMETERS, LmEvalSetupError, task_spec
from longform_evals.prompts.loader import load_prompt
from longform_evals.solvers.reading.run import answer_prompt
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.full_context import one_call_prompt
from longform_evals.tasks.card import TaskCard

JUDGE_ENV = "LONGFORM_JUDGE"
"""Environment variable naming the judge when the task metadata does not."""

_RESERVED = ("version", "judge")
"""Metadata keys that are not task arguments."""


def task_arguments(task: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The Inspect task's arguments from lm-eval metadata (see the module docstring)."""
    spec = task_spec(task)
    params = spec.parameters()
    args: dict[str, Any] = {}
    for key, value in metadata.items():
        # lm-eval adds the model's arguments to the metadata: a top-level key that is no
        # data or scoring parameter of this task is left alone.
        name = spec.data_parameter if key == "data" else key
        if key in _RESERVED or name in STRATEGY_PARAMETERS or name not in params:
            continue
        args[name] = value
    own = metadata.get(task) or {}
    if not isinstance(own, Mapping):
        raise LmEvalSetupError(f"longform_{task}: metadata {task!r} must be an object of arguments")
    for key, value in own.items():
        args[spec.data_parameter if key == "data" else key] = value
    unknown = sorted(set(args) - set(params))
    if unknown:
        raise LmEvalSetupError(
            f"longform_{task}: no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters are: {', '.join(params)}"
        )
    if "strategy" in args:
        raise LmEvalSetupError(
            f"longform_{task}: the strategy is chosen by the model (--model longform-readagent, "
            "longform-hierarchical, ...), not by task metadata"
        )
    _check_data(task, spec, args)
    return args


def _check_data(task: str, spec: TaskCard, args: Mapping[str, Any]) -> None:
    where = args.get(spec.data_parameter)
    hint = f'--metadata \'{{"{task}": {{"data": "<path>"}}}}\''
    if where is None:
        if spec.data_required:
            raise LmEvalSetupError(
                f"longform_{task} needs its data: no published copy is read for it; give the "
                f"file or folder with {hint}"
            )
        return
    if not Path(str(where)).exists():
        raise LmEvalSetupError(
            f"longform_{task}: data {str(where)!r} does not exist (set with {hint})"
        )


def judge_name(metadata: Mapping[str, Any]) -> str:
    """The judge as text: an Inspect model name, or the JSON of an object with ``model`` and
    ``model_args``; '' when neither metadata nor environment names one."""
    judge = metadata.get("judge") or os.environ.get(JUDGE_ENV) or ""
    if isinstance(judge, Mapping):
        return json.dumps(dict(judge), sort_keys=True)
    return str(judge).strip()


def _key(task: str, args: Mapping[str, Any]) -> str:
    return json.dumps([task, dict(args)], sort_keys=True, default=str)


@functools.cache
def _built(key: str) -> Task:
    task, args = json.loads(key)
    return task_spec(task).factory(**args)


def build_task(task: str, args: Mapping[str, Any]) -> Task:
    """The Inspect task with these arguments, built once per process (its data loaded once)."""
    return _built(_key(task, args))


def _default(spec: TaskCard, name: str) -> Any:
    return inspect.signature(spec.factory).parameters[name].default


def _focused(spec: TaskCard, args: Mapping[str, Any]) -> bool:
    """A task with a `focus` parameter (SQuALITY) asks its question in the prompt."""
    return "focus" in spec.parameters() and bool(args.get("focus", _default(spec, "focus")))


def _summary_settings(spec: TaskCard, args: Mapping[str, Any]) -> SummarySettings:
    """The summary length and templates the task gives its strategy."""
    settings = SummarySettings(
        prompts_dir=args.get("prompts_dir"),
        question_key="question" if _focused(spec, args) else None,
    )
    if "target_words" in spec.parameters():
        words = int(args.get("target_words", _default(spec, "target_words")))
        return replace(settings, target_words=words)
    tokens = int(args.get("max_summary_tokens", _default(spec, "max_summary_tokens")))
    return replace(settings, max_summary_tokens=tokens)


def plain_prompt(task: str, args: Mapping[str, Any], sample: Sample) -> str:
    """The prompt a plain lm-eval model answers in one call."""
    spec = task_spec(task)
    meta = sample.metadata or {}
    prompts_dir = args.get("prompts_dir")
    if spec.family == "reading":
        # what every reading strategy asks, here on the whole document
        choices = [str(c) for c in sample.choices or []]
        return answer_prompt(meta["question"], choices, meta["document"], prompts_dir)
    if spec.family == "summary":
        question = meta.get("question") if _focused(spec, args) else None
        document = str(meta.get("document") or sample.input)
        return one_call_prompt(_summary_settings(spec, args), document, question)
    documents = "\n\n".join(str(d) for d in meta.get("documents") or [])
    return load_prompt("lmeval", "judge_summary").render(
        documents=documents, summary=meta.get("summary", "")
    )


def _gold(sample: Sample) -> int:
    target = sample.target if isinstance(sample.target, str) else ""
    return ord(target) - ord("A") if len(target) == 1 and target.isupper() else -1


def make_doc(task: str, args: Mapping[str, Any], judge: str, sample: Sample) -> dict[str, Any]:
    """The lm-eval document of one Inspect sample."""
    prompt = plain_prompt(task, args, sample)
    choices = list(sample.choices or [])
    return {
        "task": task,
        "args": json.dumps(dict(args), sort_keys=True, default=str),
        "judge": judge,
        "id": str(sample.id),
        "sample": sample.model_dump_json(),
        "target": " | ".join(sample.target) if isinstance(sample.target, list) else sample.target,
        "prompt": prompt,
        "mc_prompt": prompt + "\n\nAnswer:" if choices else "",
        "choices": [f"({chr(ord('A') + i)})" for i in range(len(choices))],
        "gold": _gold(sample),
    }


def doc_sample(doc: Mapping[str, Any]) -> Sample:
    """The Inspect sample a document carries."""
    return Sample.model_validate_json(doc["sample"])


def doc_args(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The task arguments a document carries."""
    args: dict[str, Any] = json.loads(doc["args"])
    return args


def load_docs(task: str, **metadata: Any) -> dict[str, Any]:
    """lm-eval's ``custom_dataset``: the ``test`` split of the task's documents.

    Raises:
        LmEvalSetupError: For metadata no task takes, a strategy in the metadata, or data that
            is required and missing or named but absent.
    """
    import datasets

    args = task_arguments(task, metadata)
    judge = judge_name(metadata)
    built = build_task(task, args)
    docs = [make_doc(task, args, judge, sample) for sample in built.dataset]
    if not docs:
        raise LmEvalSetupError(f"longform_{task}: the data has no samples ({args})")
    return {"test": datasets.Dataset.from_list(docs)}
