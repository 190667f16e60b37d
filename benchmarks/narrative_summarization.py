"""Narrative summarization strategies side by side on SQuALITY: quality, length and cost.

Full context, hierarchical merging, incremental updating and NexusSum (with its two
ablations: without the dialogue preprocessor, without the compressor) summarize the same
stories, each summary focused on a question about its story (the `squality` task), and are
scored against the question's four references: ROUGE-1/2/L, BERTScore F1 (the model is
named under the table), LAR (share of summaries within ±tolerance of --target-words), mean
words and length ratio, model calls and tokens per question, and wall seconds with their
ratio to `full` measured in the same run (summarizing only: each strategy is scored after
its timed run). A second table says where each strategy's time went: the calls and wall
seconds of each stage (NexusSum's preprocess, summarize, compress, rewrite; hierarchical
merging's levels), from the samples' `summary_stages`.

    python benchmarks/narrative_summarization.py --model gguf/qwen2.5-coder-1.5b \
        [--data ../shared/data/squality/squality_3_dev_stories.jsonl] \
        [--questions-per-story 1] [--limit N] [--target-words 200] [--cache] \
        [--strategies full,nexus_sum,nexus_sum_no_compress] [--log-dir DIR]

The no-compressor ablation makes no calls of its own: it is NexusSum's run with each summary
set back to S_0, the joined chunk summaries before compression (from the summary trace), and
scored again; so it differs from the `nexus_sum` row in the compressor alone, on the very
same preprocessing and chunk summaries (sampled at temperature 0.3), and its seconds are n/a.
Without `nexus_sum` in the same run, `--nexus-log` names the NexusSum log to derive it from.

Every run goes through `inspect eval`, so each strategy leaves an ordinary Inspect log in
--log-dir. `-M key=value` passes model arguments (e.g. to the scripted test model:
`--model scripted/x -M default_response="A summary."`).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai import score
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, write_eval_log
from inspect_ai.model import GenerateConfig, Model, ModelOutput, get_model

from longform_evals.scorers.results import result_values
from longform_evals.solvers.common.recording import STAGES_KEY
from longform_evals.solvers.nexus.pipeline import CHUNK_SEPARATOR
from longform_evals.tasks.narrative import SQUALITY_TARGET_WORDS, squality

DEFAULT_DATA = "../shared/data/squality/squality_3_dev_stories.jsonl"

NO_COMPRESS_LABEL = "nexus_sum without compressor"

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
    ("nexus_sum_no_compress", NO_COMPRESS_LABEL, {}),  # derived, not run: no task arguments
]
"""(key for --strategies, row label, task arguments; the no-compressor row is derived from the
NexusSum run, see :func:`without_compressor`)."""

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
    stages: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Stage -> (calls, wall seconds), summed over the samples' `summary_stages`."""


def stage_totals(samples: Sequence[EvalSample]) -> dict[str, tuple[int, float]]:
    """Calls and wall seconds of each strategy stage, summed over ``samples``, in the order
    the stages ran."""
    totals: dict[str, tuple[int, float]] = {}
    for sample in samples:
        stages = (sample.metadata or {}).get(STAGES_KEY)
        for name, row in (stages or {}).items():
            calls, seconds = totals.get(name, (0, 0.0))
            totals[name] = (calls + int(row["calls"]), seconds + float(row["seconds"]))
    return totals


def stage_table(rows: Sequence[Row]) -> list[str]:
    """Where each strategy's time went: one line per stage, its share of the run's seconds
    (stages of concurrent samples overlap, so shares of a multi-sample run can add past 100 %)."""
    lines = ["| strategy | stage | calls | seconds | share of the run |", "|---|---|---|---|---|"]
    for r in rows:
        for name, (calls, seconds) in r.stages.items():
            share = f"{100 * seconds / r.seconds:.0f} %" if r.seconds > 0 else "n/a"
            lines.append(f"| {r.label} | {name} | {calls} | {seconds:.1f} | {share} |")
    return lines


def metrics(log: EvalLog) -> dict[str, float]:
    """`value key/metric` -> result for every metric of a log (`rougeL/mean`, `scored/count`),
    as every surface reads results (`scorers/results.py`)."""
    if log.status != "success" or log.results is None:
        raise RuntimeError(f"run failed: {log.error}")
    return {
        f"{key}/{metric}": value
        for (_, key), results in result_values(log.results.scores).items()
        for metric, value in results.items()
        if metric != "point"
    }


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
        stages=stage_totals(samples),
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
            f"{fmt(m('rougeL/mean'))} | {fmt(m('bertscore_f1/mean'))} | "
            f"{fmt(m('within/mean'), True)} | "
            f"{fmt(m('words/mean'))} | {fmt(m('length_ratio/mean'))} | {fmt(r.calls)} | "
            f"{fmt(r.tokens)} | {'n/a' if math.isnan(r.seconds) else f'{r.seconds:.1f}'} | "
            f"{fmt(ratio)} |"
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


