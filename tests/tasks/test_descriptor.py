"""The evaluation descriptor (`longform_evals.tasks.descriptor`): `eval.yaml` and the table of
docs/index.md are what the task cards render to, so neither can drift from the cards; and what
they say of each task is true of the task."""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from longform_evals.data.sources import PINS, placeholder_pins
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.descriptor import (
    BEGIN,
    DESCRIPTOR_FILE,
    END,
    descriptor,
    render_markdown,
    render_yaml,
    replace_block,
)

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "docs" / "index.md"
REGENERATE = "run `python -m longform_evals.tasks.descriptor` from the repository root"


@pytest.fixture(scope="module")
def described() -> dict[str, Any]:
    return descriptor()


def test_the_packaged_yaml_is_what_the_cards_render_to(described: dict[str, Any]) -> None:
    assert DESCRIPTOR_FILE.read_text(encoding="utf-8") == render_yaml(described), (
        f"src/longform_evals/eval.yaml differs from the task cards: {REGENERATE}"
    )


def test_the_index_table_is_what_the_cards_render_to(described: dict[str, Any]) -> None:
    text = INDEX.read_text(encoding="utf-8")
    match = re.search(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), text, re.DOTALL)
    assert match, f"docs/index.md has no block between {BEGIN!r} and {END!r}"
    rendered = render_markdown(described)
    assert match.group(1) == rendered, (
        f"docs/index.md's table of tasks differs from the task cards: {REGENERATE}; "
        f"or replace the lines between its markers with:\n{rendered}"
    )


def test_the_yaml_lists_every_card_with_what_its_task_says(described: dict[str, Any]) -> None:
    parsed = yaml.safe_load(DESCRIPTOR_FILE.read_text(encoding="utf-8"))
    assert parsed == described
    assert [t["name"] for t in parsed["tasks"]] == list(TASK_CARDS)
    for entry in parsed["tasks"]:
        card = TASK_CARDS[entry["name"]]
        assert entry["title"] and entry["papers"], entry["name"]
        assert re.fullmatch(r"\d+\.\d+\.\d+", entry["version"]), entry
        assert entry["samples"]["fixture"] >= 1, entry
        data = entry["data"]
        assert data["parameter"] == card.data_parameter
        if card.published is None:
            assert data["default"] in ("bundled", "required")
            continue
        pin = PINS[card.published.dataset]
        assert data["dataset"] == card.published.dataset
        assert (data["revision"], data["revision_is_commit"]) == (pin.revision, pin.is_commit)
        default = inspect.signature(card.factory).parameters["revision"].default
        assert default == pin.revision, f"{card.name}: -T revision defaults to another revision"


def test_placeholders_are_marked_as_such(described: dict[str, Any]) -> None:
    marked = {
        t["data"]["dataset"]
        for t in described["tasks"]
        if t["data"]["default"] == "published" and not t["data"]["revision_is_commit"]
    }
    listed = {t["data"].get("dataset") for t in described["tasks"]} - {None}
    assert marked == listed & set(placeholder_pins())
    assert "a placeholder" in render_markdown(described)


def test_data_required_without_a_default(described: dict[str, Any]) -> None:
    by_name = {t["name"]: t["data"]["default"] for t in described["tasks"]}
    assert by_name["qmsum"] == "required" and by_name["positional_bias"] == "required"
    assert by_name["booookscore"] == "bundled" and by_name["quality"] == "published"


def test_the_yaml_is_packaged() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["longform_evals"]
    assert DESCRIPTOR_FILE.name in data


def test_replace_block_rewrites_only_between_the_markers() -> None:
    text = f"before\n{BEGIN}\nold\nrows\n{END}\nafter\n"
    assert replace_block(text, "new") == f"before\n{BEGIN}\nnew\n{END}\nafter\n"
    assert replace_block(f"{BEGIN}\n{END}", "x") == f"{BEGIN}\nx\n{END}"
    with pytest.raises(ValueError, match="no block between"):
        replace_block("no markers", "x")


def test_the_command_writes_both_renderings(tmp_path: Path) -> None:
    index = tmp_path / "index.md"
    shutil.copyfile(INDEX, index)
    text = index.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    index.write_text(text[:start] + "\nstale\n" + text[end:], encoding="utf-8")
    out = tmp_path / "eval.yaml"
    command = [sys.executable, "-m", "longform_evals.tasks.descriptor"]
    proc = subprocess.run(
        [*command, "--yaml", str(out), "--index", str(index)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8") == DESCRIPTOR_FILE.read_text(encoding="utf-8")
    assert index.read_text(encoding="utf-8") == INDEX.read_text(encoding="utf-8")
    missing = subprocess.run(
        [*command, "--yaml", str(out), "--index", str(tmp_path / "none.md")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode != 0 and "run from the repository root" in missing.stderr
