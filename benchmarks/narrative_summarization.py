"""Narrative summarization strategies side by side on SQuALITY: quality, length and cost.

Full context, hierarchical merging, incremental updating and NexusSum (with its two
ablations: without the dialogue preprocessor, without the compressor) summarize the same
stories, each summary focused on a question about its story (the `squality` task), and are
scored against the question's four references: ROUGE-1/2/L, BERTScore F1 (the model is
named under the table), LAR (share of summaries within ±tolerance of --target-words), mean
words and length ratio, model calls and tokens per question, and wall seconds with their
ratio to `full` measured in the same run (summarizing only: each strategy is scored after
its timed run).

    python benchmarks/narrative_summarization.py --model gguf/qwen2.5-coder-1.5b \
        [--data ../shared/data/squality/squality_3_dev_stories.jsonl] \
        [--questions-per-story 1] [--limit N] [--target-words 200] \
        [--strategies full,nexus_sum,nexus_sum_no_compress] [--log-dir DIR]

Every run goes through `inspect eval`, so each strategy leaves an ordinary Inspect log in
--log-dir. `-M key=value` passes model arguments (e.g. to the scripted test model:
`--model scripted/x -M default_response="A summary."`).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai import score
from inspect_ai.log import EvalLog, write_eval_log
from inspect_ai.model import GenerateConfig, Model, get_model

from longform_evals.tasks.narrative import SQUALITY_TARGET_WORDS, squality

DEFAULT_DATA = "../shared/data/squality/squality_3_dev_stories.jsonl"

STRATEGIES: list[tuple[str, str, dict[str, Any]]] = [
    ("full", "full", {"strategy": "full"}),
    ("hierarchical", "hierarchical", {"strategy": "hierarchical"}),
    ("incremental", "incremental", {"strategy": "incremental"}),
    ("nexus_sum", "nexus_sum", {"strategy": "nexus_sum"}),
    (
        "nexus_sum_no_preprocess",
        "nexus_sum without preprocessor",
        {"strategy": "nexus_sum", "preprocess": False},
    ),
    (
        "nexus_sum_no_compress",
        "nexus_sum without compressor",
        {"strategy": "nexus_sum", "compress": False},
    ),
]
"""(key for --strategies, row label, task arguments)."""

HEADER = (
    "| strategy | ROUGE-1 | ROUGE-2 | ROUGE-L | BERTScore F1 | LAR % | words | length ratio "
    "| calls / question | tokens / question | seconds | seconds / full |"
)


@dataclass(frozen=True)
class Row:
    """One strategy's figures."""

    label: str
    metrics: dict[str, float]
    """`score key/metric` -> value, as in the log's results."""
    calls: float
    """Model calls per question (the solvers' `summary_stats.calls`); NaN when absent."""
    tokens: float
    """Input plus output tokens per question, from the log's model usage."""
    seconds: float
    bertscore_model: str | None


def metrics(log: EvalLog) -> dict[str, float]:
    """`score key/metric` -> value for every metric of a log."""
    if log.status != "success" or log.results is None:
        raise RuntimeError(f"run failed: {log.error}")
    return {f"{s.name}/{m.name}": m.value for s in log.results.scores for m in s.metrics.values()}


def row_from_log(label: str, log: EvalLog, seconds: float) -> Row:
    """The table row of one strategy's log."""
    values = metrics(log)
    samples = log.samples or []
    calls = [
        float(s.metadata["summary_stats"]["calls"])
        for s in samples
        if isinstance(s.metadata.get("summary_stats"), dict)
        and "calls" in s.metadata["summary_stats"]
    ]
    usage = log.stats.model_usage.values()
    tokens = sum(u.input_tokens + u.output_tokens for u in usage)
    model: str | None = None
    for sample in samples:
        score = (sample.scores or {}).get("bertscore")
        if score is not None and score.metadata and "model" in score.metadata:
            model = f"{score.metadata['model']}, layer {score.metadata.get('num_layers')}"
            break
    n = len(samples)
    return Row(
        label=label,
        metrics=values,
        calls=sum(calls) / len(calls) if calls else math.nan,
        tokens=tokens / n if n else math.nan,
        seconds=seconds,
        bertscore_model=model,
    )