def run_strategy(
    label: str, params: dict[str, Any], model: Model, args: argparse.Namespace
) -> tuple[Row, EvalLog]:
    """Summarize, timing only that, then score (BERTScore's one-time load is not timed)."""
    task = squality(
        data=args.data,
        target_words=args.target_words,
        tolerance=args.tolerance,
        cache=args.cache,
        **params,
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
    return row_from_log(label, scored, seconds), scored


def without_compressor(log: EvalLog, log_dir: str) -> EvalLog:
    """A copy of a NexusSum log whose summaries are S_0, the chunk summaries joined in order
    as the summarizer stage joins them, taken from each sample's summary trace; it is to be
    written to ``log_dir`` under the NexusSum log's name plus ``_no_compress``.

    Raises:
        RuntimeError: if a sample's trace has no chunk summaries (not a NexusSum log).
    """
    derived = log.model_copy(deep=True)
    for sample in derived.samples or []:
        trace: Any = sample.metadata.get("summary_trace") or []
        chunks = sorted((e for e in trace if e.get("step") == "chunk"), key=lambda e: e["index"])
        if not chunks:
            raise RuntimeError(
                f"sample {sample.id!r} of {log.location}: no chunk summaries in its "
                "summary_trace; --nexus-log must name a nexus_sum log"
            )
        initial = CHUNK_SEPARATOR.join(str(e["text"]) for e in chunks)
        sample.output = ModelOutput.from_content(model=sample.output.model, content=initial)
        sample.metadata["summary"] = initial
        stats = dict(sample.metadata.get("summary_stats") or {})
        stats["calls"] = sum(int(e["tries"]) for e in trace if e.get("step") != "compress")
        sample.metadata["summary_stats"] = stats
    name = Path(log.location).name.removesuffix(".eval") + "_no_compress.eval"
    derived.location = str(Path(log_dir) / name)
    return derived


def derive_no_compress(nexus: EvalLog, args: argparse.Namespace) -> Row:
    """The no-compressor row: ``nexus``'s summaries before compression, scored again."""
    task = squality(data=args.data, target_words=args.target_words, tolerance=args.tolerance)
    scored = score(
        without_compressor(nexus, args.log_dir),
        task.scorer or [],
        action="overwrite",
        display="none",
    )
    write_eval_log(scored, scored.location)
    row = row_from_log(NO_COMPRESS_LABEL, scored, math.nan)
    return Row(row.label, row.metrics, row.calls, math.nan, math.nan, row.bertscore_model)


def run_all(
    strategies: Sequence[tuple[str, str, dict[str, Any]]], model: Model, args: argparse.Namespace
) -> list[Row]:
    """Every strategy's row, printed as it comes."""
    rows: list[Row] = []
    nexus: EvalLog | None = read_eval_log(args.nexus_log) if args.nexus_log else None
    for key, label, params in strategies:
        if key == "nexus_sum_no_compress":
            if nexus is None:
                raise SystemExit(
                    "nexus_sum_no_compress is derived from a NexusSum run: include nexus_sum "
                    "in --strategies or pass --nexus-log"
                )
            rows.append(derive_no_compress(nexus, args))
        else:
            row, log = run_strategy(label, params, model, args)
            rows.append(row)
            if key == "nexus_sum":
                nexus = log
        print(table(rows)[-1], flush=True)
    return rows


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
    parser.add_argument(
        "--nexus-log", default=None, help="nexus_sum log to derive the no-compressor row from"
    )
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument(
        "--cache",
        action="store_true",
        help="reuse cached model calls (off: every run calls the model, so seconds are real)",
    )
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
    for line in table([])[:2]:
        print(line, flush=True)
    rows = run_all(strategies, model, args)
    models = sorted({r.bertscore_model for r in rows if r.bertscore_model})
    print(
        f"\nBERTScore model: {', '.join(models) or 'n/a'}; "
        f"LAR tolerance ±{100 * args.tolerance:g} %."
    )
    if len(rows) > 1 and any(r.label == "full" for r in rows):
        print("seconds / full: wall time as a ratio of full context's, measured in this run.")
    if any(r.stages for r in rows):
        print("\nWhere the time went (summary_stages of the samples):\n")
        print("\n".join(stage_table(rows)))


if __name__ == "__main__":
    main()
