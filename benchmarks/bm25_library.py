"""The library BM25 (`text/bm25.py`, by `bm25s`) against the hand-written index it replaced.

The hand-written index is read from git at the commit before the swap (``--baseline``), so
both run in the same process on the same input: the source units (``words:400``, the judge's
default chunking) and the summary sentences of the shared development sets, LongSciVerify's
reviewed summaries and the LongFormFact rows. For every sentence it compares the units each
index ranks first (top 1, 2, 3: the judges' ``bm25:K`` retrieval) and the scores, and times
building the index and ranking every sentence, as a ratio against the hand-written one.

    python benchmarks/bm25_library.py [--data ../shared/data] [--baseline 213e79b]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_evals.data.labels.longformfact import load_longformfact_labels
from longform_evals.data.labels.longsciverify import load_longsciverify
from longform_evals.text.bm25 import BM25
from longform_evals.text.documents import chunk_documents

REPO = Path(__file__).resolve().parents[1]
OLD_PATH = "src/longform_evals/text/bm25.py"
DEFAULT_BASELINE = "213e79b"
"""The last commit with the hand-written index."""


def _old_bm25(commit: str) -> type:
    """The `BM25` class of ``text/bm25.py`` at ``commit``, loaded as a throwaway module."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{OLD_PATH}"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("bm25_baseline")
    exec(compile(source, f"{commit}:{OLD_PATH}", "exec"), module.__dict__)
    return module.BM25  # type: ignore[no-any-return]


def _cases(data: Path) -> list[tuple[str, list[str], list[str]]]:
    """(set, units, sentences) per summary with a source document."""
    cases = []
    sets: list[tuple[str, Callable[[Path], Any], Path]] = [
        ("longsciverify", load_longsciverify, data / "human_labels" / "longsciverify"),
        ("longformfact", load_longformfact_labels, data / "longformfact"),
    ]
    for name, load, path in sets:
        if not path.exists():
            print(f"{path} not found: {name} left out", file=sys.stderr)
            continue
        target = path if name == "longsciverify" else next(path.glob("*.jsonl"))
        for sample in load(target).samples:
            meta = sample.metadata or {}
            if not meta.get("document"):
                continue
            units = [c.text for c in chunk_documents([meta["document"]], "words:400")]
            cases.append((name, units, list(meta["summary_sentences"])))
    return cases


def _timed(index_class: type, cases: list[tuple[str, list[str], list[str]]]) -> float:
    start = time.perf_counter()
    for _, units, sentences in cases:
        index = index_class(units)
        for sentence in sentences:
            index.top(sentence, 3)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="commit of the old index")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    old_class = _old_bm25(args.baseline)
    cases = _cases(args.data)
    if not cases:
        sys.exit(f"no development data under {args.data}")
    print("set | summaries | sentences | units/summary | same top-1 | same top-2 | same top-3")
    print("---|---|---|---|---|---|---")
    worst = 0.0
    for name in sorted({c[0] for c in cases}):
        mine = [c for c in cases if c[0] == name]
        same = {k: 0 for k in (1, 2, 3)}
        sentences = 0
        for _, units, statements in mine:
            new, old = BM25(units), old_class(units)
            for statement in statements:
                sentences += 1
                a, b = new.scores(statement), old.scores(statement)
                worst = max(
                    [worst, *(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(a, b, strict=True))]
                )
                for k in same:
                    same[k] += new.top(statement, k) == old.top(statement, k)
        units_each = statistics.mean(len(c[1]) for c in mine)
        print(
            f"{name} | {len(mine)} | {sentences} | {units_each:.1f} | "
            + " | ".join(f"{same[k]}/{sentences}" for k in (1, 2, 3))
        )
    print(f"\nlargest relative score difference: {worst:.2e}")
    old_times = [_timed(old_class, cases) for _ in range(args.repeats)]
    new_times = [_timed(BM25, cases) for _ in range(args.repeats)]
    old_s, new_s = min(old_times), min(new_times)
    print(
        f"index + rank every sentence (best of {args.repeats}): "
        f"hand-written {old_s * 1000:.1f} ms, bm25s {new_s * 1000:.1f} ms: "
        f"{new_s / old_s:.2f}x the hand-written time"
    )


if __name__ == "__main__":
    main()
