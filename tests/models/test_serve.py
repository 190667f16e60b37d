"""`longform serve`'s settings and model resolution, and how a served packaged model is named
(no server started here; tests/models/test_served_models.py runs one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from longform_evals.cli import main
from longform_evals.judges.calibration_files import calibration_name
from longform_evals.models.gguf_files import ModelFileError, packaged_equivalent
from longform_evals.models.serve import ServeSettings, resolve_served_file


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"port": 70000}, "port"),
        ({"port": -1}, "port"),
        ({"n_parallel": 0}, "n_parallel"),
        ({"n_threads": 0}, "n_threads"),
        ({"n_ctx": 100}, "n_ctx"),
        ({"host": "my host"}, "host"),
    ],
)
def test_bad_settings_are_refused_naming_what_was_wrong(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ServeSettings("qwen2.5-coder-0.5b", **kwargs)  # type: ignore[arg-type]


def test_unknown_model_names_the_packaged_ones() -> None:
    with pytest.raises(ValueError, match=r"neither a packaged model .*qwen2\.5-coder-1\.5b"):
        resolve_served_file("no-such-model")


def test_a_file_that_is_no_gguf_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match="not a GGUF model file"):
        resolve_served_file(str(bad))


def test_cli_reports_a_bad_model_without_a_traceback() -> None:
    result = CliRunner().invoke(main, ["serve", "no-such-model", "--port", "0"])
    assert result.exit_code == 1
    assert "neither a packaged model" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("openai-api/longform/qwen2.5-coder-1.5b", "gguf/qwen2.5-coder-1.5b"),
        ("openai-api/vllm-box/smollm2-135m", "gguf/smollm2-135m"),
        ("openai-api/longform/my-model", None),
        # the same server through Inspect's `openai` provider (OPENAI_BASE_URL) is the same model
        ("openai/qwen2.5-coder-1.5b", "gguf/qwen2.5-coder-1.5b"),
        ("vllm/smollm2-135m", "gguf/smollm2-135m"),
        ("gguf/qwen2.5-coder-1.5b", None),
        ("qwen2.5-coder-1.5b", None),
    ],
)
def test_a_served_packaged_model_stands_for_the_packaged_one(
    name: str, expected: str | None
) -> None:
    assert packaged_equivalent(name) == expected


def test_a_served_packaged_model_uses_the_packaged_calibration() -> None:
    assert calibration_name("openai-api/longform/qwen2.5-coder-1.5b") == "qwen2.5-coder-1.5b"
    assert calibration_name("openai-api/longform/other") == "longform_other"


def test_the_threads_help_says_the_default_the_engine_uses() -> None:
    # The help once said "all cores" while the engine took the idle ones (issue 51): it now
    # quotes the words of the module that computes the default.
    from longform_evals.models import threads

    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0, result.output
    help_text = " ".join(result.output.split())
    assert f"CPU threads (default: {threads.DEFAULT_THREADS_HELP})" in help_text
    assert "all cores" not in help_text
    assert ServeSettings("qwen2.5-coder-0.5b").n_threads is None  # so the default applies
