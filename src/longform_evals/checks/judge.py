# inspect-evals-lint: ignore-file[IEBP001] -- `longform check` opens its judge outside any eval
"""The judge the judged checks call: a replay of the shipped recording by default, a real model
with `--live`, or a real model recorded into a replay file with `--record`.

The checks of LLM-judged metrics call the shipped scorers with this judge bound to the `grader`
role, exactly as `inspect eval --model-role grader=...` would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from inspect_ai.model import GenerateConfig, Model, get_model

from longform_evals.inspect_private import init_model_roles
from longform_evals.judges.calibration_files import calibration_name
from longform_evals.models.replay import stands_for

RECORDED_JUDGE = "gguf/qwen2.5-coder-1.5b"
"""The model whose answers the package's recording holds."""

T = TypeVar("T")


@dataclass(frozen=True)
class JudgeChoice:
    """Which judge the judged checks use.

    Attributes:
        live: A real judge model (`gguf/qwen2.5-coder-1.5b`, `openai/gpt-4o`): every call is
            asked of it. None: replay `recording` (default: the packaged recording of
            :data:`RECORDED_JUDGE`).
        record: With `live`, also append every call the recording lacks to `recording`.
        recording: The replay file; None for the packaged one.
        model_args: The live model's arguments (`-M`, or `model_args` of a specification),
            as sorted (name, JSON value) pairs.
        config: Its generate settings (`temperature`, `max_connections`, ...), likewise.
    """

    live: str | None = None
    record: bool = False
    recording: str | None = None
    model_args: tuple[tuple[str, str], ...] = ()
    config: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.record and self.live is None:
            raise ValueError("recording needs the real model to record (--record MODEL)")
        if (self.model_args or self.config) and self.live is None:
            raise ValueError("model arguments need a live model (--live MODEL)")

    @property
    def label(self) -> str:
        if self.live is None:
            return f"replay/{calibration_name(RECORDED_JUDGE)}"
        return f"{self.live} (recording)" if self.record else self.live


_CHOICE = JudgeChoice()


@contextmanager
def using_judge(choice: JudgeChoice) -> Iterator[None]:
    """Run the checks inside the block with `choice` as their judge."""
    global _CHOICE
    previous, _CHOICE = _CHOICE, choice
    try:
        yield
    finally:
        _CHOICE = previous


def current_judge() -> JudgeChoice:
    return _CHOICE


@cache
def _model(choice: JudgeChoice) -> Model:
    args: dict[str, Any] = {}
    if choice.recording is not None:
        args["path"] = choice.recording
    if choice.live is None:
        return get_model(f"replay/{calibration_name(RECORDED_JUDGE)}", **args)
    model_args = {k: json.loads(v) for k, v in choice.model_args}
    config = GenerateConfig(**{k: json.loads(v) for k, v in choice.config})
    if not choice.record:
        return get_model(choice.live, config=config, **model_args)
    if model_args:
        args["record_args"] = model_args
    name = f"replay/{calibration_name(choice.live)}"
    return get_model(name, config=config, record=choice.live, **args)


def judge_choice(
    live: str | None,
    model_args: Sequence[str] = (),
    record: bool = False,
    recording: str | None = None,
) -> JudgeChoice:
    """The judge `--live` / `--record` names, in the forms Inspect's `--model-role` takes: a
    model name, or a YAML/JSON mapping (inline, or a .yaml/.yml/.json file) with `model`,
    optional `model_args` and generate settings at the top level; `-M name=value` arguments
    (values read as YAML, as Inspect reads them) add to `model_args`.

    Raises:
        ValueError: A specification that is not a mapping with a model name, a setting Inspect
            does not know, or an `-M` argument that is not `name=value`.
    """
    spec: Any = live
    if live is not None and live.strip().startswith("{"):
        spec = _yaml(live, "the --live specification")
    elif live is not None and live.endswith((".yaml", ".yml", ".json")):
        path = Path(live)
        if not path.is_file():
            raise ValueError(f"{live}: no such model specification file")
        spec = _yaml(path.read_text(encoding="utf-8"), live)
    args: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    if isinstance(spec, dict):
        spec = dict(spec)
        name, args = spec.pop("model", None), spec.pop("model_args", None) or {}
        if not isinstance(name, str) or not name or not isinstance(args, dict):
            raise ValueError(
                "a model specification needs `model` (a name) and optional `model_args` "
                f"(a mapping); got {live}"
            )
        unknown = sorted(set(spec) - set(GenerateConfig.model_fields))
        if unknown:
            raise ValueError(f"unknown generate setting(s) {', '.join(unknown)} in {live}")
        settings, spec = spec, name
    elif spec is not None and not isinstance(spec, str):
        raise ValueError(f"--live takes a model name or a mapping, not {live}")
    for item in model_args:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"-M {item}: expected name=value")
        args[key.strip()] = _yaml(value, f"-M {item}") if value else ""
    if args and spec is None:
        raise ValueError("-M arguments need a live model (--live MODEL)")

    def pairs(values: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        return tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in values.items()))

    return JudgeChoice(spec, record, recording, pairs(args), pairs(settings))


def _yaml(text: str, what: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError(f"{what} is not valid YAML or JSON: {e}") from e


def judge_model() -> Model:
    """The judge the current choice names (built once per choice)."""
    return _model(_CHOICE)


def judge_name() -> str:
    """The model the judge's answers come from (the recorded model for a replay)."""
    return stands_for(judge_model())


def with_judge(work: Callable[[], Awaitable[T]]) -> T:
    """Run `work()` to completion with the judge bound to the `grader` role."""

    async def bound() -> T:
        init_model_roles({"grader": judge_model()})
        return await work()

    return asyncio.run(bound())
