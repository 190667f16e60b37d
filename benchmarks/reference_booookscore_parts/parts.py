"""The three parts of the comparison (chunks, summarizing, scoring), each side on a fresh
server per measured run."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import reference_env
from longform_evals.data.books import load_books
from longform_evals.text import chunk_text

from .common import STRATEGIES, Endpoint, Options, Run, book_path, served
from .official import run_official_scorer, run_official_summarizer
from .suite import judge_summaries, run_suite_scorer, run_suite_summarizer
from .verdicts import Agreement, compare


@dataclass
class SummaryScoring:
    """Every scoring run on one summary and the agreements of the pairs."""

    summary_id: str
    runs: list[Run]
    agreements: list[Agreement]


# Pairs compared: (official run, suite run, same prompt on both sides).
PAIRS = (
    ("official v1 (per sentence)", "suite sentence", False),
    ("official v1 (per sentence)", "suite sentence, official prompt", True),
    ("official v2 (batched)", "suite batched", False),
    ("official v2 (batched)", "suite batched, official prompt", True),
)


SCORING_STEPS = (
    "official v1",
    "suite sentence",
    "suite official prompt",
    "official v2",
    "suite batched",
    "suite batched official prompt",
)


def scoring_step(
    step: str,
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    options: Options,
    prompts: Mapping[str, Path],
    summary_id: str,
    summary: str,
    work: Path,
) -> Run:
    """One of SCORING_STEPS on one summary."""
    if step.startswith("official"):
        v2 = step == "official v2"
        template = prompts["v2" if v2 else "v1"]
        return run_official_scorer(env, endpoint, options, template, summary_id, summary, v2, work)
    if step in ("suite official prompt", "suite batched official prompt"):
        batched = step.startswith("suite batched")
        official = prompts["v2" if batched else "v1"].read_text(encoding="utf-8")
        mode = "batched" if batched else "sentence"
        return run_suite_scorer(
            endpoint, options, summary_id, summary, mode, work, official_template=official
        )
    return run_suite_scorer(endpoint, options, summary_id, summary, step.split()[-1], work)


def scoring_part(
    env: reference_env.ReferenceEnv,
    options: Options,
    prompts: Mapping[str, Path],
    summaries: Mapping[str, str],
    work: Path,
    log: Callable[[str], None] = print,
) -> list[SummaryScoring]:
    results = []
    for summary_id, summary in summaries.items():
        runs: dict[str, Run] = {}
        for step in SCORING_STEPS:
            log(f"[scoring {summary_id}] {step} ...")
            where = work / "scoring" / summary_id / step.replace(" ", "-")
            with served(options) as endpoint:
                run = scoring_step(
                    step, env, endpoint, options, prompts, summary_id, summary, where
                )
            runs[run.name] = run
            log(f"[scoring {summary_id}] {step}: {run.seconds:.1f} s, {run.usage.calls} calls")
        agreements = [
            compare(f"{a} / {b}", summary, runs[a].verdicts, runs[b].verdicts, same)
            for a, b, same in PAIRS
        ]
        results.append(SummaryScoring(summary_id, list(runs.values()), agreements))
    return results


@dataclass
class Summarizing:
    book: str
    runs: list[Run]
    judge_seconds: float = math.nan
    parse_failure_rates: dict[str, float] = field(default_factory=dict)


def summarizing_part(
    env: reference_env.ReferenceEnv,
    options: Options,
    prompts: Mapping[str, Path],
    work: Path,
    log: Callable[[str], None] = print,
) -> Summarizing:
    path = book_path(options.book)
    [sample] = load_books(path)
    text = str((sample.metadata or {})["document"])  # what the suite's summarizers read
    runs = []
    for strategy in STRATEGIES:
        for side in ("official", "suite"):
            log(f"[summarizing] {side} {strategy} ...")
            where = work / "summarizing" / f"{side}-{strategy}"
            with served(options) as endpoint:
                if side == "official":
                    run = run_official_summarizer(
                        env, endpoint, options, prompts, text, strategy, where
                    )
                else:
                    run = run_suite_summarizer(endpoint, options, path, strategy, where)
            runs.append(run)
            log(f"[summarizing] {run.name}: {run.seconds:.1f} s, {run.usage.calls} calls")
    result = Summarizing(path.stem, runs)
    produced = {r.name.replace(" ", "-"): r.summary for r in runs if r.summary.strip()}
    if produced:
        log("[summarizing] judging the summaries (suite sentence mode) ...")
        with served(options) as endpoint:
            scores, failures, seconds = judge_summaries(endpoint, options, produced, work / "judge")
        for run in runs:
            run.booookscore = scores.get(run.name.replace(" ", "-"), math.nan)
        result.judge_seconds, result.parse_failure_rates = seconds, failures
    return result


# process_books reads the module-global `args` its __main__ sets (reference_env.NOT_PATCHED).
_CHUNKS = """
import json, sys
from argparse import Namespace
import booookscore.chunk as chunk
chunk.args = Namespace(include_empty_lines=False)
books = json.load(open(sys.argv[1]))
out = {size: chunk.process_books(books, int(size), f"{sys.argv[2]}-{size}.pkl")
       for size in sys.argv[3:]}
json.dump(out, open(sys.argv[2], "w"))
"""


@dataclass(frozen=True)
class ChunkRow:
    book: str
    size: int
    official: int
    suite: int
    difference: str  # empty when the boundaries are equal

    @property
    def equal(self) -> bool:
        return not self.difference


def non_empty_lines(text: str) -> str:
    """A chunk as process_books joins it: its non-empty lines, joined by newlines."""
    return "\n".join(line for line in text.split("\n") if len(line) > 0)


def first_difference(ours: Sequence[str], theirs: Sequence[str]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            at = next(
                (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)),
            )
            near = slice(max(0, at - 40), at + 40)
            return f"chunk {i} differs at character {at}: suite {a[near]!r}, official {b[near]!r}"
    if len(ours) != len(theirs):
        return f"suite has {len(ours)} chunks, official {len(theirs)}"
    return ""


def chunks_part(
    env: reference_env.ReferenceEnv, sizes: Sequence[int], work: Path
) -> list[ChunkRow]:
    books = {str(s.id): str((s.metadata or {})["document"]) for s in load_books()}
    work.mkdir(parents=True, exist_ok=True)
    source, out = work / "books.json", work / "chunks.json"
    source.write_text(json.dumps(books))
    env.run(_CHUNKS, args=[str(source), str(out), *map(str, sizes)])
    official = json.loads(out.read_text())
    rows = []
    for size in sizes:
        for book, text in books.items():
            ours = [non_empty_lines(c.text) for c in chunk_text(text, size)]
            theirs = official[str(size)][book]
            rows.append(
                ChunkRow(book, size, len(theirs), len(ours), first_difference(ours, theirs))
            )
    return rows
