"""Issue 35's fault classes before and after the work: the after measured by the test suite.

Every test that checks one case of a class of bad input or bad answer (a lone surrogate in a
loaded text, a hedged yes/no answer, a list where a plan file wants a mapping, ...) carries
the marker ``@pytest.mark.fault(cls, outcome)``: ``cls`` is a key of :data:`CLASSES`,
``outcome`` what the test asserts happens to the case now (:data:`OUTCOMES`): a clear error
naming it, an outcome counted in the results (an unreadable answer, a skipped log), or the
input neutralised (a fence marker broken before any judge reads it). A parametrized test is
one case per parameter; a test that checks cases of two classes carries two markers.

The script runs the marked tests in this process (``pytest -m fault``), records how each one
ended and prints a Markdown table, one row per class and a total: the cases now, how many of
them end as a clear error, counted or neutralised (their tests pass), how many are still wrong
(their tests fail, or are marked as expected to fail), and the issue's figures from before the
work (cases, silent, crash, hang). No network, no model; about a minute on 2 cores.

    python benchmarks/fault_classes.py                 # the table
    python benchmarks/fault_classes.py --collect-only  # the marked cases, as JSON

Exit status: 1 when a marked test fails or is expected to fail, 2 when a marker names an
unknown class or outcome or pytest cannot run the tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class FaultClass:
    """A class of fault, with its cases and how they ended before the work."""

    description: str
    cases: int
    silent: int = 0
    crash: int = 0
    hang: int = 0


# BEFORE: each class's cases and how they ended before the work, as issue 35's report gives
# them (constants: the code that behaved so is gone, so they cannot be measured again).
CLASSES: dict[str, FaultClass] = {
    "answer_not_yes_no": FaultClass(
        "judge answer whose first token is not a yes/no word, read from the alternatives' "
        "log-probabilities (probe, faithfulness, raters)",
        16,
        silent=16,
    ),
    "hedged_answer": FaultClass(
        'hedged answer ("Yes and no", "Yes\\nNo", "No, but yes.") with log-probabilities',
        3,
        silent=3,
    ),
    "non_finite_logprob": FaultClass("+Infinity log-probability", 1, silent=1),
    "batched_contradiction": FaultClass(
        "batched coherence answer giving one sentence two contradicting verdicts", 1, silent=1
    ),
    "surrogate": FaultClass(
        "lone surrogate (\\ud800) in a text, every loader", 10, silent=5, crash=5
    ),
    "oversize": FaultClass("a 50 MB summary or text", 2, crash=1, hang=1),
    "task_argument": FaultClass("bad `-T` task argument values", 14, silent=8, crash=6),
    "plan_file": FaultClass("bad `longform run` plan files", 10, silent=1, crash=9),
    "leaderboard_input": FaultClass(
        "leaderboard over garbage, truncated, empty or bad-zip logs; `--out` a file", 6, crash=6
    ),
    "cli_paths": FaultClass(
        "a folder where a file belongs (`check --junit`, model paths in the check and in "
        "`models prepare`)",
        3,
        crash=3,
    ),
    "agreement_inputs": FaultClass(
        "judge_agreement inputs: a LongSciVerify summary without words; planted_support "
        "`replaces: Infinity`, a folder, a missing file",
        4,
        crash=4,
    ),
    "planted_support_types": FaultClass(
        "planted_support fields of the wrong type, empty files", 22, silent=22
    ),
    "wordless_document": FaultClass("documents without words", 6, silent=6),
    "duplicate_record": FaultClass("a record repeated in a data file", 3, silent=3),
    "typed_ids": FaultClass(
        "ids, texts and titles of the wrong type (NaN, lists, numbers, 1.5)", 9, silent=9
    ),
    "interrupted_run": FaultClass(
        "`longform run` stopped by Ctrl-C exits 0 and says it completed", 1, silent=1
    ),
    "fence_marker": FaultClass(
        "fence markers not in plain ASCII, and chat-template tokens, in judged text", 5, silent=5
    ),
}

OUTCOMES = ("clear error", "counted", "neutralised")
"""What a marked test asserts happens to its case now."""


class Mark(NamedTuple):
    """One `fault` marker of one collected test."""

    nodeid: str
    cls: str
    outcome: str


class FaultCollector:
    """A pytest plugin: the `fault` markers of the selected tests, and how each test ended
    (``passed``, ``failed``, ``xfailed`` or ``skipped``)."""

    def __init__(self) -> None:
        self.marks: list[Mark] = []
        self.problems: list[str] = []
        self.ended: dict[str, str] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:  # after `-m fault` deselected the others
            seen: set[tuple[str, str]] = set()
            for marker in item.iter_markers("fault"):
                args = tuple(str(a) for a in marker.args)
                if len(args) != 2 or marker.kwargs:
                    self.problems.append(f"{item.nodeid}: fault{marker.args}: needs (cls, outcome)")
                    continue
                if args[0] not in CLASSES:
                    self.problems.append(f"{item.nodeid}: unknown fault class {args[0]!r}")
                if args[1] not in OUTCOMES:
                    self.problems.append(f"{item.nodeid}: unknown outcome {args[1]!r}")
                if (args[0], args[1]) not in seen:
                    seen.add((args[0], args[1]))
                    self.marks.append(Mark(item.nodeid, args[0], args[1]))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.ended.get(report.nodeid) == "failed":
            return  # a failed setup or call stays failed whatever the teardown does
        xfailed = report.skipped and hasattr(report, "wasxfail")
        if report.failed:
            self.ended[report.nodeid] = "failed"  # a strict xfail that passed is failed too
        elif xfailed:
            self.ended[report.nodeid] = "xfailed"
        elif report.when == "call":
            self.ended[report.nodeid] = "passed" if report.passed else "skipped"
        elif report.when == "setup" and report.skipped:
            self.ended[report.nodeid] = "skipped"


def collect(*, run: bool, quiet: bool = False) -> tuple[FaultCollector, int]:
    """Collect (and with ``run``, run) the marked tests of the suite; pytest's exit code."""
    collector = FaultCollector()
    args = ["-m", "fault", "-p", "no:randomly", "-q", str(ROOT / "tests")]
    if not run:
        args.insert(0, "--collect-only")
    os.chdir(ROOT)
    out = io.StringIO() if quiet else sys.stdout
    with contextlib.redirect_stdout(out):
        code = pytest.main(args, plugins=[collector])
    return collector, int(code)


