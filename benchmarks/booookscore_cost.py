"""What BooookScore's design choices save, measured side by side in one run.

A. Prompt layout. The judge is asked about every sentence of a summary; consecutive calls
   that share a prompt prefix let the local model's KV cache reuse it. Sentence mode:
   - sentence first: the sentence, then the summary (only the instructions and examples are
     shared);
   - quoted (the packaged default): instructions, examples, the summary, then the
     sentence's text (the paper's order);
   - numbered (experimental): the summary as numbered lines, each call ending with the
     sentence's number.
   Probe mode (one yes/no question per call):
   - question first: the sentence and question, then the earlier text;
   - per_probe (the packaged layout): the earlier text, the sentence, then the question
     (the probes the embedded 1.5B judge's calibration switches on, for any model measured).
   Every layout judges the same summaries in the same order (the bundled one, then clean
   summaries of the planted-error set), with the embedded model's prefix cache on and
   Inspect's answer cache off; printed per layout: wall time, prompt tokens processed anew
   and read from cache, calls, and the ratios to the packaged layout, over all summaries
   and for the first summary alone (which also pays for the shared instructions).

B. Concurrency of hierarchical merging. Level-0 chunk summaries are independent and run
   concurrently; against a model with a fixed simulated latency, the whole merge is timed
   with concurrency and with one connection (sequential), and the ratio printed.

    python benchmarks/booookscore_cost.py [--model gguf/qwen2.5-coder-0.5b] [--summaries 3]
        [--modes sentence,probe] [--latency 0.2] [--skip-a]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from inspect_ai import eval_async
from inspect_ai.event import ModelEvent
from inspect_ai.model import GenerateConfig, Model, get_model

from longform_evals.data.books import bundled_summaries_dir, load_summaries
from longform_evals.judges.coherence.paper import (
    JudgeSettings,
    SentenceLayout,
    SentenceVerdict,
    judge_summary,
)
from longform_evals.judges.coherence.probe import ProbeSettings, probe_summary
from longform_evals.tasks.booookscore import booookscore
from longform_evals.text import split_sentences

_TAIL_QUOTED = (
    "<summary>\n{summary}\n</summary>\n\nSentence to judge:\n<sentence>\n{sentence}\n</sentence>"
)
_TAIL_SENTENCE_FIRST = (
    "Sentence to judge:\n<sentence>\n{sentence}\n</sentence>\n\n<summary>\n{summary}\n</summary>"
)
_PROBE_ORDER = (
    "You will see the part of a summary that comes before a sentence, then the sentence itself, "
    "then one question about it.",
    "Earlier text: <earlier>{earlier}</earlier>\nNew sentence: <sentence>{sentence}</sentence>\n"
    "Question: {question}\nAnswer:",
)
_PROBE_QUESTION_FIRST = (
    "You will see a sentence of a summary and one question about it, then the part of the "
    "summary that comes before the sentence.",
    "New sentence: <sentence>{sentence}</sentence>\nQuestion: {question}\n"
    "Earlier text: <earlier>{earlier}</earlier>\nAnswer:",
)


def bundled_summary() -> list[str]:
    """The sentences of the bundled book's summary."""
    [sample] = load_summaries(bundled_summaries_dir() / "the_frost_hold.jsonl")
    return split_sentences(str(sample.metadata["summary"]))  # type: ignore[index]


def judged_summaries(n: int) -> list[list[str]]:
    """The sentences of `n` summaries: the bundled one, then clean planted-set summaries."""
    text = (
        resources.files("longform_evals.data")
        .joinpath("coherence/planted_errors.jsonl")
        .read_text(encoding="utf-8")
    )
    clean = [r["sentences"] for r in map(json.loads, text.splitlines()) if r["error_type"] is None]
    return [bundled_summary(), *clean][:n]


def _packaged(name: str) -> str:
    return (
        resources.files("longform_evals.prompts")
        .joinpath(f"booookscore/{name}.txt")
        .read_text(encoding="utf-8")
    )


def _override(folder: Path, name: str, text: str, swaps: list[tuple[str, str]]) -> str:
    """A prompts_dir whose `booookscore/<name>.txt` is the packaged one with `swaps` made."""
    for old, new in swaps:
        if old not in text:
            raise RuntimeError(f"the packaged {name} template changed; update this benchmark")
        text = text.replace(old, new)
    (folder / "booookscore").mkdir(parents=True, exist_ok=True)
    (folder / "booookscore" / f"{name}.txt").write_text(text, encoding="utf-8")
    return str(folder)


def sentence_first_prompts(folder: Path) -> str:
    """A prompts_dir whose quoted judge template puts the sentence before the summary."""
    text = _packaged("judge_sentence_quoted")
    return _override(folder, "judge_sentence_quoted", text, [(_TAIL_QUOTED, _TAIL_SENTENCE_FIRST)])


def question_first_prompts(folder: Path) -> str:
    """A prompts_dir whose probe template puts the sentence and question before the earlier
    text."""
    swaps = list(zip(_PROBE_ORDER, _PROBE_QUESTION_FIRST, strict=True))
    return _override(folder, "probe", _packaged("probe"), swaps)


def _totals(model: Model) -> dict[str, int]:
    totals = getattr(model.api, "totals", None)
    if not isinstance(totals, dict):
        raise SystemExit(f"{model} does not report token totals; use a gguf/ model for part A")
    return dict(totals)


