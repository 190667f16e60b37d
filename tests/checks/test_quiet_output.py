"""`longform check`, `longform snapshot` and the pytest plugin print their results and nothing
else of the project's making: no library's debug lines (bm25s logs one per index it builds,
printed wherever the root logger has a handler, which rouge-score's absl logging installed), no
weights progress bar (transformers draws one for BERTScore's model) and no deprecation warning
(Inspect's default retry wait uses an argument tenacity 9 deprecates, once per model call of a
provider that sets no wait of its own). Captured in-process: log records as they reach the root
logger's handlers, warnings as Python raises them, and what reaches stdout and stderr."""

from __future__ import annotations

import asyncio
import logging
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from longform_evals.checks.spec import Result
from longform_evals.cli import main

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def _raised_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Every warning raised in the block, whatever pyproject.toml's filters say (a user's
    project has none of them), but ResourceWarnings: Python and pytest show none unless asked
    (Inspect leaves each sample's event stream for its hooks unclosed)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        yield caught


@contextmanager
def _default_logging() -> Iterator[None]:
    """The root logger at its default level (WARNING), with caplog's handler taking whatever
    reaches it, as a program's `logging.basicConfig()` handler would: a record below WARNING
    gets there only from a logger set lower on purpose (bm25s sets itself to DEBUG)."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.setLevel(level)


def _noise(records: list[logging.LogRecord]) -> list[str]:
    """Records a default logging setup prints that are debug or info lines, or warnings of
    the project's own loggers. Inspect's own records are left to Inspect, whose handler shows
    only warnings (its trace records reach the root logger here only before it installs it)."""
    return [
        f"{r.levelname}:{r.name}:{r.getMessage()}"
        for r in records
        if (r.levelno < logging.WARNING and not r.name.startswith("inspect_ai"))
        or r.name.startswith("longform_evals")
    ]


def test_a_bm25_index_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    from longform_evals.text.bm25 import BM25

    with _default_logging():
        BM25(["the keeper lit the lamp", "the storm broke the quay"]).top("lamp", 1)
    assert not caplog.records, [r.getMessage() for r in caplog.records]


def test_the_rouge_scorer_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    # rouge-score logs "Using default tokenizer." through absl when left to choose its
    # tokenizer, and absl's first log call gives the root logger a stderr handler.
    from longform_evals.scorers.rouge import rouge

    with caplog.at_level(logging.DEBUG):
        rouge()
    assert not caplog.records, [r.getMessage() for r in caplog.records]


def test_the_packages_providers_raise_no_deprecation_warning() -> None:
    from inspect_ai.model import get_model

    model = get_model("scripted/quiet", default_response="ok", memoize=False)
    with _raised_warnings() as caught:
        output = asyncio.run(model.generate("Say ok."))
    assert output.completion == "ok"
    assert not [str(w.message) for w in caught]


def test_loading_a_transformers_model_draws_no_bar_and_leaves_the_setting() -> None:
    hf_logging = pytest.importorskip("transformers.utils.logging")
    from longform_evals.models.quiet_loading import quiet_loading

    for enabled in (True, False):
        if enabled:
            hf_logging.enable_progress_bar()
        else:
            hf_logging.disable_progress_bar()
        try:
            with quiet_loading():
                with quiet_loading():  # nested (two loads at once): still off
                    assert not hf_logging.is_progress_bar_enabled()
                assert not hf_logging.is_progress_bar_enabled()
            assert hf_logging.is_progress_bar_enabled() is enabled
        finally:
            hf_logging.enable_progress_bar()


def test_longform_check_prints_the_judge_and_the_table_only(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    # rouge's scorer once installed the root handler through absl; the faithfulness checks
    # build bm25 indexes (12 debug lines in the full set, issue 51).
    with _default_logging(), _raised_warnings() as caught:
        result = CliRunner().invoke(main, ["check", "--only", "rouge", "--only", "faithfulness"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("judge: replay/qwen2.5-coder-1.5b\n")
    assert "checks passed" in result.output
    assert not _noise(caplog.records)
    assert not [str(w.message) for w in caught]
    printed = capfd.readouterr()
    assert "DEBUG" not in printed.out + printed.err, printed.err


def test_a_snapshot_draws_no_weights_bar(
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The run a snapshot makes (its values are compared in test_snapshots.py).
    from longform_evals.checks.snapshots import missing_modules
    from longform_evals.checks.snapshots.run import snapshot_values
    from longform_evals.scorers import bertscore

    if missing_modules("booksum"):
        pytest.skip("booksum's snapshot needs the `embed` extra")
    monkeypatch.setattr(bertscore, "_CACHE", {})  # load BERTScore's model again, here
    with _default_logging(), _raised_warnings() as caught:
        values = snapshot_values("booksum")
    assert any(key.startswith("bertscore/") for key in values), values
    printed = capfd.readouterr()
    assert "Loading weights" not in printed.err and "DEBUG" not in printed.err, printed.err
    assert not _noise(caplog.records)
    assert not [str(w.message) for w in caught]


def _docs_plugin_example() -> str:
    """The test file docs/ci.md shows for the pytest plugin."""
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text[text.index("## In your own test suite") :]
    block = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert block is not None, "docs/ci.md shows no python example for the plugin"
    return block.group(1)


def test_the_docs_plugin_example_passes_without_a_warning(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    # The example's tests, called here as pytest calls them with the plugin's fixtures (a
    # nested pytest in this process would unload the modules it imported, a subprocess takes
    # longer); its model calls raised 787 deprecation warnings, hidden in this project's own
    # runs by pyproject.toml's filterwarnings.
    from longform_evals.checks.judge import JudgeChoice
    from longform_evals.checks.runner import run_checks

    example: dict[str, object] = {}
    exec(compile(_docs_plugin_example(), "docs/ci.md", "exec"), example)
    judge = JudgeChoice(live=None, record=False, recording=None)  # no --longform-* option

    def longform_checks(only: Sequence[str] | None = None) -> list[Result]:
        return run_checks(only=only, judge=judge)

    behaves, one_check = example["test_my_judge_behaves"], example["test_faithfulness_check"]
    assert callable(behaves) and callable(one_check)
    check_params = example["check_params"]
    assert callable(check_params)
    with _default_logging(), _raised_warnings() as caught:
        behaves(longform_checks)
        params = check_params(["faithfulness"])
        for param in params:
            one_check(*param.values, judge)
    assert params
    assert not _noise(caplog.records)
    assert not [str(w.message) for w in caught]
    printed = capfd.readouterr()
    assert "DEBUG" not in printed.out + printed.err, printed.err
