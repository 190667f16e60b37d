"""The private Inspect API the package relies on (`longform_evals.inspect_private`): these
tests fail on an Inspect release that moves or changes it, before a user's run does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from longform_evals import inspect_private
from longform_evals.data.jsonl import DataError
from longform_evals.inspect_private import PrerequisiteError, readable_error


@pytest.fixture(autouse=True)
def display_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    """As under `inspect eval` with its default display (other tests may leave `none` set)."""
    monkeypatch.setattr(inspect_private, "_display_silenced", lambda: False)


def test_inspects_exception_hook_prints_a_readable_error_without_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import rich
    from inspect_ai._util.error import exception_hook  # the hook `inspect eval` installs

    # the hook prints through rich's global console, which an earlier eval in this process
    # may have silenced: start a fresh one, as a fresh `inspect eval` process has
    monkeypatch.setattr(rich, "_console", None)

    error = readable_error(ValueError("raw"), "task 'x': -T k=1: what was wrong")
    try:
        raise error
    except ValueError as caught:
        exception_hook()(type(caught), caught, caught.__traceback__)  # type: ignore[arg-type]
    out = capsys.readouterr()
    assert "task 'x': -T k=1: what was wrong" in out.out
    assert "Traceback" not in out.out + out.err


def test_readable_error_keeps_the_class_arguments_and_attributes() -> None:
    original = DataError("data.jsonl line 3: not JSON")
    original.path = "data.jsonl"  # type: ignore[attr-defined]
    error = readable_error(original, "task 'quality': data.jsonl line 3: not JSON")
    assert isinstance(error, DataError) and isinstance(error, ValueError)
    assert isinstance(error, PrerequisiteError)
    assert error.args == original.args and str(error) == str(original)
    assert error.path == "data.jsonl"  # type: ignore[attr-defined]
    assert type(error).__name__ == "DataError"
    # one subclass per class: every readable DataError is of the same type
    again = readable_error(DataError("x"), "x")
    assert type(again) is type(error)
    assert sys.modules[type(error).__module__] is sys.modules[DataError.__module__]


def test_with_the_display_silenced_the_error_keeps_its_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Inspect's hook prints nothing under `--display none`: the plain error (traceback and
    # message) is better than silence
    monkeypatch.setattr(inspect_private, "_display_silenced", lambda: True)
    original = ValueError("bad value")
    assert readable_error(original, "task 'x': bad value") is original
    assert not isinstance(original, PrerequisiteError)


def test_model_calls_kept_keeps_every_request_record() -> None:
    import asyncio

    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript
    from inspect_ai.model import get_model

    import longform_evals.models.providers  # noqa: F401  (registers the scripted model)

    async def calls(name: str, kept: bool) -> list[bool | None]:
        model = get_model(f"scripted/{name}", default_response="ok", memoize=False)
        for i in range(8):
            if kept and i >= 4:
                with inspect_private.model_calls_kept():
                    await model.generate("hello")
            else:
                await model.generate("hello")
        events = [e for e in transcript().events if isinstance(e, ModelEvent)]
        kept_calls = [e.call is not None for e in events if e.model == f"scripted/{name}"]
        return [*kept_calls, transcript()._log_model_api]  # the setting, restored

    # Inspect keeps the request of the first 5 calls per model and transcript ...
    assert asyncio.run(calls("kept_default", kept=False)) == [True] * 5 + [False] * 3 + [None]
    # ... and, inside the context, every one.
    assert asyncio.run(calls("kept_inside", kept=True)) == [True] * 8 + [None]


def test_active_run_names_the_log_of_the_running_sample(tmp_path: Path) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import Generate, TaskState, solver

    from longform_evals.inspect_private import active_run

    seen: list[str] = []

    @solver
    def note_run() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            seen.append(active_run())
            return state

        return solve

    task = Task(dataset=[Sample(input="a"), Sample(input="b")], solver=note_run())
    [log] = eval(task, model="scripted/x", log_dir=str(tmp_path), display="none")
    assert active_run() == ""  # outside a sample
    assert len(seen) == 2 and len(set(seen)) == 1 and seen[0].endswith(".eval")
    assert Path(seen[0]).name == Path(log.location).name
