"""The `tasks/*.py` entry points work as `inspect eval tasks/X.py` from the repository root.

For every file in `tasks/` (found by glob, so a new file is covered without editing this
module) this proves that:

- `inspect list tasks tasks` lists it as `tasks/X.py@<name>`;
- `inspect eval tasks/X.py@<name>` runs offline with the scripted model (`--limit 1`) and
  leaves a log with status "success" (and the plain `tasks/booookscore.py` form does too);
- its task function has exactly the signature of the package task of the same name, and a
  run given every parameter explicitly records them all in `log.eval.task_args`, with no
  "not used by task" warning from Inspect;
- an unknown `-T` parameter is refused with an error naming it and listing the valid ones;
- `inspect score` (no `--scorer`) re-scores a log of a `tasks/booookscore.py` run and of a
  `longform_evals/booookscore` run.

That the root files and the package's registered tasks are the same set (no package task
without a file, no file without a package task) is checked in `tests/test_layers.py`.

The command-line runs are subprocesses started together (a few at a time) when the first test
needs one, since each costs seconds of imports.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model

import longform_evals
from helpers import OFFLINE_RULES, task_functions

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
TASK_FILES = sorted((REPO / "tasks").glob("*.py"))
BIN = Path(sys.executable).parent
DATA = Path(longform_evals.__file__).resolve().parent / "data"
TIMEOUT_S = 600


MULTIDOC = {
    "id": "harbour",
    "documents": [
        "The council met on Monday and approved the harbour budget.",
        "The bridge will reopen in May after repairs to its deck.",
        "Markets open early on Fridays during the summer months.",
    ],
    "ranking": [1, 0, 2],
}


# BooookScore's human annotations in their published shape: a book, its summary, a flagged span.
ANNOTATIONS = {
    "orchard.epub": {
        "summary": "Ines studies a frozen orchard. Zorb finds a faulty sensor.",
        "singles": [
            {"id": "s1", "span": "Zorb", "questions": "Who?", "labels": ["entity omission"]}
        ],
        "relations": [],
    }
}


def _offline_args(tmp: Path) -> dict[str, dict[str, Any]]:
    """Per task name, the arguments it needs to run offline and fast (others: defaults)."""
    multidoc = tmp / "multidoc.jsonl"
    multidoc.write_text(json.dumps(MULTIDOC) + "\n", encoding="utf-8")
    annotations = tmp / "summary-gpt4-4096-hier.json"
    annotations.write_text(json.dumps(ANNOTATIONS), encoding="utf-8")
    return {
        "booksum": {"data": str(DATA / "narrative" / "booksum_fixture.jsonl")},
        "booookscore": {},  # the bundled books are its default data
        "hello_longform": {},
        "judge_agreement": {"data": str(annotations)},
        "longformfact": {"data_dir": str(SHARED_DATA / "longformfact"), "ranking": "lexical"},
        "narrativeqa": {"data": str(DATA / "reading" / "narrativeqa_fixture.jsonl")},
        "positional_bias": {"data": str(multidoc), "ranking": "lexical"},
        "qmsum": {"data": str(DATA / "reading" / "qmsum_fixture.jsonl")},
        "quality": {"data": str(DATA / "reading" / "quality_fixture.jsonl")},
        "squality": {"data": str(DATA / "narrative" / "squality_fixture.jsonl")},
    }


NEEDS_SHARED = {"longformfact"}
NEEDS_MODULE = {"booksum": "bert_score", "squality": "bert_score"}  # BERTScore: `embed` extra


def _task_name(path: Path) -> str:
    """The name of the one `@task` function defined in a task file."""
    names = task_functions(path)
    assert len(names) == 1, f"{path.name} should define exactly one @task, found {names}"
    return names[0]


NAMES = {path.stem: _task_name(path) for path in TASK_FILES}


def _unavailable(name: str) -> str | None:
    """Why the task cannot run on this machine, or None."""
    if name in NEEDS_SHARED and not SHARED_DATA.is_dir():
        return "../shared/data is not present on this machine"
    module = NEEDS_MODULE.get(name)
    if module and importlib.util.find_spec(module) is None:
        return f"{module} is not installed (the `embed` extra)"
    return None


def _skip_if_unavailable(name: str) -> None:
    reason = _unavailable(name)
    if reason:
        pytest.skip(reason)


@dataclass(frozen=True)
class Result:
    argv: list[str]
    returncode: int
    output: str
    log_dir: Path

    def explain(self) -> str:
        return f"$ {' '.join(self.argv)}\n(exit {self.returncode})\n{self.output[-4000:]}"

    def logs(self) -> list[Path]:
        return sorted(self.log_dir.glob("*.eval")) if self.log_dir.is_dir() else []


def _environment() -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("INSPECT_EVAL_", "INSPECT_LOG"))
    }
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["INSPECT_DISPLAY"] = "none"
    env["HF_HUB_OFFLINE"] = "1"
    return env


def _run(argv: list[str], log_dir: Path, cache_dir: Path, env: dict[str, str]) -> Result:
    executable = BIN / argv[0]
    command = [str(executable) if executable.exists() else argv[0], *argv[1:]]
    proc = subprocess.run(
        command,
        cwd=REPO,
        env={**env, "INSPECT_CACHE_DIR": str(cache_dir)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    return Result(argv, proc.returncode, proc.stdout + proc.stderr, log_dir)


BAD_ARGUMENTS = {
    "unknown": "truncation=middle",
    "bad-type": "chunk_size=abc",
    "bad-value": "strategy=bogus",
    "bad-file": "data=no/such/folder",
}
"""Command-line runs given one bad `-T` argument, by key."""


class Runs:
    """The command-line runs of this module, started in parallel, each at most once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rules = root / "rules.json"
        self.rules.write_text(json.dumps(OFFLINE_RULES), encoding="utf-8")
        self.offline = _offline_args(root)
        self.env = _environment()
        self._pool = ThreadPoolExecutor(max_workers=max(1, min(3, os.cpu_count() or 1)))
        self._futures: dict[str, Future[Result]] = {}

    def model(self) -> list[str]:
        return ["--model", "scripted/files", "-M", f"rules={self.rules}"]

    def task_args(self, name: str) -> list[str]:
        args = self.offline.get(name, {})
        return [arg for key, value in args.items() for arg in ("-T", f"{key}={value}")]

    def argv(self, key: str) -> list[str]:
        if key == "list":
            return ["inspect", "list", "tasks", "tasks"]
        logs = ["--log-dir", str(self.root / key.replace(":", "-"))]
        if key in BAD_ARGUMENTS:
            refused = ["-T", BAD_ARGUMENTS[key], "--display", "plain"]
            return ["inspect", "eval", "tasks/booookscore.py", *self.model(), *refused, *logs]
        kind, stem = key.split(":")
        name = NAMES.get(stem, stem)
        target = {
            "file": f"tasks/{stem}.py@{name}",
            "plain": f"tasks/{stem}.py",
            "package": f"longform_evals/{name}",
        }[kind]
        return [
            "inspect",
            "eval",
            target,
            *self.model(),
            *self.task_args(name),
            "--limit",
            "1",
            *logs,
        ]

    def start(self, key: str) -> Future[Result]:
        if key not in self._futures:
            log_dir = self.root / key.replace(":", "-")
            cache_dir = self.root / "cache" / key.replace(":", "-")
            self._futures[key] = self._pool.submit(
                _run, self.argv(key), log_dir, cache_dir, self.env
            )
        return self._futures[key]

    def result(self, key: str) -> Result:
        return self.start(key).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _jobs_of(item: pytest.Item) -> list[str]:
    """The command-line runs a selected test of this module needs."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    name = getattr(item, "originalname", "")
    stem = params.get("stem")
    if name == "test_inspect_lists_every_task_file":
        return ["list"]
    if name == "test_file_task_runs_from_the_command_line" and stem:
        return [] if _unavailable(NAMES[stem]) else [f"file:{stem}"]
    if name == "test_plain_file_form_runs":
        return ["plain:booookscore"]
    if name == "test_unknown_parameter_is_refused":
        return ["unknown"]
    if name == "test_a_bad_value_is_a_message_not_a_traceback":
        return [params["key"]]
    if name == "test_inspect_score_rescores_the_log":
        return [f"{params['kind']}:booookscore"]
    return []


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Runs]:
    runs = Runs(tmp_path_factory.mktemp("task-files"))
    here = Path(__file__).resolve()
    for item in request.session.items:
        if Path(str(item.path)).resolve() == here:
            for key in _jobs_of(item):
                runs.start(key)
    yield runs
    runs.close()


def _read_success(result: Result) -> EvalLog:
    assert result.returncode == 0, result.explain()
    logs = result.logs()
    assert len(logs) == 1, f"expected one log in {result.log_dir}, found {logs}\n{result.explain()}"
    log = read_eval_log(str(logs[0]))
    assert log.status == "success", f"{log.error}\n{result.explain()}"
    return log


def test_there_are_task_files() -> None:
    assert len(TASK_FILES) >= 9, TASK_FILES


def test_inspect_lists_every_task_file(runs: Runs) -> None:
    result = runs.result("list")
    assert result.returncode == 0, result.explain()
    listed = [line.strip() for line in result.output.splitlines() if line.startswith("tasks/")]
    expected = [f"tasks/{stem}.py@{name}" for stem, name in NAMES.items()]
    assert sorted(listed) == sorted(expected), result.explain()


@pytest.mark.parametrize("stem", sorted(NAMES))
def test_file_task_runs_from_the_command_line(runs: Runs, stem: str) -> None:
    _skip_if_unavailable(NAMES[stem])
    log = _read_success(runs.result(f"file:{stem}"))
    assert log.eval.task == NAMES[stem]
    assert log.eval.task_file is not None and log.eval.task_file.endswith(f"tasks/{stem}.py")
    assert log.samples and len(log.samples) == 1


def test_plain_file_form_runs(runs: Runs) -> None:
    log = _read_success(runs.result("plain:booookscore"))
    assert log.eval.task == "booookscore"
    assert log.samples and log.samples[0].scores and "booookscore" in log.samples[0].scores


def _file_task(stem: str) -> Callable[..., Any]:
    path = REPO / "tasks" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"_task_file_{stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function: Callable[..., Any] = getattr(module, NAMES[stem])
    return function


def _package_task(name: str) -> Callable[..., Any]:
    registry = importlib.import_module("longform_evals._registry")
    function: Callable[..., Any] = getattr(registry, name)
    return function


@pytest.mark.parametrize("stem", sorted(NAMES))
def test_file_task_has_the_package_task_signature(stem: str) -> None:
    name = NAMES[stem]
    assert inspect.signature(_file_task(stem)) == inspect.signature(_package_task(name))


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.parametrize("stem", sorted(NAMES))
def test_every_parameter_is_passed_to_the_package_task(
    stem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = NAMES[stem]
    _skip_if_unavailable(name)
    offline = _offline_args(tmp_path).get(name, {})
    signature = inspect.signature(_package_task(name))
    explicit: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
            continue
        if parameter.name in offline:
            explicit[parameter.name] = offline[parameter.name]
        else:
            assert parameter.default is not parameter.empty, (
                f"{name}: give an offline value for the required parameter {parameter.name}"
            )
            explicit[parameter.name] = parameter.default
    assert set(offline) <= set(explicit), f"{name}: offline arguments it does not take"

    warnings = _Warnings()
    registry_logger = logging.getLogger("inspect_ai._eval.registry")
    registry_logger.addHandler(warnings)
    monkeypatch.chdir(REPO)  # Inspect loads task files by paths relative to the working dir
    try:
        [log] = inspect_eval(
            f"tasks/{stem}.py",
            task_args=explicit,
            model=get_model(f"scripted/{stem}", rules=OFFLINE_RULES, memoize=False),
            log_dir=str(tmp_path / "logs"),
            limit=1,
            display="none",
        )
    finally:
        registry_logger.removeHandler(warnings)
    assert log.status == "success", log.error
    assert set(log.eval.task_args_passed) == set(explicit)
    assert {key: log.eval.task_args[key] for key in explicit} == explicit
    assert not [m for m in warnings.messages if "not used by task" in m], warnings.messages


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("bad-type", "chunk_size='abc': Input should be a valid integer"),
        ("bad-value", "unknown strategy 'bogus'; use one of full, hierarchical"),
        ("bad-file", "no/such/folder"),
    ],
)
def test_a_bad_value_is_a_message_not_a_traceback(runs: Runs, key: str, says: str) -> None:
    result = runs.result(key)
    assert result.returncode != 0, result.explain()
    output = " ".join(result.output.split())  # Inspect wraps the message at the terminal width
    assert says in output and "task 'booookscore'" in output, result.explain()
    assert "Traceback" not in result.output, result.explain()


def test_unknown_parameter_is_refused(runs: Runs) -> None:
    result = runs.result("unknown")
    assert result.returncode != 0, result.explain()
    output = " ".join(result.output.split())  # Inspect wraps the message at the terminal width
    assert "'truncation'" in output, result.explain()
    assert "its parameters are: strategy, data, chunk_size" in output, result.explain()
    assert "Traceback" not in result.output, result.explain()
    assert not result.logs() or all(
        read_eval_log(str(p), header_only=True).status != "success" for p in result.logs()
    )


@pytest.mark.parametrize("kind", ["plain", "package"])
def test_inspect_score_rescores_the_log(runs: Runs, kind: str, tmp_path: Path) -> None:
    source = runs.result(f"{kind}:booookscore")
    _read_success(source)
    log_path = str(source.logs()[0])
    out = tmp_path / "rescored.eval"
    argv = ["inspect", "score", "--action", "overwrite", "--output-file", str(out), log_path]
    result = _run(argv, tmp_path, runs.root / "cache" / f"{kind}-booookscore", runs.env)
    assert result.returncode == 0, result.explain()
    rescored = read_eval_log(str(out))
    assert rescored.status == "success", rescored.error
    assert rescored.results is not None
    assert "booookscore" in {s.name for s in rescored.results.scores}, rescored.results.scores
    assert rescored.samples and rescored.samples[0].scores
    value = rescored.samples[0].scores["booookscore"].value
    assert isinstance(value, dict) and value["booookscore"] == 100.0, value
