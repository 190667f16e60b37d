"""The report: one table per part, and the issue's targets marked met or not."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .common import STRATEGIES
from .parts import PAIRS, ChunkRow, Summarizing, SummaryScoring


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return "nan" if math.isnan(value) else f"{value:.2f}"
        return str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def ratio(slow: float, fast: float) -> float:
    return slow / fast if fast > 0 else math.nan


@dataclass(frozen=True)
class Goal:
    name: str
    measured: str
    met: bool


def render_chunks(rows: Sequence[ChunkRow]) -> str:
    body = table(
        ["book", "chunk size", "official chunks", "suite chunks", "boundaries"],
        [(r.book, r.size, r.official, r.suite, "equal" if r.equal else r.difference) for r in rows],
    )
    return "== chunks: official process_books vs the suite's chunk_text\n" + body


SCORING_RUN_COLUMNS = (
    "run",
    "sentences",
    "read",
    "flagged",
    "BooookScore",
    "judge calls",
    "prompt tokens sent",
    "processed",
    "output tokens",
    "wall s",
)
SCORING_PAIR_COLUMNS = (
    "pair (official / suite)",
    "sentences split alike",
    "split differs",
    "both read",
    "agree",
    "agreement %",
    "agreement % of both read",
    "same first answer",
    "score difference",
    "speed (official / suite wall)",
)


def scoring_runs_table(result: SummaryScoring) -> str:
    return table(
        SCORING_RUN_COLUMNS,
        [
            (
                r.name + (f" [error: {r.error}]" if r.error else ""),
                len(r.verdicts),
                r.read,
                r.flagged,
                r.booookscore,
                r.usage.calls,
                r.usage.prompt_tokens,
                r.usage.processed_tokens,
                r.usage.output_tokens,
                r.seconds,
            )
            for r in result.runs
        ],
    )


def scoring_pairs_table(result: SummaryScoring) -> str:
    runs = {r.name: r for r in result.runs}
    return table(
        SCORING_PAIR_COLUMNS,
        [
            (
                a.pair,
                a.sentences,
                a.split_differs,
                a.both_read,
                a.agree,
                100 * a.rate,
                100 * a.rate_read,
                a.same_answers,
                runs[b].booookscore - runs[o].booookscore,
                ratio(runs[o].seconds, runs[b].seconds),
            )
            for a, (o, b, _) in zip(result.agreements, PAIRS, strict=True)
        ],
    )


def scoring_notes(result: SummaryScoring) -> list[str]:
    """Every disagreement and split difference, and what the official runs asked and skipped."""
    lines = []
    for agreement in result.agreements:
        if agreement.disagreements or agreement.split_notes:
            lines.append(f"\n{agreement.pair}: {len(agreement.disagreements)} disagreement(s)")
            lines += [f"  - {line}" for line in agreement.by_cause()]
            lines += [f"  - split differs: {n}" for n in agreement.split_notes]
    for run in result.runs:
        if run.notes.get("requested_temperatures"):
            lines.append(
                f"\n{run.name}: temperatures the code asked {run.notes['requested_temperatures']} "
                f"(sent 0); back-off sleeps skipped: {run.notes['sleeps_skipped_s']:.0f} s; "
                f"bounded loops: {run.notes['guards'] or 'none'}"
            )
    return lines


def render_scoring(result: SummaryScoring) -> str:
    lines = [f"== scoring: {result.summary_id}", scoring_runs_table(result), ""]
    lines.append(scoring_pairs_table(result))
    return "\n".join(lines + scoring_notes(result))


def render_summarizing(result: Summarizing) -> str:
    rows = []
    for r in result.runs:
        words = len(r.summary.split())
        rows.append(
            (
                r.name + (f" [error: {r.error}]" if r.error else ""),
                r.usage.calls,
                r.usage.prompt_tokens,
                r.usage.processed_tokens,
                r.usage.output_tokens,
                r.seconds,
                words,
                r.booookscore,
                result.parse_failure_rates.get(r.name.replace(" ", "-"), math.nan),
            )
        )
    lines = [
        f"== summarizing: {result.book}",
        table(
            [
                "run",
                "calls",
                "prompt tokens sent",
                "processed",
                "output tokens",
                "wall s",
                "summary words",
                "BooookScore (one judge)",
                "parse failure rate",
            ],
            rows,
        ),
        f"one judge: the suite's sentence mode on the same server, {result.judge_seconds:.0f} s",
    ]
    for r in result.runs:
        lines.append(f"{r.name}: {json.dumps(r.notes, sort_keys=True)}")
    return "\n".join(lines)


def scoring_goals(result: SummaryScoring) -> list[Goal]:
    """Per pair: verdict agreement and BooookScore; per mode: the suite's speed."""
    found = []
    runs = {r.name: r for r in result.runs}
    for a, (o, b, _) in zip(result.agreements, PAIRS, strict=True):
        found.append(
            Goal(
                f"{result.summary_id}: verdict agreement >= 95 %, {a.pair}",
                f"{100 * a.rate:.1f} % ({a.agree}/{a.sentences})",
                a.rate >= 0.95,
            )
        )
        gap = abs(runs[b].booookscore - runs[o].booookscore)
        found.append(
            Goal(
                f"{result.summary_id}: BooookScore within 1 point, {a.pair}",
                f"{runs[o].booookscore:.2f} vs {runs[b].booookscore:.2f}",
                gap <= 1,
            )
        )
    for o, b in ((PAIRS[0][0], PAIRS[0][1]), (PAIRS[2][0], PAIRS[2][1])):
        speed = ratio(runs[o].seconds, runs[b].seconds)
        found.append(
            Goal(
                f"{result.summary_id}: suite >= 3x faster, {o} / {b}",
                f"{speed:.2f}x",
                speed >= 3,
            )
        )
    return found


def targets(
    chunks: Sequence[ChunkRow] | None,
    scoring: Sequence[SummaryScoring] | None,
    summarizing: Summarizing | None,
) -> list[Goal]:
    found = []
    if chunks:
        equal = sum(r.equal for r in chunks)
        found.append(
            Goal(
                "chunk boundaries equal (2048, 4096)",
                f"{equal} of {len(chunks)} book/size pairs",
                equal == len(chunks),
            )
        )
    for result in scoring or []:
        found += scoring_goals(result)
    if summarizing:
        runs = {r.name: r for r in summarizing.runs}
        for strategy in STRATEGIES:
            speed = ratio(runs[f"official {strategy}"].seconds, runs[f"suite {strategy}"].seconds)
            found.append(
                Goal(
                    f"summarizing: suite >= 1.5x faster, {strategy}", f"{speed:.2f}x", speed >= 1.5
                )
            )
    return found


def plain(value: Any) -> Any:
    """JSON-safe: NaN as null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
