"""Reading strategies side by side: accuracy (or LLM raters and ROUGE), compression and cost.

A. QuALITY (multiple choice): full text, GistMem, ReadAgent-P (1-2 pages; answering in a
   follow-up turn, and in the paper's in-place prompt), ReadAgent-S (up to 3 pages) and BM25
   top-2 on the same questions (`--strategies` picks some), with accuracy, compression rate
   (CR), pages looked up and words consumed per question (gists amortised over the questions
   of their article, as the paper's §3.3; a follow-up turn charged only its new words, and
   words sent charging every call its whole conversation), and each reader's words per
   question as a ratio of full text's.
B. QMSum and NarrativeQA (free form): ReadAgent-P versus truncation, LR-1, LR-2 (the `grader`
   role: the same model unless --grader; read by the grader's calibrated P(yes) thresholds
   when it has a calibration, and also re-read from the recorded verdict words by the paper's
   rule) and ROUGE.

    python benchmarks/reading_quality.py --model gguf/qwen2.5-coder-1.5b \
        --quality ../shared/data/quality/quality_5_articles.jsonl \
        [--qmsum ../shared/data/qmsum/qmsum_3_meetings.jsonl] \
        [--narrativeqa ../shared/data/narrativeqa/test-tiny.jsonl] [--limit N] [--limit-free N]
        [--article ID] [--strategies full,read_agent_p,...]

Every run goes through `inspect eval`, so each strategy leaves an ordinary Inspect log (in
--log-dir). Pagination, gisting and rater calls go through Inspect's cache, so a rerun does not
repeat them; the per-question look-up and answer calls are made again.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, get_model

from longform_evals.judges.raters.rating import rate_reference
from longform_evals.scorers.results import result_values
from longform_evals.tasks.reading import narrativeqa, qmsum, quality

QUALITY_STRATEGIES: dict[str, tuple[str, dict[str, Any]]] = {
    "full": ("full", {"strategy": "full"}),
    "gist_memory": ("GistMem", {"strategy": "gist_memory"}),
    "read_agent_p": ("ReadAgent-P (1-2 pages)", {"strategy": "read_agent_p", "max_pages": 2}),
    "read_agent_p_in_place": (
        "ReadAgent-P (1-2 pages), in place",
        {"strategy": "read_agent_p", "max_pages": 2, "layout": "in_place"},
    ),
    "read_agent_s": (
        "ReadAgent-S (up to 3 pages)",
        {"strategy": "read_agent_s", "max_pages": 3},
    ),
    "bm25": ("BM25 top-2", {"strategy": "bm25", "k": 2}),
}
FREE_STRATEGIES: list[tuple[str, dict[str, Any]]] = [
    ("truncate (first 1,500 words)", {"strategy": "truncate_first", "words": 1500}),
    ("ReadAgent-P (1-2 pages)", {"strategy": "read_agent_p", "max_pages": 2}),
]


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


def run_log(task: Task, args: argparse.Namespace, limit: int | None) -> EvalLog:
    if args.article:
        task.dataset = task.dataset.filter(lambda s: str(s.id).startswith(f"{args.article}:"))
        if len(task.dataset) == 0:
            raise SystemExit(f"no questions on an article with id {args.article!r}")
    model = get_model(args.model, config=GenerateConfig(max_connections=args.connections))
    roles = {"grader": get_model(args.grader)} if args.grader else None
    [log] = inspect_eval(
        task,
        model=model,
        model_roles=roles,
        limit=limit,
        log_dir=args.log_dir,
        max_samples=args.max_samples,
        display="none",
    )
    return log


def run(task: Task, args: argparse.Namespace, limit: int | None) -> dict[str, float]:
    return metrics(run_log(task, args, limit))


def verdict_rule(log: EvalLog) -> tuple[float, float]:
    """LR-1 and LR-2 by the paper's verdict-word rule, re-read from the raters' recorded verdicts
    (a calibrated run keeps the words too), as fractions."""
    exact = partial = n = 0
    for sample in log.samples or []:
        meta = (sample.scores or {})["llm_raters"].metadata or {}
        ratings = [
            rate_reference(r["strict"]["verdict"], r["permissive"]["verdict"])[0]
            for r in meta.get("ratings", [])
        ]
        n += 1
        exact += "exact" in ratings
        partial += "exact" in ratings or "partial" in ratings
    return (exact / n, partial / n) if n else (math.nan, math.nan)


def reading_breakdown(log: EvalLog) -> list[str]:
    """Where a paged reader's words go per question, and how it used its memory, read from
    the samples' `reading` metadata: pagination and gisting (shared by a document's
    questions), look-up and answer prompts, gist length, gists cut by the token cap, and the
    page sets asked for."""
    infos = [(s.metadata or {}).get("reading") or {} for s in log.samples or []]
    infos = [i for i in infos if "page_words" in i]
    if not infos:
        return []
    n = len(infos)
    shared = sum(
        (i["pagination_prompt_words"] + i["gist_prompt_words"]) / max(1, i["doc_questions"])
        for i in infos
    )
    by_step: Counter[str] = Counter()
    for info in infos:
        for call in info.get("calls", []):
            by_step[call["step"]] += call["prompt_words"]
    docs = {(i["doc_words"], i["gist_words"], i["gists_cut"], i["pages"]) for i in infos}
    kept = sum(g for _, g, _, _ in docs) / max(1, sum(d for d, _, _, _ in docs))
    cut = sum(c for _, _, c, _ in docs) / max(1, sum(p for _, _, _, p in docs))
    asked = Counter(str(i.get("pages_looked_up")) for i in infos)
    common = ", ".join(f"{pages} x{count}" for pages, count in asked.most_common(3))
    return [
        f"  words per question: {shared / n:,.0f} pagination and gisting (shared), "
        + ", ".join(f"{by_step[k] / n:,.0f} {k}" for k in ("lookup", "answer") if k in by_step),
        f"  gists keep {100 * kept:.0f} % of the document's words; {100 * cut:.0f} % of gists "
        "hit the token cap",
        f"  pages asked for (of {n} questions): {common}",
    ]


def fmt(value: float, pct: bool = False) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{100 * value:.1f}" if pct else f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def part_a(args: argparse.Namespace) -> None:
    only = f", article {args.article}" if args.article else ""
    print(f"\nA. QuALITY ({args.quality}{only}), reader {args.model}")
    print(
        "| strategy | accuracy % | unparsed % | CR % | pages looked up | words / question "
        "| words sent / question |"
    )
    print("|---|---|---|---|---|---|---|")
    words: dict[str, tuple[float, float]] = {}
    details: list[str] = []
    for key in args.strategies:
        name, params = QUALITY_STRATEGIES[key]
        params = {**params, "answer_max_tokens": args.answer_tokens}
        log = run_log(quality(data=args.quality, **params), args, args.limit)
        m = metrics(log)
        words[name] = (m["words_consumed/mean"], m["words_sent/mean"])
        print(
            f"| {name} | {fmt(m['correct/accuracy'], True)} | {fmt(m['unparsed/mean'], True)} | "
            f"{fmt(m['compression_rate/mean'])} | {fmt(m['pages_looked_up/mean'])} | "
            f"{fmt(words[name][0])} | {fmt(words[name][1])} |",
            flush=True,
        )
        breakdown = reading_breakdown(log)
        details.extend([f"{name}:", *breakdown] if breakdown else [])
    if details:
        print("\n".join(details))
    full = words.get("full")
    for name, (consumed, sent) in words.items():
        if name != "full" and full and full[0]:
            print(
                f"words per question, {name} / full text: {consumed / full[0]:.2f} "
                f"(words sent: {sent / full[1]:.2f})"
            )


def part_b(args: argparse.Namespace) -> None:
    for label, make, data in (
        ("QMSum", qmsum, args.qmsum),
        ("NarrativeQA", narrativeqa, args.narrativeqa),
    ):
        if not data:
            continue
        print(f"\nB. {label} ({data}), reader {args.model}, grader {args.grader or args.model}")
        print(
            "| strategy | LR-1 % | LR-2 % | rule | LR-1 % (verdict words) | LR-2 % (verdict words) "
            "| ROUGE-1 | ROUGE-2 | ROUGE-L | CR % | words / q |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for name, params in FREE_STRATEGIES:
            task = make(data=data, **params, answer_max_tokens=args.answer_tokens)
            log = run_log(task, args, args.limit_free)
            m = metrics(log)
            rules = {
                str(((s.scores or {})["llm_raters"].metadata or {}).get("rule"))
                for s in log.samples or []
            }
            lr1_words, lr2_words = verdict_rule(log)
            print(
                f"| {name} | {fmt(m['lr1/mean'], True)} | {fmt(m['lr2/mean'], True)} | "
                f"{'/'.join(sorted(rules))} | {fmt(lr1_words, True)} | {fmt(lr2_words, True)} | "
                f"{fmt(m['rouge1/mean'])} | {fmt(m['rouge2/mean'])} | {fmt(m['rougeL/mean'])} | "
                f"{fmt(m['compression_rate/mean'])} | {fmt(m['words_consumed/mean'])} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("--grader", default=None, help="LLM-rater model (default: --model)")
    parser.add_argument("--quality", default=None)
    parser.add_argument("--qmsum", default=None)
    parser.add_argument("--narrativeqa", default=None)
    parser.add_argument("--limit", type=int, default=None, help="QuALITY questions per run")
    parser.add_argument("--limit-free", type=int, default=None, help="QMSum/NarrativeQA ones")
    parser.add_argument("--article", default=None, help="only this QuALITY article id")
    parser.add_argument(
        "--strategies",
        type=lambda text: [k.strip() for k in text.split(",") if k.strip()],
        default=list(QUALITY_STRATEGIES),
        help=f"QuALITY readers, comma-separated, of: {', '.join(QUALITY_STRATEGIES)}",
    )
    parser.add_argument("--answer-tokens", type=int, default=96)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument(
        "--max-samples",
        type=int,
        default=None,
        help="questions in flight at once (1 keeps a local model's prefix cache on one question)",
    )
    parser.add_argument("--log-dir", default="logs/reading_benchmark")
    args = parser.parse_args()
    unknown = [k for k in args.strategies if k not in QUALITY_STRATEGIES]
    if unknown:
        parser.error(
            f"unknown --strategies {', '.join(unknown)}; use {', '.join(QUALITY_STRATEGIES)}"
        )
    if args.quality:
        part_a(args)
    part_b(args)


if __name__ == "__main__":
    main()
