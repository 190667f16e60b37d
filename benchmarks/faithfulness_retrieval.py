"""Retrieve, then verify, measured on people's labels (issue 37; docs/faithfulness.md).

Reads a `longformfact` log judged reading every unit (`-T retrieval=all`, the default) and, for
each retrieval setting, the judgements that setting would ask for: a judge call is one
(unit, statement) pair answered on its own at temperature 0, so the pairs a retriever keeps
are answered as in the full run, and each setting's scores are the full run's unit matrix
with the pairs it leaves out removed (the scorer's own aggregation, `SupportMatrix`, then
computes the summary scores). Per setting it prints the summary-level ROC AUC and balanced
accuracy against people's labels (95 % bootstrap intervals over summaries, the baseline's
draws), and the judge calls and prompt tokens per summary, with their ratio to reading every
unit, measured in the same run.

    python benchmarks/faithfulness_retrieval.py --log LOG.eval
    python benchmarks/faithfulness_retrieval.py --run --judge gguf/qwen2.5-coder-1.5b \\
        -M n_threads=2 --data ../shared/data/longformfact/longformfact_12_examples.jsonl

`--run` judges the data first (every unit; minutes per summary with the 1.5B judge on a CPU)
and writes the log to `--log-dir`. BACC uses the judge's calibrated `max_mean` threshold
(measured reading every unit) and, beside it, the threshold that is best on these summaries
(optimistic on 12 summaries: shown to compare settings, not to report). Sentence windows
(`chunking=words:N` with a small N) are other units: judge a log with that chunking to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from longform_evals.analysis import SupportMatrix
from longform_evals.analysis.agreement import (
    balanced_accuracy,
    problem_labels,
    support_auc,
    support_threshold,
)
from longform_evals.analysis.judge_agreement import reference_flag
from longform_evals.data.multidoc import sample_documents
from longform_evals.judges.faithfulness.calibration import load_calibration
from longform_evals.judges.faithfulness.retrieval import Retrieval
from longform_evals.judges.text_check import has_word
from longform_evals.prompts import load_prompt
from longform_evals.scorers.meta_evaluation import summary_label
from longform_evals.text import chunk_documents, count_tokens

SETTINGS = ("all", "bm25:1", "bm25:2", "bm25:3", "embedding:1", "embedding:2", "embedding:3",
            "fused:1", "fused:2", "fused:3")  # fmt: skip


@dataclass(frozen=True)
class Judged:
    """One summary as the full run judged it: its units, statements, unit matrix and labels."""

    sample_id: str
    level: str
    """`summary` (one label for the summary: LongFormFact) or `sentence` (one per statement:
    LongSciVerify's reviewers)."""
    problems: list[int]
    """People's labels, 1 = a problem (unfaithful): one per summary, or one per statement."""
    units: list[str]
    statements: list[str]
    unit_docs: list[int]
    values: list[list[float | None]]
    """Support per (unit, statement); None where unreadable."""


def _units(sample: Any, meta: dict[str, Any], n_units: int) -> tuple[list[str], list[int]]:
    """The source units the judge read (the log's chunking of the sample's documents)."""
    empty = set(meta.get("empty_documents") or [])
    documents = [
        d for i, d in enumerate(sample_documents(sample.metadata, sample.id)) if i not in empty
    ]
    chunks = chunk_documents(documents, meta["chunking"])
    if len(chunks) != n_units:
        raise ValueError(f"{sample.id}: the units do not match the log's; same chunking?")
    return [c.text for c in chunks], [c.doc_index for c in chunks]


def _from_longformfact(sample: Any) -> Judged | None:
    """A `longformfact` sample: the summary, people's summary label (None: unlabelled)."""
    label = summary_label(sample.metadata)
    score = (sample.scores or {}).get("faithfulness")
    meta = score.metadata if score is not None else None
    if label is None or not meta or "units" not in meta:
        return None
    rows = meta["unit_matrix"] if meta.get("unit_matrix") is not None else meta["matrix"]
    units, docs = _units(sample, meta, len(meta["units"]))
    statements = list(meta["sentences"])
    for i, statement in (meta.get("sentence_statements") or {}).items():
        statements[int(i)] = statement
    return Judged(
        str(sample.id), "summary", problem_labels([int(label)]), units, statements, docs, rows
    )


def _from_judge_agreement(sample: Any) -> Judged | None:
    """A `judge_agreement` faithfulness sample: the statements the judge was asked (the rated,
    worded sentences, in order), each with people's reference flag (the majority)."""
    score = (sample.scores or {}).get("judge_agreement")
    meta = score.metadata if score is not None else None
    if not meta or meta.get("unit_matrix") is None:
        return None
    asked = [
        row for row, sentence in zip(meta["units"], sample.metadata["summary_sentences"],
                                     strict=True)
        if has_word(sentence) and any(v is not None for v in row["human"].values())
    ]  # fmt: skip
    statements = list(meta["statements"])
    if len(asked) != len(statements):
        raise ValueError(f"{sample.id}: {len(asked)} rated sentences, {len(statements)} asked")
    flags = [reference_flag(row["human"]) for row in asked]
    units, docs = _units(sample, meta, len(meta["unit_matrix"]))
    keep = [j for j, f in enumerate(flags) if f is not None]
    return Judged(
        str(sample.id), "sentence", [int(flags[j]) for j in keep], units,  # type: ignore[arg-type]
        [statements[j] for j in keep], docs,
        [[row[j] for j in keep] for row in meta["unit_matrix"]],
    )  # fmt: skip


def _judged(sample: Any) -> Judged | None:
    """The sample's judgements, from a `longformfact` or a `judge_agreement` log."""
    if "judge_agreement" in (sample.scores or {}):
        return _from_judge_agreement(sample)
    return _from_longformfact(sample)


@dataclass(frozen=True)
class Scored:
    scores: list[float]
    """The summary's max_mean score (summary level), or each statement's support: the max
    over the units asked (sentence level); NaN where no answer was readable."""
    calls: int
    tokens: int


def _score(judged: Judged, chosen: list[list[int]] | None, overhead: int) -> Scored:
    """The scores from the pairs ``chosen`` asks (None: all), their calls and tokens."""
    n_docs = max(judged.unit_docs) + 1
    rows: list[list[float | None]] = [[None] * len(judged.statements) for _ in range(n_docs)]
    calls = tokens = 0
    for u, (text, doc) in enumerate(zip(judged.units, judged.unit_docs, strict=True)):
        for j, statement in enumerate(judged.statements):
            if chosen is not None and u not in chosen[j]:
                continue
            calls += 1
            tokens += overhead + count_tokens(text) + count_tokens(statement)
            value = judged.values[u][j]
            if value is not None:
                best = rows[doc][j]
                rows[doc][j] = value if best is None else max(best, value)
    matrix = SupportMatrix.from_rows(rows)
    if judged.level == "summary":
        return Scored([matrix.aggregate("max", "mean")], calls, tokens)
    return Scored([float(v) for v in matrix.sentence_scores("max").tolist()], calls, tokens)


def _figures(
    problems: np.ndarray, scores: np.ndarray, threshold: float, draws: list[np.ndarray]
) -> dict[str, Any]:
    """AUC and BACC (at the calibrated and at the best threshold) with bootstrap intervals,
    over the rows with a readable score."""
    readable = ~np.isnan(scores)

    def auc(idx: np.ndarray) -> float:
        idx = idx[readable[idx]]
        return support_auc(problems[idx].tolist(), scores[idx].tolist())

    def bacc(idx: np.ndarray, t: float) -> float:
        idx = idx[readable[idx]]
        flags = [int(not s >= t) for s in scores[idx]]
        return 100 * balanced_accuracy(problems[idx].tolist(), flags).value

    full = np.arange(len(problems))
    best = support_threshold(problems[readable].tolist(), scores[readable].tolist())
    return {
        "auc": (auc(full), _interval(auc, draws)),
        "bacc": (bacc(full, threshold), _interval(lambda i: bacc(i, threshold), draws)),
        "bacc_best": (bacc(full, best), _interval(lambda i: bacc(i, best), draws)),
        "unreadable": int((~readable).sum()),
    }


def _interval(statistic: Any, draws: Sequence[np.ndarray]) -> tuple[float, float]:
    values = []
    for idx in draws:
        try:
            value = statistic(idx)
        except ValueError:  # a draw with one class only
            continue
        if math.isfinite(value):
            values.append(value)
    low, high = np.percentile(values, [2.5, 97.5]) if values else (math.nan, math.nan)
    return float(low), float(high)


def _draws(judged: Sequence[Judged], seed: int) -> list[np.ndarray]:
    """Bootstrap draws of the label rows, resampling summaries (a summary's sentences stay
    together: they share a source and a writer)."""
    offsets = np.cumsum([0, *(len(j.problems) for j in judged)])
    picks = np.random.default_rng(seed).integers(0, len(judged), (1000, len(judged)))
    return [np.concatenate([np.arange(offsets[k], offsets[k + 1]) for k in pick]) for pick in picks]


def table(judged: Sequence[Judged], judge: str, settings: Sequence[str], seed: int = 0) -> str:
    """The markdown table of every setting, with ratios to reading every unit."""
    overhead = count_tokens(load_prompt("faithfulness", "judge").render(document="", sentence=""))
    level = judged[0].level
    calibration = load_calibration(judge)
    threshold = (
        calibration.threshold("max_mean") if level == "summary" else calibration.sentence_threshold
    )
    problems = np.array([p for j in judged for p in j.problems])
    draws = _draws(judged, seed)
    what = "max_mean per summary" if level == "summary" else "max support per sentence"
    lines = [
        f"{len(judged)} summaries, {len(problems)} {level} labels ({int(problems.sum())} "
        f"unfaithful by people's labels), judge {judge}, {what}, calibrated threshold "
        f"{threshold:.3f}; 95 % bootstrap intervals over summaries (1000 draws, seed {seed})",
        "",
        "| retrieval | ROC AUC | BACC (calibrated t) | BACC (best t here) | unreadable "
        "| calls / summary | prompt tokens / summary | calls vs all |",
        "|---|---|---|---|---|---|---|---|",
    ]
    base_calls = None
    for spec in settings:
        retrieval = Retrieval.parse(spec)
        scored = [
            _score(j, asyncio.run(retrieval.select(j.units, j.statements)), overhead)
            for j in judged
        ]
        scores = np.array([v for s in scored for v in s.scores], dtype=float)
        fig = _figures(problems, scores, threshold, draws)
        calls = float(np.mean([s.calls for s in scored]))
        tokens = float(np.mean([s.tokens for s in scored]))
        base_calls = base_calls or calls
        cells = [
            f"{v:.3g} [{lo:.3g}, {hi:.3g}]"
            for v, (lo, hi) in (fig["auc"], fig["bacc"], fig["bacc_best"])
        ]
        lines.append(
            f"| {spec} | {' | '.join(cells)} | {fig['unreadable']} | {calls:.1f} | "
            f"{tokens:,.0f} | {base_calls / calls:.1f}x fewer |"
        )
    return "\n".join(lines)


def _run(
    judge: str, model_args: dict[str, Any], data: str, log_dir: Path, budget: int | None
) -> Path:
    from inspect_ai import eval as inspect_eval

    from longform_evals.tasks.judge_agreement import judge_agreement
    from longform_evals.tasks.longformfact import longformfact

    # LongSciVerify (a folder of reviewers' CSVs) is labelled per sentence: judge_agreement
    per_sentence = Path(data).is_dir() and any(Path(data).glob("*reviewer*.csv"))
    task = (
        judge_agreement(kind="faithfulness", data=data, budget=budget)
        if per_sentence
        else longformfact(data_dir=data)
    )
    # one summary at a time: a one-slot local judge then reuses each document's prefix
    [log] = inspect_eval(
        task,
        model=judge,
        model_args=model_args,
        log_dir=str(log_dir),
        max_samples=1,
        limit=None if per_sentence else budget,
        display="plain",
    )
    if log.status != "success":
        raise SystemExit(f"the judging run failed: {log.error}")
    return Path(log.location)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--log", help="a longformfact or judge_agreement (faithfulness) log judged with "
        "retrieval=all",
    )  # fmt: skip
    parser.add_argument("--run", action="store_true", help="judge --data first")
    parser.add_argument("--judge", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument(
        "-M", dest="model_args", action="append", default=[], metavar="KEY=VALUE",
        help="a model argument of the judge (as inspect eval -M; repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--data", default="../shared/data/longformfact/longformfact_12_examples.jsonl",
        help="LongFormFact .jsonl (summary and sentence labels) or the LongSciVerify folder",
    )  # fmt: skip
    parser.add_argument("--budget", type=int, help="judge at most this many summaries")
    parser.add_argument("--log-dir", default="logs/faithfulness_retrieval")
    parser.add_argument("--settings", default=",".join(SETTINGS))
    args = parser.parse_args(argv)
    from inspect_ai.log import read_eval_log

    if args.run:
        from longform_evals.cli.group import parse_key_values

        model_args = parse_key_values(tuple(args.model_args), "-M")
        location = _run(args.judge, model_args, args.data, Path(args.log_dir), args.budget)
    elif args.log:
        location = Path(args.log)
    else:
        parser.error("give --log LOG, or --run")
    log = read_eval_log(str(location))
    judged = [j for s in log.samples or [] if (j := _judged(s)) is not None]
    if len({p for j in judged for p in j.problems}) < 2:
        raise SystemExit("the log needs units people labelled faithful and unfaithful")
    print(f"log: {location.name}")
    print(table(judged, str(log.eval.model), args.settings.split(",")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
