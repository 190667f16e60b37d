"""Shared test fixtures: where the shared benchmark data is, and what optional parts exist."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never touch the network; make any hub library that slips in fail fast instead of hanging.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("INSPECT_DISPLAY", "none")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """The shared benchmark excerpts; skips the test where they are absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present on this machine")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _isolated_model_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep assembled models of tests out of the user's cache unless a test opts in."""
    if "LONGFORM_EVALS_CACHE" not in os.environ:
        monkeypatch.setenv(
            "LONGFORM_EVALS_CACHE", str(tmp_path_factory.getbasetemp() / "model-cache")
        )


@pytest.fixture(autouse=True)
def _isolated_inspect_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own Inspect model cache, so cached answers never leak between tests."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