Judge = Callable[[Model, list[str]], Awaitable[tuple[list[SentenceVerdict], int]]]


@dataclass
class LayoutRun:
    seconds: float
    fresh: int
    cached: int
    calls: int
    first_fresh: int
    confused: list[bool | None]


async def run_layout(model: Model, summaries: list[list[str]], judge: Judge) -> LayoutRun:
    """Judge every summary in order; token counts from the model's own totals."""
    # An unrelated prompt first, so no layout inherits another's cached prefix.
    await model.generate("Say OK.", config=GenerateConfig(max_tokens=2))
    before = _totals(model)
    start = time.perf_counter()
    calls, first_fresh, confused = 0, 0, []
    for n, sentences in enumerate(summaries):
        verdicts, made = await judge(model, sentences)
        calls += made
        confused += [v.confused for v in verdicts]
        if n == 0:
            now = _totals(model)
            first_fresh = (now["prompt_tokens"] - now["cached_tokens"]) - (
                before["prompt_tokens"] - before["cached_tokens"]
            )
    seconds = time.perf_counter() - start
    after = _totals(model)
    cached = after["cached_tokens"] - before["cached_tokens"]
    fresh = after["prompt_tokens"] - before["prompt_tokens"] - cached
    return LayoutRun(seconds, fresh, cached, calls, first_fresh, confused)


def sentence_judge(layout: SentenceLayout, prompts_dir: str | None) -> Judge:
    settings = JudgeSettings(mode="sentence", cache=False, prompts_dir=prompts_dir, layout=layout)
    return lambda model, sentences: judge_summary(model, sentences, settings)


SHIPPED_PROBES = "coherence_probe_qwen2.5-coder-1.5b.json"
"""Probe mode asks the probes this packaged calibration switches on (those of the embedded
judge), whatever model is measured, so every model makes the shipped judge's calls."""


def probe_judge(prompts_dir: str | None) -> Judge:
    calibration = resources.files("longform_evals.judges").joinpath(f"calibration/{SHIPPED_PROBES}")
    settings = ProbeSettings(cache=False, prompts_dir=prompts_dir, calibration=str(calibration))
    return lambda model, sentences: probe_summary(model, sentences, settings)


def layouts(mode: str, folder: Path) -> tuple[dict[str, Judge], str]:
    """The layouts of a judge mode, and the name of the packaged one."""
    if mode == "sentence":
        return {
            "sentence first": sentence_judge("quoted", sentence_first_prompts(folder)),
            "quoted": sentence_judge("quoted", None),
            "numbered": sentence_judge("numbered", None),
        }, "quoted"
    return {
        "question first": probe_judge(question_first_prompts(folder)),
        "per_probe": probe_judge(None),
    }, "per_probe"


def agreement(a: list[bool | None], b: list[bool | None]) -> str:
    """Share of sentences both layouts read and gave the same verdict (of those both read)."""
    both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    same = sum(x == y for x, y in both)
    return f"{same}/{len(both)} same verdicts" if both else "no sentence read by both"


async def part_a(model_name: str, n_summaries: int, modes: list[str]) -> None:
    summaries = judged_summaries(n_summaries)
    model = get_model(model_name)
    sizes = ", ".join(str(len(s)) for s in summaries)
    print(f"A. judge layouts on {model_name}: {len(summaries)} summaries ({sizes} sentences)")
    for mode in modes:
        with tempfile.TemporaryDirectory() as tmp:
            judges, packaged = layouts(mode, Path(tmp))
            print(f"  {mode} mode")
            rows: dict[str, LayoutRun] = {}
            for name, judge in judges.items():
                r = rows[name] = await run_layout(model, summaries, judge)
                flagged = sum(bool(c) for c in r.confused)
                unread = sum(c is None for c in r.confused)
                print(
                    f"    {name:15s} {r.seconds:7.1f} s  {r.fresh:7,d} prompt tokens processed "
                    f"({r.first_fresh:,d} for the first summary), {r.cached:7,d} read from cache, "
                    f"{r.calls} calls, {flagged} of {len(r.confused)} sentences flagged, "
                    f"{unread} unreadable (parse failures)",
                    flush=True,
                )
        base = rows[packaged]
        for name, r in rows.items():
            if name == packaged:
                continue
            print(
                f"    {name} / {packaged}: prompt tokens processed {r.fresh / base.fresh:.1f}x "
                f"(first summary {r.first_fresh / base.first_fresh:.1f}x), wall time "
                f"{r.seconds / base.seconds:.1f}x; {agreement(r.confused, base.confused)}"
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
    parser.add_argument("--summaries", type=int, default=3, help="summaries judged in part A")
    parser.add_argument(
        "--modes",
        type=lambda text: [m.strip() for m in text.split(",") if m.strip()],
        default=["sentence", "probe"],
        help="judge modes of part A: sentence, probe",
    )
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--skip-a", action="store_true", help="only the concurrency part")
    args = parser.parse_args()
    unknown = set(args.modes) - {"sentence", "probe"}
    if unknown:
        parser.error(f"unknown --modes {', '.join(sorted(unknown))}; use sentence, probe")
    if not args.skip_a:
        await part_a(args.model, args.summaries, args.modes)
    await part_b(args.latency)


if __name__ == "__main__":
    asyncio.run(main())
