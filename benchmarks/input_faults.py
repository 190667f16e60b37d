"""Generated bad (and valid but unusual) inputs, by class: how each one ends, before and after.

Every module of ``benchmarks/fault_cases/`` generates the cases of one class (loaders, plans,
outputs, verdicts, bounds, markers, interrupted runs, ...): seeded, so the list is the same on
every run, and written for this benchmark, not taken from an issue's examples. Each case runs in
a worker process, one case after another, in an empty scratch folder; the parent gives it the
case's time and ends as (see ``fault_cases/_case.py``):

* ``error``, ``counted``, ``loaded``: right (a clear refusal, a counted item, a valid input read);
* ``silent``: a bad input accepted or misread, or a valid input refused;
* ``crash``: a traceback, a raw OS error, out of memory, a worker that died;
* ``hang``: no ending in the case's time (the worker is killed, the next case starts afresh).

With ``--baseline REV`` the same cases also run against the package as it was at git revision
REV (a temporary worktree first on the workers' ``PYTHONPATH``), and the table shows both.
Workers get an address-space limit (``--memory-gb``, default 6) so a runaway case ends as a
``MemoryError`` instead of exhausting the machine.

    python benchmarks/input_faults.py                       # every class, the package as it is
    python benchmarks/input_faults.py --classes loaders,plans --baseline 4e4c801 --out f.json
    python benchmarks/input_faults.py --list                # the classes and their case counts

Exit status 1 when a case ends silent, crash or hang in the package as it is.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fault_cases._case import ENDINGS, OUTCOMES, Case  # noqa: E402
from plan_at_scale import baseline_tree  # noqa: E402

BAD = ("silent", "crash", "hang")


def class_modules() -> dict[str, str]:
    """Class name -> module name, for every case module of fault_cases/."""
    import fault_cases

    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(fault_cases.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"fault_cases.{info.name}")
        found[str(module.CLASS)] = info.name
    return dict(sorted(found.items()))


def case_module(name: str) -> ModuleType:
    """A module of fault_cases/ by its name, or any importable module by its dotted name."""
    return importlib.import_module(name if "." in name else f"fault_cases.{name}")


def load_cases(module_name: str) -> list[Case]:
    return list(case_module(module_name).cases())


# --- the worker: runs cases from a start index, one JSON line per case ----------------------


def limit_memory(gigabytes: float) -> None:
    import resource

    cap = int(gigabytes * 1024**3)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run_one(case: Case) -> tuple[str, str]:
    scratch = Path(tempfile.mkdtemp(prefix="fault-"))
    try:
        ended = case.run(scratch)
        if ended not in ENDINGS:
            return "crash", f"the case returned {ended!r}, not one of {ENDINGS}"
        return ended, ""
    except BaseException as exc:  # a crash of any kind is this benchmark's finding
        where = traceback.extract_tb(exc.__traceback__)[-1:]
        place = f" at {Path(where[0].filename).name}:{where[0].lineno}" if where else ""
        return "crash", f"{type(exc).__name__}: {str(exc)[:200]}{place}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def worker(module_name: str, start: int, memory_gb: float) -> int:
    limit_memory(memory_gb)
    cases = load_cases(module_name)
    for index in range(start, len(cases)):
        print(json.dumps({"start": index}), flush=True)
        outcome, detail = run_one(cases[index])
        print(json.dumps({"index": index, "outcome": outcome, "detail": detail}), flush=True)
    return 0


# --- the parent: one worker at a time per class, restarted after a crash or a hang ----------


@dataclass
class Ending:
    case: str
    outcome: str
    detail: str = ""
    seconds: float = 0.0


@dataclass
class ClassRun:
    name: str
    description: str
    endings: list[Ending] = field(default_factory=list)

    def counts(self) -> Counter[str]:
        return Counter(e.outcome for e in self.endings)


def _reader(stream, lines: queue.Queue[str | None]) -> None:  # type: ignore[no-untyped-def]
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_class(module_name: str, src: Path | None, memory_gb: float) -> ClassRun:
    cases = load_cases(module_name)
    module = case_module(module_name)
    result = ClassRun(str(module.CLASS), str(module.DESCRIPTION))
    env = dict(os.environ)
    env.setdefault("INSPECT_DISPLAY", "none")
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
    index = 0
    while index < len(cases):
        index = _run_from(module_name, cases, index, env, memory_gb, result)
    return result


def _run_from(
    module_name: str,
    cases: list[Case],
    start: int,
    env: dict[str, str],
    memory_gb: float,
    result: ClassRun,
) -> int:
    """Start a worker at case ``start``; return the index to go on from when it stops."""
    command = [sys.executable, str(Path(__file__)), "--worker", module_name, str(start)]
    command += ["--memory-gb", str(memory_gb)]
    proc = subprocess.Popen(
        command,
        cwd=tempfile.gettempdir(),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    errors: list[str] = []
    threading.Thread(target=lambda: errors.extend(proc.stderr or []), daemon=True).start()
    current, began = start, time.monotonic()
    while True:
        wait = cases[current].timeout - (time.monotonic() - began) if current < len(cases) else 5
        try:
            line = lines.get(timeout=max(wait, 0.01))
        except queue.Empty:
            _kill(proc)
            limit = f"> {cases[current].timeout:g} s"
            result.endings.append(Ending(cases[current].name, "hang", limit))
            return current + 1
        if line is None:  # the worker ended
            proc.wait()
            if current >= len(cases):
                return current
            tail = "".join(errors).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            died = f"worker died: {tail[0][:200]}"
            result.endings.append(Ending(cases[current].name, "crash", died))
            return current + 1
        if not line.startswith("{"):
            continue  # a case's own printing
        record = json.loads(line)
        if "start" in record:
            current, began = record["start"], time.monotonic()
            continue
        case = cases[record["index"]]
        result.endings.append(
            Ending(case.name, record["outcome"], record["detail"], time.monotonic() - began)
        )
        current = record["index"] + 1
        began = time.monotonic()


def _kill(proc: subprocess.Popen[str]) -> None:
    import signal

    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@contextmanager
def baseline_src(revision: str | None) -> Iterator[Path | None]:
    """The ``src`` folder of a worktree at ``revision`` (plan_at_scale's), or None."""
    with baseline_tree(revision) as tree:
        yield None if tree is None else tree / "src"


# --- the report ------------------------------------------------------------------------------


def table(now: list[ClassRun], before: list[ClassRun] | None) -> str:
    """One row per class and a total; with a baseline each cell reads "before -> now"."""
    olds = {r.name: r.counts() for r in before or []}
    head = ["class", "cases", *OUTCOMES]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    totals: Counter[str] = Counter()
    old_totals: Counter[str] = Counter()
    for run in now:
        counts = run.counts()
        totals.update(counts)
        old_totals.update(olds.get(run.name, Counter()))
        cells = [_cell(olds.get(run.name), counts, o) for o in OUTCOMES]
        rows.append("| " + " | ".join([run.name, str(len(run.endings)), *cells]) + " |")
    cases = str(sum(len(r.endings) for r in now))
    cells = [_cell(old_totals if before else None, totals, o) for o in OUTCOMES]
    rows.append("| " + " | ".join(["**all**", cases, *cells]) + " |")
    return "\n".join(rows)


def _cell(old: Counter[str] | None, now: Counter[str], outcome: str) -> str:
    return str(now[outcome]) if old is None else f"{old[outcome]} → {now[outcome]}"


def wrong(now: list[ClassRun]) -> list[str]:
    return [
        f"{run.name}/{e.case}: {e.outcome} {e.detail}".rstrip()
        for run in now
        for e in run.endings
        if e.outcome in BAD
    ]


def as_json(runs: list[ClassRun]) -> list[dict[str, object]]:
    return [
        {
            "class": r.name,
            "description": r.description,
            "endings": [e.__dict__ for e in r.endings],
        }
        for r in runs
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--classes", default="", help="comma-separated class names (all if empty)")
    parser.add_argument("--baseline", default=None, help="git revision to compare with")
    parser.add_argument("--memory-gb", type=float, default=6.0)
    parser.add_argument("--out", default=None, help="write every case's ending here (JSON)")
    parser.add_argument("--list", action="store_true", help="list the classes and stop")
    parser.add_argument("--worker", nargs=2, metavar=("MODULE", "START"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.memory_gb)
    modules = class_modules()
    picked = [c for c in args.classes.split(",") if c] or list(modules)
    unknown = [c for c in picked if c not in modules]
    if unknown:
        parser.error(f"unknown class(es) {', '.join(unknown)}; known: {', '.join(modules)}")
    if args.list:
        for name in picked:
            print(f"{name}\t{len(load_cases(modules[name]))}")
        return 0
    before: list[ClassRun] | None = None
    with baseline_src(args.baseline) as old_src:
        if old_src is not None:
            before = [run_class(modules[c], old_src, args.memory_gb) for c in picked]
    now = [run_class(modules[c], None, args.memory_gb) for c in picked]
    print(table(now, before))
    problems = wrong(now)
    for line in problems:
        print(f"- {line}")
    if args.out:
        report = {"now": as_json(now), "before": as_json(before) if before else None}
        report["baseline"] = args.baseline
        Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
