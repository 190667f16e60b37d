"""File names given as `-T data=...` reach the loader as typed, whatever Inspect's YAML reading
of the value made of them (a list at a comma, a cut at ` #`, None for `#...`, a boolean)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai._util.config import parse_cli_args

from longform_evals.tasks.arguments import from_launch_dir, given_path

NAMES = [
    "a,b.jsonl",
    "notes #2.jsonl",
    "#draft.jsonl",
    "yes",
    "2024-01-01",
    "1.50",
    "x: y.jsonl",
    "- x.jsonl",
    "\u2039(a, \u2026)\u203a.jsonl",
    "plain name.jsonl",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_file_name_inspect_changed_is_taken_as_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text("{}\n", "utf-8")
    argument = f"data={name}"
    parsed = parse_cli_args([argument])["data"]  # what Inspect passes to the task
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "task", "-T", argument])
    assert given_path("data", parsed) == name
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "task", f"-T{argument}"])
    assert given_path("data", parsed) == name


def test_a_value_that_names_a_file_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a b.jsonl").write_text("{}\n", "utf-8")
    # quoted on the command line: YAML took the quotes off, and that file exists
    monkeypatch.setattr(sys, "argv", ["inspect", "-T", 'data="a b.jsonl"'])
    assert given_path("data", "a b.jsonl") == "a b.jsonl"


def test_without_a_command_line_a_list_is_joined_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["python"])
    assert given_path("data", ["a", "b.jsonl"]) == "a,b.jsonl"
    assert given_path("data", None) is None
    value: Any = {"x": 1}
    assert given_path("data", value) == value  # the type check then refuses it


def test_a_leading_tilde_is_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["python"])
    (tmp_path / "d.jsonl").write_text("{}\n", "utf-8")
    assert given_path("data", "~/d.jsonl") == str(tmp_path / "d.jsonl")
    assert given_path("data", "~/absent.jsonl") == "~/absent.jsonl"


def test_from_launch_dir_takes_the_typed_name_then_resolves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import longform_evals

    (tmp_path / "x #1.jsonl").write_text("{}\n", "utf-8")
    monkeypatch.setattr(longform_evals.about, "LAUNCH_DIR", str(tmp_path))
    monkeypatch.chdir(Path(__file__).parent)
    monkeypatch.setattr(sys, "argv", ["inspect", "-T", "data=x #1.jsonl"])
    resolved = from_launch_dir({"data": parse_cli_args(["data=x #1.jsonl"])["data"]}, ("data",))
    assert resolved == {"data": str(tmp_path / "x #1.jsonl")}
