"""How long the suite takes to refuse a text too long to read, against reading a normal one.

A summary of ``--megabytes`` MB (50 by default: the size that made BooookScore's score-only
run exhaust 22 GB of memory, and LongFormFact produce no result in 300 s, before the limit
existed) is written into a score-only summaries file and a LongFormFact file, each beside a
file of the same shape holding a normal summary. Each file is then read by the task that takes
it (``booookscore(score_only=True)``, ``longformfact``), and the seconds to the refusal are
printed with their ratio to the seconds to load the normal file, measured in the same run.

    python benchmarks/text_limits.py [--megabytes 50]

The limit is ``LONGFORM_MAX_TEXT_CHARS`` (default 10,000,000 characters).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from longform_evals.data.jsonl import DataError, max_text_chars
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.longformfact import longformfact

NORMAL = "The keeper counted the ships. She wrote each one in a ledger. " * 10
SENTENCE = "The keeper counted the ships again. "


def _summaries(summary: str) -> list[dict[str, Any]]:
    return [{"id": "s1", "summary": summary}]


def _longformfact(summary: str) -> list[dict[str, Any]]:
    document = "The keeper counted ships. She wrote each one in a ledger. " * 20
    return [{"documents": [document], "summary": summary, "faithfulness": 1}]


CASES: dict[str, tuple[Callable[[str], list[dict[str, Any]]], str, Callable[[Path], Any]]] = {
    "booookscore score_only": (
        _summaries,
        "summaries.jsonl",
        lambda p: booookscore(score_only=True, data=str(p)),
    ),
    "longformfact": (
        _longformfact,
        "qmsum.jsonl",
        lambda p: longformfact(data_dir=str(p.parent)),
    ),
}


def _write(folder: Path, name: str, rows: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _timed(build: Callable[[Path], Any], path: Path) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        build(path)
        outcome = "loaded"
    except DataError as exc:
        outcome = f"refused: {str(exc).split(': ', 1)[-1][:90]}"
    return time.perf_counter() - start, outcome


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--megabytes", type=float, default=50.0)
    args = parser.parse_args(argv)
    huge = SENTENCE * int(args.megabytes * 1_000_000 / len(SENTENCE))
    print(f"\nsummary of {len(huge):,} characters; limit {max_text_chars():,}\n")
    print("| task | normal file: seconds | huge file: seconds | ratio | huge file |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, (rows, name, build) in CASES.items():
            normal = _write(Path(tmp) / label / "normal", name, rows(NORMAL))
            big = _write(Path(tmp) / label / "huge", name, rows(huge))
            base, _ = _timed(build, normal)
            seconds, outcome = _timed(build, big)
            print(f"| {label} | {base:.3f} | {seconds:.3f} | {seconds / base:.1f}x | {outcome} |")


if __name__ == "__main__":
    main()