def fmt(value: float | None, pct: bool = False) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{100 * value:.1f}" if pct else f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def table(rows: Sequence[Row]) -> list[str]:
    """The markdown table: one line per row, wall time as a ratio of `full`'s when run."""
    full = next((r.seconds for r in rows if r.label == "full"), None)
    lines = [HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
    for r in rows:
        m = r.metrics.get
        ratio = r.seconds / full if full else math.nan
        lines.append(
            f"| {r.label} | {fmt(m('rouge1/mean'))} | {fmt(m('rouge2/mean'))} | "
            f"{fmt(m('rougeL/mean'))} | {fmt(m('f1/mean'))} | {fmt(m('within/mean'), True)} | "
            f"{fmt(m('words/mean'))} | {fmt(m('length_ratio/mean'))} | {fmt(r.calls)} | "
            f"{fmt(r.tokens)} | {r.seconds:.1f} | {fmt(ratio)} |"
        )
    return lines


def chosen(names: str | None) -> list[tuple[str, str, dict[str, Any]]]:
    """The strategies named in a comma list (all when None), in the table's order."""
    if names is None:
        return STRATEGIES
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    known = [key for key, _, _ in STRATEGIES]
    unknown = [n for n in wanted if n not in known]
    if unknown or not wanted:
        raise SystemExit(f"unknown strategies {unknown or names!r}; choose from {', '.join(known)}")
    return [s for s in STRATEGIES if s[0] in wanted]


def model_args(pairs: Sequence[str]) -> dict[str, Any]:
    """`key=value` strings -> a dict (the `-M` of `inspect eval`)."""
    args: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"-M needs key=value, got {pair!r}")
        args[key] = value
    return args


def run_strategy(label: str, params: dict[str, Any], model: Model, args: argparse.Namespace) -> Row:
    """Summarize, timing only that, then score (BERTScore's one-time load is not timed)."""
    task = squality(
        data=args.data, target_words=args.target_words, tolerance=args.tolerance, **params
    )
    keep = args.questions_per_story
    task.dataset = task.dataset.filter(lambda s: int(str(s.id).rsplit(":", 1)[1]) < keep)
    start = time.perf_counter()
    [log] = inspect_eval(
        task, model=model, limit=args.limit, log_dir=args.log_dir, display="none", score=False
    )
    seconds = time.perf_counter() - start
    if log.status != "success":
        raise RuntimeError(f"{label}: run failed: {log.error}")
    scored = score(log, task.scorer or [], display="none")
    write_eval_log(scored, log.location)
    return row_from_log(label, scored, seconds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("-M", "--model-arg", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--data", default=DEFAULT_DATA, help="SQuALITY v1.3 JSONL")
    parser.add_argument("--questions-per-story", type=int, default=1)
    parser.add_argument("--limit", type=int, default=None, help="questions per strategy")
    parser.add_argument("--target-words", type=int, default=SQUALITY_TARGET_WORDS)
    parser.add_argument("--tolerance", type=float, default=0.1, help="of LAR (0.1: ±10 %%)")
    parser.add_argument("--strategies", default=None, help="comma list; default: all six")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--log-dir", default="logs/narrative_benchmark")
    args = parser.parse_args(argv)
    strategies = chosen(args.strategies)
    model = get_model(
        args.model,
        config=GenerateConfig(max_connections=args.connections),
        **model_args(args.model_arg),
    )
    print(
        f"\nSQuALITY ({args.data}, {args.questions_per_story} question(s) per story), "
        f"summarizer {args.model}, target {args.target_words} words"
    )
    rows: list[Row] = []
    for line in table([])[:2]:
        print(line, flush=True)
    for _, label, params in strategies:
        rows.append(run_strategy(label, params, model, args))
        print(table(rows)[-1], flush=True)
    models = sorted({r.bertscore_model for r in rows if r.bertscore_model})
    print(
        f"\nBERTScore model: {', '.join(models) or 'n/a'}; "
        f"LAR tolerance ±{100 * args.tolerance:g} %."
    )
    if len(rows) > 1 and any(r.label == "full" for r in rows):
        print("seconds / full: wall time as a ratio of full context's, measured in this run.")


if __name__ == "__main__":
    main()
