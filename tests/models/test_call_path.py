"""The one call path (models/calls.py): the cache key, the step tally and the progress board of
every model call, log-probability refusals turned into one error, and no call site of a
strategy or judge outside it."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from longform_evals.models import announce, calls, step_usage
from longform_evals.models.calls import CacheChoice, generate
from longform_evals.models.identity import cache_policy
from longform_evals.models.logprobs import LogprobsRefusedError
from longform_evals.models.step_usage import register_step_kind
from longform_evals.progress import ProgressBoard

SRC = Path(__file__).resolve().parents[2] / "src" / "longform_evals"
LOGPROBS = GenerateConfig(logprobs=True, top_logprobs=5, max_tokens=1)
PLAIN = GenerateConfig(max_tokens=1)
STEP = "call_path_test"
RECORDING = "solvers/common/recording.py"

CALL_PATH_ONLY = {
    r"\brecord_step_usage\(": {"models/calls.py", "models/step_usage.py"},
    r"\bcache_policy\(": {"models/calls.py", "models/identity.py"},
}
"""What only the call path writes, and the files allowed to write it."""
SUMMARY_RUN_GENERATE = {"run", "self.run"}
"""Receivers of `.generate(` outside models/ that are a :class:`SummaryRun` (its checked
generation, which calls the model through the call path), not a model."""


@pytest.fixture(autouse=True)
def _registry_and_announcements(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(step_usage, "_KINDS", dict(step_usage._KINDS))
    monkeypatch.setattr(announce, "_ANNOUNCED", set())
    register_step_kind(STEP, "calls made by this test")


class _Fake:
    """A model that records its calls' keyword arguments and answers "Yes"."""

    def __init__(self, name: str = "someapi/model") -> None:
        self.name = name
        self.calls: list[dict[str, Any]] = []

    def __str__(self) -> str:
        return self.name

    async def generate(self, input: Any, **kwargs: Any) -> ModelOutput:
        self.calls.append(kwargs)
        return ModelOutput.from_content(self.name, "Yes")


class _Refusing(_Fake):
    """A model whose provider refuses log-probabilities, as OpenAI's Responses API on a
    llama.cpp server does (HTTP 400)."""

    async def generate(self, input: Any, **kwargs: Any) -> ModelOutput:
        raise RuntimeError(
            '{"model": "x", "top_logprobs": 10}\n'
            "BadRequestError('Error code: 400 - top_logprobs requires logprobs to be set')"
        )


def _call(model: Any, config: GenerateConfig = LOGPROBS, **kwargs: Any) -> ModelOutput:
    options: dict[str, Any] = {"step": STEP, "cache": False, **kwargs}
    return asyncio.run(generate(model, "Is it? Answer yes or no.", config, **options))


def _generate_calls(name: str, text: str) -> list[str]:
    """`X.generate(` calls outside models/ whose receiver is not a SummaryRun."""
    if name.startswith("models/"):
        return []
    calls = re.finditer(r"([\w.()]+)\.generate\(", text)
    allowed = {*SUMMARY_RUN_GENERATE, *({"self"} if name == RECORDING else set())}
    return [f"{name}: {m.group(0)}" for m in calls if m.group(1) not in allowed]


def test_only_the_call_path_calls_models_and_tallies_steps() -> None:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        text = path.read_text(encoding="utf-8")
        found += _generate_calls(name, text)
        for pattern, allowed in CALL_PATH_ONLY.items():
            for match in re.finditer(pattern, text):
                line = text.count("\n", 0, match.start()) + 1
                if name not in allowed:
                    found.append(f"{name}:{line}: {match.group(0)}")
    assert not found, "call models through longform_evals.models.calls.generate:\n" + "\n".join(
        found
    )


def test_the_cache_key_is_the_one_each_site_built() -> None:
    model = get_model("scripted/keys", default_response="a", memoize=False)
    choice = CacheChoice(True, {"sample": "s1", "attempt": "2"})
    assert choice.policy(model) == cache_policy(model, True, sample="s1", attempt="2")
    assert CacheChoice(True).policy(model) == cache_policy(model, True)
    assert CacheChoice(False, {"sample": "s1"}).policy(model) is False

    fake = _Fake()
    _call(fake, PLAIN, cache=False)
    assert fake.calls == [{"config": PLAIN, "cache": False}]


def test_a_call_is_tallied_and_advances_its_phase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = ProgressBoard()
    monkeypatch.setattr("longform_evals.models.calls.BOARD", board)

    @solver
    def two_calls() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            model = get_model()
            await calls.generate(model, "a", PLAIN, step=STEP, cache=True, progress="testing")
            await calls.generate(model, "b", PLAIN, step=STEP, cache=False)
            return state

        return solve

    task = Task(dataset=MemoryDataset([Sample(id="s", input="x")]), solver=two_calls())
    model = get_model("scripted/tally", default_response="ok", memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.samples is not None, log.error
    assert step_usage.step_usage(log.samples[0])[STEP]["calls"] == 2
    assert board.line() == "testing 1 call"


def test_an_unregistered_step_is_refused_before_the_call() -> None:
    fake = _Fake()
    with pytest.raises(ValueError, match="unknown step kind 'nonesuch'"):
        _call(fake, step="nonesuch")
    assert fake.calls == []


def test_a_refusal_stops_with_the_fix_for_the_openai_provider() -> None:
    with pytest.raises(LogprobsRefusedError) as caught:
        _call(_Refusing("openai/qwen2.5-coder-1.5b"))
    message = str(caught.value)
    assert "openai-api/<service>/<model>" in message and "<SERVICE>_BASE_URL" in message
    # Not recommended: for a name Inspect does not know it drops the judge's temperature.
    assert "responses_api" not in message
    assert "top_logprobs requires logprobs" in message
    assert '"model"' not in message  # the request dump of the provider's error is left out


def test_a_refusal_by_another_provider_names_the_word_reading_modes() -> None:
    with pytest.raises(LogprobsRefusedError, match="judge_mode=sentence"):
        _call(_Refusing("someapi/model"))


def test_a_call_without_logprobs_passes_a_logprob_error_through() -> None:
    with pytest.raises(RuntimeError, match="top_logprobs requires logprobs") as caught:
        _call(_Refusing("someapi/model"), PLAIN)
    assert not isinstance(caught.value, LogprobsRefusedError)


def test_other_errors_pass_through_unchanged() -> None:
    class Failing(_Fake):
        async def generate(self, input: Any, **kwargs: Any) -> ModelOutput:
            raise ConnectionError("server went away")

    with pytest.raises(ConnectionError, match="server went away"):
        _call(Failing("openai-api/x/y"))


def test_missing_log_probabilities_are_announced_once(caplog: pytest.LogCaptureFixture) -> None:
    model = _Fake("someapi/model")
    with caplog.at_level(logging.WARNING, logger=announce.__name__):
        _call(model)
        _call(model)
        _call(model, PLAIN)  # not asked for: nothing to say
    warnings = [r for r in caplog.records if "no log-probabilities" in r.getMessage()]
    assert len(warnings) == 1
