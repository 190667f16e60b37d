"""The lm-eval task folder agrees with the catalogue and loads in lm-eval."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.catalogue import TASKS
from longform_evals.lmeval.hooks import read_task_yaml

YAMLS = sorted(TASK_FOLDER.glob("*.yaml"))


def _configs() -> dict[str, dict[str, object]]:
    return {path.stem: read_task_yaml(path) for path in YAMLS}


def test_one_yaml_per_catalogued_task_and_the_group() -> None:
    names = {path.stem for path in YAMLS}
    expected = {f"longform_{task}" for task in TASKS} | {"longform", "longform_quality_mc"}
    assert names == expected


def test_each_task_names_its_catalogue_entry() -> None:
    for stem, config in _configs().items():
        if stem == "longform":
            continue
        assert config["task"] == stem
        task = config["dataset_kwargs"]["task"]  # type: ignore[index]
        assert task in TASKS
        assert stem in (f"longform_{task}", f"longform_{task}_mc")


def test_group_holds_every_generation_task() -> None:
    group = _configs()["longform"]
    assert group["group"] == "longform"
    assert set(group["task"]) == {f"longform_{t}" for t in TASKS}  # type: ignore[arg-type]


def test_functions_named_by_the_yaml_exist() -> None:
    module = ast.parse((TASK_FOLDER / "utils.py").read_text(encoding="utf-8"))
    exported = {
        alias.asname or alias.name
        for node in module.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    text = "\n".join(path.read_text(encoding="utf-8") for path in YAMLS)
    named = {
        line.split("!function utils.")[1].strip()
        for line in text.splitlines()
        if "!function utils." in line
    }
    assert named and named <= exported


def test_lm_eval_finds_the_tasks() -> None:
    pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(TASK_FOLDER), include_defaults=False)
    assert {f"longform_{t}" for t in TASKS} | {"longform", "longform_quality_mc"} <= set(
        manager.all_tasks
    )


def test_task_folder_ships_with_the_package() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"lmeval/tasks/*.yaml"' in pyproject and '"lmeval/tasks/*.py"' in pyproject
