"""Every task runs end to end with Inspect's standard `mockllm/model`.

The suite's own tests mostly use the `scripted/` provider, whose rules answer each prompt
usefully. Users, and Inspect's own tooling, try a task first with `mockllm/model`, which answers
every prompt with the same default text. Each task here runs on small bundled data (its snapshot
fixture where it has a card) and must finish with every scorer's value in every sample. Where a
judge reads the mock's text, its answer is unreadable: the test checks the scorer says so (a
parse-failure rate, a missing rate, an unparsed count, an unjudged unit) and gives no number
where it has none to give.

`mockllm/model` counts its usage with tiktoken's `o200k_base`, which tiktoken downloads; the
fixture below writes that file from quicktok's copy, so no test touches the network.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from helpers import BOOKS, task_functions, write_o200k_cache
from longform_evals import _registry
from longform_evals.tasks.cards import TASK_CARDS

REPO = Path(__file__).resolve().parents[2]
TASK_NAMES = sorted(name for path in (REPO / "tasks").glob("*.py") for name in task_functions(path))
MOCK = "mockllm/model"
NAN = "nan"


@dataclass(frozen=True)
class Case:
    """How one task runs on the mock, and what its scores must show.

    Attributes:
        args: the task arguments, given a scratch folder.
        limit: the first N samples (None: all).
        sample_id: the one sample to run instead of `limit`.
        needs: modules the task imports (optional extras); without them it is skipped.
        expect: scorer -> value key -> what every sample's value must be (`NAN`: not a
            number, the judge's answer being unreadable; key `""`: a scorer whose value is
            not a mapping).
    """

    args: Callable[[Path], dict[str, Any]]
    limit: int | None = 1
    sample_id: str | None = None
    needs: tuple[str, ...] = ()
    expect: dict[str, dict[str, float | str]] = field(default_factory=dict)


def _from_card(name: str, extra: dict[str, Any] | None = None, **expect: Any) -> Case:
    """A carded task on its snapshot fixture (`tasks/snapshot_fixtures.py`)."""
    snapshot = TASK_CARDS[name].snapshot
    assert snapshot is not None, f"{name} has no snapshot fixture"

    def args(tmp: Path) -> dict[str, Any]:
        return {**snapshot.args(tmp), **(extra or {})}

    limit = None if snapshot.sample_id else (snapshot.limit or 1)
    return Case(args, limit, snapshot.sample_id, snapshot.needs, dict(expect))


def _annotations(tmp: Path) -> dict[str, Any]:
    """BooookScore's span annotations of two summaries, in their published file."""
    path = tmp / "summary-gpt4-4096-hier.json"
    path.write_text(json.dumps(BOOKS), encoding="utf-8")
    return {"data": str(path)}


COHERENCE_UNREAD = {"booookscore": NAN, "parse_failure_rate": 1.0}
FAITHFULNESS_UNREAD = {"faithfulness": NAN, "missing_rate": 1.0}
RATERS_UNREAD = {"unparsed": 1.0}

CASES: dict[str, Case] = {
    "booksum": _from_card("booksum", {"coherence": True}, booookscore=COHERENCE_UNREAD),
    "booookscore": _from_card("booookscore", booookscore=COHERENCE_UNREAD),
    "hello_longform": Case(lambda _: {}, expect={"includes": {"": "I"}}),
    "judge_agreement": Case(
        _annotations,
        limit=2,
        expect={"judge_agreement": {"judge_score": NAN, "agreement": NAN}},
    ),
    "longformfact": _from_card("longformfact", faithfulness=FAITHFULNESS_UNREAD),
    "narrativeqa": _from_card("narrativeqa", llm_raters=RATERS_UNREAD),
    "positional_bias": _from_card("positional_bias", faithfulness=FAITHFULNESS_UNREAD),
    "qmsum": _from_card("qmsum", llm_raters=RATERS_UNREAD),
    "quality": _from_card("quality", choice_accuracy={"unparsed": 1.0, "correct": 0.0}),
    "squality": _from_card("squality", rouge={"scored": 1.0}),
}
"""Every task of the suite (`test_every_task_has_a_case`). A judge's key set to `NAN` is
checked beside its flag: the mock's answer read as no verdict, never as a verdict."""


@pytest.fixture(scope="module")
def o200k_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiktoken")
    write_o200k_cache(folder)
    return folder


@pytest.fixture
def offline_mockllm(o200k_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(o200k_cache))
    yield


def test_every_task_has_a_case() -> None:
    assert len(TASK_NAMES) >= 10, TASK_NAMES
    assert sorted(CASES) == TASK_NAMES


def _run(name: str, case: Case, tmp_path: Path) -> EvalLog:
    task = getattr(_registry, name)(**case.args(tmp_path))
    [log] = inspect_eval(
        task,
        model=MOCK,
        limit=case.limit,
        sample_id=case.sample_id,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    return log


def _matches(value: object, expected: float | str) -> bool:
    if expected == NAN:
        return isinstance(value, float) and math.isnan(value)
    return value == expected


@pytest.mark.usefixtures("offline_mockllm")
@pytest.mark.parametrize("name", sorted(CASES))
def test_task_runs_with_the_standard_mock_model(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    missing = [m for m in case.needs if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (an optional extra)")

    log = _run(name, case, tmp_path)

    assert log.status == "success", log.error
    assert log.eval.model == MOCK
    assert log.results is not None and log.results.scores
    scorers = {score.scorer for score in log.results.scores}
    assert set(case.expect) <= scorers, (case.expect, scorers)
    assert log.samples, "no samples in the log"
    for sample in log.samples:
        assert sample.error is None, sample.error
        assert sample.scores is not None and set(sample.scores) == scorers, sample.scores
        for scorer, keys in case.expect.items():
            value = sample.scores[scorer].value
            for key, expected in keys.items():
                got = value[key] if isinstance(value, dict) else value
                assert _matches(got, expected), f"{sample.id} {scorer}.{key}: {got!r}"
