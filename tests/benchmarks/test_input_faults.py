"""benchmarks/input_faults.py: how each generated case ended, told apart in worker processes
(a returned ending, an exception, a dead worker, a hang), and the case modules' contract."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from helpers import BENCHMARKS, load_benchmark_script

CASES = textwrap.dedent(
    """
    import ctypes
    import time

    from fault_cases._case import Case

    CLASS = "selftest"
    DESCRIPTION = "one case of every ending"


    def cases():
        return [
            Case("refused", lambda folder: "error"),
            Case("read", lambda folder: "loaded"),
            Case("misread", lambda folder: "silent"),
            Case("raises", lambda folder: {}["key"]),
            Case("segfault", lambda folder: ctypes.string_at(0)),
            Case("sleeps", lambda folder: time.sleep(30) or "loaded", timeout=2),
            Case("after-the-hang", lambda folder: "counted"),
            Case("unknown-ending", lambda folder: "fine"),
        ]
    """
)


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    package = tmp_path / "lfe_selftest"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cases.py").write_text(CASES)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the workers import it too
    monkeypatch.syspath_prepend(str(tmp_path))
    return load_benchmark_script("input_faults")


def test_every_ending_is_told_apart_and_a_worker_restarts_after_a_crash_or_hang(
    script: ModuleType,
) -> None:
    run = script.run_class("lfe_selftest.cases", None, 4.0)
    endings = {e.case: e.outcome for e in run.endings}
    assert endings == {
        "refused": "error",
        "read": "loaded",
        "misread": "silent",
        "raises": "crash",
        "segfault": "crash",
        "sleeps": "hang",
        "after-the-hang": "counted",
        "unknown-ending": "crash",
    }
    details = {e.case: e.detail for e in run.endings}
    assert details["raises"].startswith("KeyError")
    assert "worker died" in details["segfault"]
    table = script.table([run], [run])
    assert "| selftest | 8 | 1 → 1 | 1 → 1 | 1 → 1 | 1 → 1 | 3 → 3 | 1 → 1 |" in table
    assert len(script.wrong([run])) == 5


def test_case_modules_keep_the_contract() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    script = load_benchmark_script("input_faults")
    modules = script.class_modules()
    assert "interrupted" in modules
    for name, module in modules.items():
        first = [c.name for c in script.load_cases(module)]
        assert first, f"{name} has no cases"
        assert len(set(first)) == len(first), f"{name} repeats a case name"
        assert first == [c.name for c in script.load_cases(module)], f"{name} is not seeded"