def table(marks: Sequence[Mark], ended: dict[str, str]) -> str:
    """The Markdown table of the classes, before (issue 35's figures) and after (``marks``
    with how their tests ended)."""
    head = [
        "fault class",
        "cases",
        *OUTCOMES,
        "still wrong",
        "before: cases",
        "silent",
        "crash",
        "hang",
    ]
    rows = [head, ["---"] * len(head)]
    total = [0] * (len(head) - 1)
    for key, fault in CLASSES.items():
        mine = [m for m in marks if m.cls == key]
        passed = [m for m in mine if ended.get(m.nodeid) == "passed"]
        wrong = [m for m in mine if ended.get(m.nodeid) in ("failed", "xfailed")]
        counts = [
            len(mine),
            *(sum(m.outcome == o for m in passed) for o in OUTCOMES),
            len(wrong),
            fault.cases,
            fault.silent,
            fault.crash,
            fault.hang,
        ]
        total = [t + c for t, c in zip(total, counts, strict=True)]
        rows.append([f"{fault.description} (`{key}`)", *map(str, counts)])
    rows.append(["**total**", *(f"**{t}**" for t in total)])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def notes(marks: Sequence[Mark], ended: dict[str, str]) -> list[str]:
    """Lines under the table: the tests still wrong, those that did not run."""
    lines = [
        "cases: marked tests (one per parameter; a test may check several inputs); before: "
        "issue 35's report"
    ]
    for state, says in (
        ("failed", "still wrong (fails)"),
        ("xfailed", "still wrong (expected to fail)"),
        ("skipped", "not run (skipped)"),
    ):
        nodes = sorted({m.nodeid for m in marks if ended.get(m.nodeid, "skipped") == state})
        lines += [f"{says}: {node}" for node in nodes]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--collect-only",
        action="store_true",
        help="print the marked cases as JSON (nodeid, class, outcome); run nothing",
    )
    options = parser.parse_args(argv)
    collector, code = collect(run=not options.collect_only, quiet=options.collect_only)
    if options.collect_only:
        marks = [list(m) for m in collector.marks]
        print(json.dumps({"marks": marks, "problems": collector.problems, "pytest": code}))
        return 2 if collector.problems or code not in (0, 1) else 0
    print()
    print(table(collector.marks, collector.ended))
    print()
    print("\n".join(notes(collector.marks, collector.ended)))
    for problem in collector.problems:
        print(f"marker problem: {problem}", file=sys.stderr)
    if collector.problems or code not in (0, 1):
        return 2
    wrong = any(collector.ended.get(m.nodeid) in ("failed", "xfailed") for m in collector.marks)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
