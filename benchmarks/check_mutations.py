"""Mutation score of the behaviour checks: plant realistic bugs one at a time and see which
checks of `longform check` (replayed judge) catch each.

Each mutation is a one-place text edit of the package source. The script copies `src/` to a
scratch folder per mutation, applies the edit there (refusing when the text to replace is not
found exactly once, so a stale mutation never passes as "not caught"), runs
`python -m longform_evals.cli check --junit` against the copy, and reads the failed checks
from the JUnit file. A first run on the unmutated copy is the baseline: every check must pass.

    python benchmarks/check_mutations.py [--only NAME ...] [--metric METRIC ...]

`--metric` limits the checks run to those metrics (`longform check --only`), for a quick run.

Prints a markdown table: mutation, checks that failed (errors marked), caught or not.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str
    """Path under `src/longform_evals/`."""
    old: str
    new: str
    bug: str


MUTATIONS = [
    Mutation(
        "max_min_swapped",
        "analysis/reduce.py",
        'if merge == "max":\n        out = np.where(readable, x, -np.inf).max(axis=axis)\n'
        '    elif merge == "min":\n        out = np.where(readable, x, np.inf).min(axis=axis)',
        'if merge == "min":\n        out = np.where(readable, x, -np.inf).max(axis=axis)\n'
        '    elif merge == "max":\n        out = np.where(readable, x, np.inf).min(axis=axis)',
        "max and min swapped in the NaN-aware reduction every aggregation uses",
    ),
    Mutation(
        "probe_reads_no_confusion",
        "judges/coherence/probe.py",
        "verdict.types = [p.error_type for p, s in active_signals if s >= "
        "thresholds[p.name].threshold]",
        "verdict.types = []",
        "BooookScore's probe reading takes every answer as 'no confusion'",
    ),
    Mutation(
        "sentence_parser_reads_no_confusion",
        "judges/coherence/parse.py",
        'raise JudgementParseError("the Types line names no error type")\n'
        "    return Judgement(confused=True, questions=questions, types=types)",
        'raise JudgementParseError("the Types line names no error type")\n'
        "    return Judgement(confused=False)",
        "BooookScore's sentence-mode parser takes every answer as 'no confusion'",
    ),
    Mutation(
        "threshold_inverted",
        "judges/coherence/probe.py",
        "if s >= thresholds[p.name].threshold]",
        "if s < thresholds[p.name].threshold]",
        "a calibrated probe threshold inverted (flag below it instead of at or above)",
    ),
    Mutation(
        "splitter_never_breaks",
        "text/sentences.py",
        "return _breaks_at(text)",
        "return False",
        "the sentence splitter reads every Punkt decision as 'no break' at a full stop, "
        "merging a summary's sentences",
    ),
    Mutation(
        "permissive_prompt_for_lr1",
        "judges/raters/rating.py",
        'templates = {r: load_prompt("raters", r, settings.prompts_dir) for r in RATERS}',
        'templates = {r: load_prompt("raters", "permissive", settings.prompts_dir) '
        "for r in RATERS}",
        "the permissive rater's prompt used for the strict rater (LR-1)",
    ),
    Mutation(
        "documents_reversed_for_judge",
        "judges/faithfulness/judging.py",
        "units = chunk_documents([documents[i] for i in kept], judge.chunking)",
        "units = chunk_documents([documents[i] for i in kept][::-1], judge.chunking)",
        "documents fed to the faithfulness judge in reverse order (rows credited in the "
        "original order)",
    ),
]


def failed_checks(junit: Path) -> list[str]:
    """`metric/name` of every failed or erroring test case, errors marked `(error)`."""
    out = []
    for suite in ET.parse(junit).getroot().iter("testsuite"):
        for case in suite.iter("testcase"):
            if case.find("error") is not None:
                out.append(f"{suite.get('name')}/{case.get('name')} (error)")
            elif case.find("failure") is not None:
                out.append(f"{suite.get('name')}/{case.get('name')}")
    return out


def run_check(src: Path, junit: Path, metrics: list[str]) -> tuple[int, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    only = [arg for metric in metrics for arg in ("--only", metric)]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "longform_evals.cli", "check", "--junit", str(junit), *only],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if not junit.exists():
        raise RuntimeError(f"longform check wrote no report:\n{done.stdout}\n{done.stderr}")
    return done.returncode, time.perf_counter() - started


def mutated_copy(scratch: Path, mutation: Mutation | None) -> Path:
    src = scratch / "src"
    shutil.copytree(REPO / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    if mutation is not None:
        path = src / "longform_evals" / mutation.file
        text = path.read_text(encoding="utf-8")
        if text.count(mutation.old) != 1:
            raise SystemExit(f"{mutation.name}: the text to replace is not in {path} once")
        path.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    return src


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutation names (default: all)")
    parser.add_argument("--metric", nargs="*", default=[], help="check only these metrics")
    args = parser.parse_args()
    unknown = set(args.only or ()) - {m.name for m in MUTATIONS}
    if unknown:
        raise SystemExit(f"unknown mutation(s) {sorted(unknown)}")
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base_dir = Path(tmp) / "baseline"
        base_dir.mkdir()
        code, seconds = run_check(mutated_copy(base_dir, None), base_dir / "junit.xml", args.metric)
        baseline = failed_checks(base_dir / "junit.xml")
        print(f"baseline: exit {code}, {len(baseline)} failed, {seconds:.0f} s", flush=True)
        if baseline:
            raise SystemExit(f"the unmutated checks fail: {baseline}")
        for mutation in chosen:
            scratch = Path(tmp) / mutation.name
            scratch.mkdir()
            code, seconds = run_check(
                mutated_copy(scratch, mutation), scratch / "junit.xml", args.metric
            )
            failed = failed_checks(scratch / "junit.xml")
            rows.append((mutation, failed))
            print(f"{mutation.name}: {len(failed)} failed, {seconds:.0f} s", flush=True)
    print()
    print("| mutation | planted bug | checks that fail | caught |")
    print("|---|---|---|---|")
    for mutation, failed in rows:
        caught = "yes" if failed else "**no**"
        print(f"| {mutation.name} | {mutation.bug} | {', '.join(failed) or '-'} | {caught} |")
    print()
    print(f"{sum(bool(f) for _, f in rows)} of {len(rows)} mutations caught")


if __name__ == "__main__":
    main()
