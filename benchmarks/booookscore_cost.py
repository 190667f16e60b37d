"""What BooookScore's design choices save, measured side by side in one run.

A. Prompt layout. The judge is asked about every sentence of one summary. With the
   prefix-stable layout (instructions, examples, summary, then the sentence) consecutive calls
   share everything but the sentence, so the local model's KV cache reuses it. The
   alternative puts the sentence before the summary, so only the instructions and examples
   are shared. Both run on the same bundled summary, with the embedded model's prefix cache
   on and Inspect's answer cache off; printed: prompt tokens processed anew, wall time, ratios.

B. Concurrency of hierarchical merging. Level-0 chunk summaries are independent and run
   concurrently; against a model with a fixed simulated latency, the whole merge is timed
   with concurrency and with one connection (sequential), and the ratio printed.

    python benchmarks/booookscore_cost.py [--model gguf/qwen2.5-coder-0.5b] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from importlib import resources
from pathlib import Path

from inspect_ai import eval_async
from inspect_ai.event import ModelEvent
from inspect_ai.model import GenerateConfig, Model, get_model

from longform_evals.data.books import bundled_summaries_dir, load_summaries
from longform_evals.judges.coherence import JudgeSettings, judge_summary
from longform_evals.tasks.booookscore import booookscore
from longform_evals.text import split_sentences

_TAIL_STABLE = (
    "<summary>\n{summary}\n</summary>\n\nSentence to judge:\n<sentence>\n{sentence}\n</sentence>"
)
_TAIL_SENTENCE_FIRST = (
    "Sentence to judge:\n<sentence>\n{sentence}\n</sentence>\n\n<summary>\n{summary}\n</summary>"
)


def bundled_summary() -> tuple[str, list[str]]:
    [sample] = load_summaries(bundled_summaries_dir() / "the_frost_hold.jsonl")
    summary = str(sample.metadata["summary"])  # type: ignore[index]
    return summary, split_sentences(summary)


def sentence_first_prompts(folder: Path) -> str:
    """A prompts_dir whose judge template puts the sentence before the summary."""
    packaged = (
        resources.files("longform_evals.prompts")
        .joinpath("booookscore/judge_sentence.txt")
        .read_text(encoding="utf-8")
    )
    if _TAIL_STABLE not in packaged:
        raise RuntimeError("the packaged judge template changed; update this benchmark")
    (folder / "booookscore").mkdir(parents=True, exist_ok=True)
    (folder / "booookscore" / "judge_sentence.txt").write_text(
        packaged.replace(_TAIL_STABLE, _TAIL_SENTENCE_FIRST)
    )
    return str(folder)


def _totals(model: Model) -> dict[str, int]:
    totals = getattr(model.api, "totals", None)
    if not isinstance(totals, dict):
        raise SystemExit(f"{model} does not report token totals; use a gguf/ model for part A")
    return dict(totals)


async def part_a(model_name: str) -> None:
    _, sentences = bundled_summary()
    model = get_model(model_name)
    print(f"A. judge layout on {model_name}: bundled summary of {len(sentences)} sentences")
    rows: dict[str, tuple[float, int, int, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        layouts = {
            "sentence before summary": sentence_first_prompts(Path(tmp)),
            "prefix-stable": None,
        }
        for name, prompts_dir in layouts.items():
            # An unrelated prompt first, so neither layout inherits the other's cached prefix.
            await model.generate("Say OK.", config=GenerateConfig(max_tokens=2))
            before = _totals(model)
            settings = JudgeSettings(mode="sentence", cache=False, prompts_dir=prompts_dir)
            start = time.perf_counter()
            _, calls = await judge_summary(model, sentences, settings)
            elapsed = time.perf_counter() - start
            after = _totals(model)
            cached = after["cached_tokens"] - before["cached_tokens"]
            fresh = after["prompt_tokens"] - before["prompt_tokens"] - cached
            rows[name] = (elapsed, fresh, cached, calls)
            print(
                f"  {name:24s} {elapsed:7.1f} s  {fresh:7d} prompt tokens processed, "
                f"{cached:7d} read from cache, {calls} calls"
            )
    slow, fast = rows["sentence before summary"], rows["prefix-stable"]
    print(
        "  ratio (sentence-first / prefix-stable): "
        f"prompt tokens processed {slow[1] / fast[1]:.1f}x, wall time {slow[0] / fast[0]:.1f}x"
    )


async def part_b(latency: float) -> None:
    print(f"\nB. hierarchical merging against a model with {latency:.2f} s latency per call")
    times = {}
    for label, connections in (("sequential (1 connection)", 1), ("concurrent", 64)):
        model = get_model(
            "scripted/latency",
            rules=[],
            default_response="Ines Calloway studies a frozen orchard and finds a faulty sensor.",
            latency=latency,
            memoize=False,
        )
        task = booookscore(strategy="hierarchical", chunk_size=512, judge_mode="batched")
        start = time.perf_counter()
        [log] = await eval_async(
            task,
            model=model,
            max_connections=connections,
            limit=1,
            log_dir=tempfile.mkdtemp(),
            score=False,
        )
        times[label] = time.perf_counter() - start
        assert log.samples
        calls = sum(1 for e in log.samples[0].events if isinstance(e, ModelEvent))
        print(f"  {label:26s} {times[label]:6.2f} s  ({calls} summarization calls)")
    ratio = times["sequential (1 connection)"] / times["concurrent"]
    print(f"  speed-up of concurrent level-0 calls: {ratio:.1f}x")


async def main() -> None:
    os.environ.setdefault("INSPECT_DISPLAY", "none")  # keep the printed figures readable
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gguf/qwen2.5-coder-0.5b")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--skip-a", action="store_true", help="only the concurrency part")
    args = parser.parse_args()
    if not args.skip_a:
        await part_a(args.model)
    await part_b(args.latency)


if __name__ == "__main__":
    asyncio.run(main())
