"""The lm-eval task folder agrees with the catalogue and loads in lm-eval."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.catalogue import TASKS
from longform_evals.lmeval.hooks import read_task_yaml

YAMLS = sorted(TASK_FOLDER.glob("*.yaml"))
TEMPLATE = TASK_FOLDER / "_longform_template_yaml"
"""What every generation task shares (lm-eval's `include:`; not indexed as a task)."""


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
    # loaded the way lm-eval loads `!function utils.X`: the file as a module, then getattr
    spec = importlib.util.spec_from_file_location("utils", TASK_FOLDER / "utils.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "\n".join(path.read_text(encoding="utf-8") for path in [*YAMLS, TEMPLATE])
    named = {
        line.split("!function utils.")[1].strip()
        for line in text.splitlines()
        if "!function utils." in line
    }
    assert named and all(callable(getattr(module, name)) for name in named)
    with pytest.raises(AttributeError):
        module.no_such_aggregation  # noqa: B018


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
    assert '"lmeval/tasks/_*_yaml"' in pyproject


def test_every_generation_task_includes_the_shared_template() -> None:
    shared = read_task_yaml(TEMPLATE)
    for stem, config in _configs().items():
        if stem in ("longform", "longform_quality_mc"):
            continue
        assert config["include"] == TEMPLATE.name, stem
        assert not set(config) & (set(shared) - {"metadata"}), stem  # said once, in the template
    # lm-eval merging it into each task is what tests/lmeval/test_agreement.py runs.
