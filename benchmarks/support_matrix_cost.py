"""What one support matrix and prefix-ordered judging save, measured side by side in one run.

A. All nine AGG_S-of-AGG_D aggregations from one (document x sentence) support matrix, versus
   recomputing the matrix for each aggregation (what a metric that hides its matrix costs):
   model calls and wall time, against a judge with a fixed simulated latency.

B. Judge throughput on the local model: (document, sentence) pairs per second when the calls
   are issued document by document (each document's prompt prefix is reused from the KV
   cache) versus sentence by sentence across documents (the prefix changes every call).

    python benchmarks/support_matrix_cost.py [--model gguf/qwen2.5-coder-0.5b] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from importlib import resources
from itertools import product

from inspect_ai.model import Model, get_model

from longform_evals.analysis import MERGES, SupportMatrix
from longform_evals.data.books import bundled_summaries_dir, load_summaries
from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, judge_support
from longform_evals.text import split_sentences


def sample_inputs() -> tuple[list[str], list[str]]:
    """Documents: three sections of a bundled story; sentences: its bundled summary's first 8."""
    book = (
        resources.files("longform_evals.data")
        .joinpath("books/the_frost_hold.txt")
        .read_text(encoding="utf-8")
    )
    paragraphs = [p for p in book.split("\n\n")[1:] if len(p.split()) > 40]
    docs = [" ".join(paragraphs[i : i + 4]) for i in (0, 20, 40)]
    [sample] = load_summaries(bundled_summaries_dir() / "the_frost_hold.jsonl")
    summary = str(sample.metadata["summary"])  # type: ignore[index]
    return docs, split_sentences(summary)[:8]


async def matrix(judge: Model, docs: list[str], sentences: list[str]) -> SupportMatrix:
    """The support matrix, judged one pair at a time (one connection)."""
    settings = FaithfulnessSettings(max_tokens=1, cache=False)
    rows = []
    for doc in docs:
        rows.append([(await judge_support(judge, doc, s, settings)).value for s in sentences])
    return SupportMatrix.from_rows(rows)


async def part_a(latency: float) -> None:
    docs, sentences = sample_inputs()
    yes = {"Yes": -0.2, "No": -1.7}
    judge = get_model(
        "scripted/judge",
        rules=[{"pattern": "<statement>", "response": "Yes.", "top_logprobs": yes}],
        latency=latency,
        memoize=False,
    )
    print(
        f"A. {len(docs)} documents x {len(sentences)} sentences, judge latency {latency:.2f} s, "
        "one call at a time"
    )
    start = time.perf_counter()
    views = (await matrix(judge, docs, sentences)).all_aggregations()
    once = time.perf_counter() - start
    calls_once = len(docs) * len(sentences)

    start = time.perf_counter()
    for doc_merge, sentence_merge in product(MERGES, MERGES):
        again = await matrix(judge, docs, sentences)
        assert again.aggregate(doc_merge, sentence_merge) == views[f"{doc_merge}_{sentence_merge}"]
    per_aggregation = time.perf_counter() - start
    print(f"  one matrix, all 9 views:     {calls_once:4d} calls  {once:6.2f} s")
    print(f"  a matrix per aggregation:    {9 * calls_once:4d} calls  {per_aggregation:6.2f} s")
    print(f"  ratio: {9:.0f}x calls, {per_aggregation / once:.1f}x wall time")


async def timed_pairs(model: Model, pairs: list[tuple[str, str]]) -> tuple[float, int, int]:
    """(pairs per second, prompt tokens processed anew, prompt tokens read from cache)."""
    settings = FaithfulnessSettings(max_tokens=1, cache=False)
    totals = getattr(model.api, "totals", None)
    before = dict(totals) if isinstance(totals, dict) else {}
    start = time.perf_counter()
    for doc, sentence in pairs:  # one at a time, in the given order
        await judge_support(model, doc, sentence, settings)
    rate = len(pairs) / (time.perf_counter() - start)
    if not before or not isinstance(totals, dict):
        return rate, -1, -1
    cached = totals["cached_tokens"] - before["cached_tokens"]
    return rate, totals["prompt_tokens"] - before["prompt_tokens"] - cached, cached


async def part_b(model_name: str) -> None:
    docs, sentences = sample_inputs()
    model = get_model(model_name)
    await judge_support(model, docs[0], sentences[0], FaithfulnessSettings(max_tokens=1))
    by_document = [(d, s) for d in docs for s in sentences]
    by_sentence = [(d, s) for s in sentences for d in docs]
    print(f"\nB. judge throughput on {model_name}: {len(by_document)} pairs each way")
    interleaved = await timed_pairs(model, by_sentence)
    grouped = await timed_pairs(model, by_document)
    for label, (rate, fresh, cached) in (
        ("sentence by sentence (prefix changes)", interleaved),
        ("document by document (prefix reused)", grouped),
    ):
        print(f"  {label:38s} {rate:6.2f} pairs/s  {fresh:6d} tokens processed, {cached:6d} cached")
    print(f"  ratio: {grouped[0] / interleaved[0]:.1f}x pairs/s")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gguf/qwen2.5-coder-0.5b")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--skip-b", action="store_true", help="only the scripted part")
    args = parser.parse_args()
    await part_a(args.latency)
    if not args.skip_b:
        await part_b(args.model)


if __name__ == "__main__":
    asyncio.run(main())
