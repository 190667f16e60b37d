"""Time and peak memory of judging a summary against its number of sentences, up to the limits.

Each run scores one summary of N short sentences with a scripted judge (`scripted/...`, no real
model): BooookScore in `sentence`, `batched` and `probe` mode (score-only, `booookscore` task)
and the faithfulness scorer of `longformfact` (one short source document). Every run is its own
process, under `ulimit -v` (`--memory-gb`, 6 by default), so that a run that explodes cannot
take the machine with it; its wall seconds and peak resident memory (`ru_maxrss`) are printed
with the judge calls it made. The last row of each judge is a summary just over the work
limits: it must be refused, before any judge call, in well under a second of judging.

    python benchmarks/work_bounds.py [--sentences 100,250,500,1000,2000] [--judges sentence,probe]

The limits are `longform_evals.text.work_limits` (docs/running.md, "Work per sample").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

JUDGES = ("sentence", "batched", "probe", "longformfact")
DOCUMENT = "The keeper counted the ships in the harbour. She wrote each one in a ledger. " * 5


def summary_of(n: int) -> str:
    """N short, distinct sentences (about 32 characters each)."""
    return " ".join(f"The keeper counted ship {i}." for i in range(n))


def _batched_answer(text: str, _: int) -> str:
    block = text.rsplit("<sentences>", 1)[-1]
    count = sum(1 for line in block.splitlines() if line[:1].isdigit())
    return json.dumps([{"sentence": n, "confusion": False} for n in range(1, count + 1)])


def _rules(judge: str) -> list[dict[str, Any]]:
    if judge == "sentence":
        return [{"pattern": "Sentence to judge", "response": "No confusion."}]
    if judge == "batched":
        return [{"pattern": "<sentences>", "response": _batched_answer}]
    return [{"pattern": ".", "response": "No", "top_logprobs": {"No": -0.05, "Yes": -3.0}}]


def _task(judge: str, folder: Path, n: int) -> Any:
    if judge == "longformfact":
        from longform_evals.tasks.longformfact import longformfact

        row = {"documents": [DOCUMENT], "summary": summary_of(n), "faithfulness": 1}
        (folder / "qmsum.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
        return longformfact(data_dir=str(folder), include_full=False)
    from longform_evals.tasks.booookscore import booookscore

    path = folder / "summaries.jsonl"
    path.write_text(json.dumps({"id": "s", "summary": summary_of(n)}) + "\n", encoding="utf-8")
    return booookscore(score_only=True, data=str(path), judge_mode=judge, judge_cache=False)


def one(judge: str, n: int) -> dict[str, Any]:
    """Score one summary of ``n`` sentences in this process; what it cost and how it ended."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    scorer = "faithfulness" if judge == "longformfact" else "booookscore"
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        task = _task(judge, Path(tmp), n)
        model = get_model(f"scripted/bounds-{judge}", rules=_rules(judge), memoize=False)
        [log] = inspect_eval(task, model=model, log_dir=tmp, display="none")
        seconds = time.perf_counter() - start
        outcome: str = log.status
        calls = float("nan")
        if log.status == "success" and log.samples and log.samples[0].scores:
            score = log.samples[0].scores[scorer]
            value = score.value if isinstance(score.value, dict) else {}
            calls = float(value.get("judge_calls", float("nan")))
            outcome = "refused" if (score.metadata or {}).get("over_limit") else "scored"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak, "calls": calls, "outcome": outcome}


def _child(judge: str, n: int, memory_gb: float, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--one", judge, str(n)]
    limit = int(memory_gb * 1024 * 1024)
    shell = f"ulimit -v {limit}; exec " + " ".join(cmd)
    env = {**os.environ, "INSPECT_DISPLAY": "none"}
    start = time.perf_counter()
    try:
        done = subprocess.run(
            ["bash", "-c", shell], capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return {
            "seconds": timeout,
            "peak_mb": float("nan"),
            "calls": float("nan"),
            "outcome": "hang",
        }
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1][:60]
        return {
            "seconds": time.perf_counter() - start,
            "peak_mb": float("nan"),
            "calls": float("nan"),
            "outcome": f"crash rc={done.returncode}: {tail}",
        }
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def over_limit_sentences() -> int:
    """Sentences of a summary just over the sentence limit."""
    from longform_evals.text.work_limits import work_limits

    return work_limits().max_sentences + 1


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sentences", default="100,250,500,1000,2000")
    parser.add_argument("--judges", default=",".join(JUDGES))
    parser.add_argument("--memory-gb", type=float, default=6.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--one", nargs=2, metavar=("JUDGE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return
    sizes = [int(s) for s in args.sentences.split(",") if s]
    print("| judge | sentences | characters | judge calls | seconds | peak MB | outcome |")
    print("|---|---|---|---|---|---|---|")
    for judge in args.judges.split(","):
        for n in [*sizes, over_limit_sentences()]:
            r = _child(judge, n, args.memory_gb, args.timeout)
            print(
                f"| {judge} | {n:,} | {len(summary_of(n)):,} | {r['calls']:.0f} | "
                f"{r['seconds']:.2f} | {r['peak_mb']:.0f} | {r['outcome']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
