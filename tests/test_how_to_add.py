"""docs/architecture.md's "How to add a task" and "How to add a dataset" lists, checked step by
step against every task and dataset the suite has, so a list that drifts from what the code
needs fails here. (Adding a strategy and a judge are exercised by
tests/solvers/test_adding_a_strategy.py and tests/judges/test_adding_a_judge.py.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

import longform_evals._registry as registry
from longform_evals.checks.snapshots.store import snapshot_path
from longform_evals.lmeval import TASK_FOLDER
from longform_evals.tasks.card import TaskCard
from longform_evals.tasks.cards import TASK_CARDS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "longform_evals"
DOCS = ROOT / "docs"
CARDS = [pytest.param(card, id=name) for name, card in TASK_CARDS.items()]


def _how_to(section: str) -> str:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    found = re.search(rf"^## How to add {section}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"docs/architecture.md has no 'How to add {section}' section"
    return found.group(1)


# --- How to add a task ---


def test_the_task_list_names_the_files_checked_here() -> None:
    steps = _how_to("a task")
    for named in (
        "tasks/card.py", "tasks/cards.py", "_registry.py", "file_entry", "_offline_args",
        "tests/tasks/", "longform snapshot --update", "docs/index.md",
        "tests/test_documented_commands.py", "_longform_template_yaml", "longform.yaml",
        "tests/lmeval/test_agreement.py",
    ):  # fmt: skip
        assert named in steps, named


@pytest.mark.parametrize("card", CARDS)
def test_step_1_the_card_sits_beside_its_task(card: TaskCard) -> None:
    assert card.factory.__module__.startswith("longform_evals.tasks.")
    module = SRC / "tasks" / (card.factory.__module__.rsplit(".", 1)[1] + ".py")
    assert "strict_parameters" in module.read_text(encoding="utf-8")


@pytest.mark.parametrize("card", CARDS)
def test_step_2_and_3_registered_and_a_root_file(card: TaskCard) -> None:
    assert card.name in registry.__all__
    root = ROOT / "tasks" / f"{card.name}.py"
    assert root.is_file() and "file_entry" in root.read_text(encoding="utf-8")


@pytest.mark.parametrize("card", CARDS)
def test_step_4_offline_arguments_a_test_and_a_snapshot(card: TaskCard) -> None:
    files = (ROOT / "tests" / "tasks" / "test_task_files.py").read_text(encoding="utf-8")
    assert f'"{card.name}":' in files.split("def _offline_args", 1)[1]
    runs = [
        p
        for p in (ROOT / "tests" / "tasks").glob("test_*.py")
        if f"{card.name}(" in p.read_text(encoding="utf-8")
    ]
    assert runs, f"no test in tests/tasks/ builds {card.name}"
    if card.snapshot is not None:
        assert snapshot_path(card.name, ROOT / "tests" / "snapshots").is_file()


@pytest.mark.parametrize("card", CARDS)
def test_step_5_a_page_listed_in_the_index_documents_it(card: TaskCard) -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    pages = re.findall(r"\]\(([\w./-]+\.md)\)", index)
    assert any(
        re.search(rf"\b{card.name}\b", (DOCS / page).read_text(encoding="utf-8"))
        for page in pages
        if (DOCS / page).is_file()
    ), f"no page listed in docs/index.md documents {card.name}"


@pytest.mark.parametrize("card", [c for c in CARDS if c.values[0].lm_eval])
def test_step_6_its_lm_eval_yaml_includes_the_template(card: TaskCard) -> None:
    path = TASK_FOLDER / f"longform_{card.name}.yaml"
    text = path.read_text(encoding="utf-8")
    assert "include: _longform_template_yaml" in text and "metric_list" in text
    group = yaml.safe_load((TASK_FOLDER / "longform.yaml").read_text(encoding="utf-8"))
    assert f"longform_{card.name}" in str(group)
    agreement = (ROOT / "tests" / "lmeval" / "test_agreement.py").read_text(encoding="utf-8")
    assert f'"{card.name}":' in agreement.split("CASES", 1)[1]  # its case


# --- How to add a dataset ---

HELPERS = {"__init__", "files", "ids", "jsonl", "reading", "reading_samples", "sources"}
"""Modules of data/ that read no benchmark of their own."""
UNTESTED_APART = {"books": "the bundled books: tests/tasks/test_booookscore_task.py"}


def _loaders() -> list[str]:
    return sorted(p.stem for p in (SRC / "data").glob("*.py") if p.stem not in HELPERS)


def test_the_dataset_list_names_the_files_checked_here() -> None:
    steps = _how_to("a dataset")
    for named in (
        "DataError",
        "data/reading.py",
        "README",
        "tests/data/test_",
        "test_loaders_bad_input.py",
    ):
        assert named in steps, named


@pytest.mark.parametrize("name", _loaders())
def test_each_loader_raises_data_errors_and_imports_datasets_lazily(name: str) -> None:
    tree = ast.parse((SRC / "data" / f"{name}.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert not any(
        (isinstance(n, ast.Import) and any(a.name == "datasets" for a in n.names))
        or (isinstance(n, ast.ImportFrom) and n.module == "datasets")
        for n in top
    )
    assert "DataError" in ast.unparse(tree)


def test_each_fixture_folder_says_where_its_data_came_from() -> None:
    for folder in (SRC / "data").iterdir():
        data = [*folder.glob("*.json*"), *folder.glob("*.txt")] if folder.is_dir() else []
        if data:
            assert (folder / "README.md").is_file(), folder.name


@pytest.mark.parametrize("name", _loaders())
def test_each_loader_is_offered_by_a_task_and_tested(name: str) -> None:
    users = [*(SRC / "tasks").glob("*.py"), SRC / "data" / "reading.py"]
    assert any(f"longform_evals.data.{name} import" in p.read_text(encoding="utf-8") for p in users)
    bad = (ROOT / "tests" / "data" / "test_loaders_bad_input.py").read_text(encoding="utf-8")
    assert f'"{name}": (load_' in bad, f"{name} has no bad-input case"
    if name not in UNTESTED_APART:
        assert list((ROOT / "tests" / "data").glob(f"test_*{name}.py")), name
