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
LIVE_JUDGE_SKIP = (
    "asks the real 1.5B judge for minutes on a CPU: run with --live-judge (docs/testing.md); "
    "`longform check` replays the same checks from the recording on every run"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--live-judge",
        action="store_true",
        help="also run the tests marked live_judge (the real 1.5B judge, minutes on a CPU)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--live-judge"):
        return
    for item in items:
        if item.get_closest_marker("live_judge"):
            item.add_marker(pytest.mark.skip(reason=LIVE_JUDGE_SKIP))


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
