"""What the embedded local model's throughput depends on, measured side by side in one run.

A. Concurrent samples. A judged task over several summaries (BooookScore in probe mode on
   the clean summaries of the planted-error set) runs under Inspect's default concurrency and
   with `--max-connections 1`. Printed: wall time, prompt tokens processed anew and read from
   the KV cache, and their ratios, so a regression in prefix reuse between interleaved
   samples shows as a ratio above 1.
B. Slots. Hierarchical merging of a bundled book with the model loaded with 1, 2 and 4
   llama.cpp slots (`-M n_parallel=N`, one KV buffer shared by the slots); level-0 chunk
   summaries are independent calls, so with N slots up to N of them decode together.
   Printed: level-0 and whole-merge wall time, output tokens per second, speed-up over 1 slot.
C. Probe judge. Seconds per summary of the BooookScore probe judge on the bundled summary,
   one call per probe (`per_probe`) against every probe of a sentence read from one call
   (`joint`), Inspect's answer cache off.
D. Threads and repeatability. The same judge-style calls (the bundled summary, then one
   question per sentence, short answers, temperature 0) with the engine on 1 thread and on
   every core, on an idle machine and with one other CPU-bound process running (as when tests
   or a second job share the machine): wall time and its ratio to the provider's default.
   Then repeatability on one thread: the same prompts in forward and reverse order, with the
   prefix cache on (the provider's default) and off (`--cache-prompt false`), counting the
   answers that differ between passes.

    python benchmarks/throughput.py [--parts abcd] [--summaries 3] [--slots 1 2 4]

Every figure is a ratio against a baseline measured in the same run; one model at a time (two
llama.cpp engines computing at once on 2 cores would thrash each other). Part B takes about
8 minutes per slot count on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, Model, get_model

from longform_evals.data.books import bundled_books_dir, bundled_summaries_dir, load_summaries
from longform_evals.judges.coherence.probe import ProbeLayout, ProbeSettings, probe_summary
from longform_evals.tasks.booookscore import booookscore
from longform_evals.text import split_sentences


@dataclass
class Usage:
    seconds: float
    fresh: int
    cached: int
    output: int


def usage_of(log: EvalLog, seconds: float) -> Usage:
    if log.status != "success":
        raise SystemExit(f"eval {log.status}: {log.error.message if log.error else ''}")
    totals = list(log.stats.model_usage.values())
    return Usage(
        seconds,
        sum(u.input_tokens for u in totals),
        sum(u.input_tokens_cache_read or 0 for u in totals),
        sum(u.output_tokens for u in totals),
    )


def clean_summaries(n: int, folder: Path) -> Path:
    """The first `n` clean summaries of the planted-error set, as a score_only JSONL."""
    text = (
        resources.files("longform_evals.data")
        .joinpath("coherence/planted_errors.jsonl")
        .read_text(encoding="utf-8")
    )
    rows = [json.loads(line) for line in text.splitlines()]
    clean = [r for r in rows if r["error_type"] is None][:n]
    path = folder / "summaries.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": r["id"], "title": r["title"], "summary": " ".join(r["sentences"])})
            + "\n"
            for r in clean
        ),
        encoding="utf-8",
    )
    return path


def part_a(model: str | Model, n: int) -> tuple[Usage, Usage]:
    print(f"A. BooookScore (probe mode) on {n} summaries with {model}, answer cache off")
    rows: dict[str, Usage] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = clean_summaries(n, Path(tmp))
        for label, connections in (("--max-connections 1", 1), ("default concurrency", None)):
            task = booookscore(
                data=str(data), score_only=True, judge_mode="probe", judge_cache=False
            )
            start = time.perf_counter()
            [log] = inspect_eval(
                task, model=model, max_connections=connections, log_dir=tmp, display="none"
            )
            rows[label] = usage_of(log, time.perf_counter() - start)
            u = rows[label]
            print(
                f"  {label:22s} {u.seconds:7.1f} s  {u.fresh:7d} prompt tokens processed  "
                f"{u.cached:8d} read from cache"
            )
    one, many = rows["--max-connections 1"], rows["default concurrency"]
    print(
        "  default / one connection: "
        f"wall time {many.seconds / one.seconds:.2f}x, prompt tokens processed "
        f"{many.fresh / max(one.fresh, 1):.2f}x, "
        f"read from cache {many.cached / max(one.cached, 1):.2f}x"
    )
    return one, many


def level0_seconds(log: EvalLog) -> tuple[float, int]:
    """Wall time from the first to the last level-0 call, and their output tokens."""
    assert log.samples
    sample = log.samples[0]
    trace = sample.metadata["summary_trace"]
    # Every try of a chunk summary is a call, and all of them start before the first merge.
    n0 = sum(int(step.get("tries", 1)) for step in trace if step.get("level") == 0)
    calls = [e for e in sample.events if isinstance(e, ModelEvent)][:n0]
    start = min(e.timestamp for e in calls)
    end = max(e.completed or e.timestamp for e in calls)
    return (end - start).total_seconds(), sum(
        e.output.usage.output_tokens for e in calls if e.output.usage
    )


def part_b(model: str, book: str, chunk_size: int, slots: list[int]) -> None:
    path = bundled_books_dir() / f"{book}.txt"
    print(
        f"\nB. hierarchical merging of {book} in chunks of {chunk_size} with {model}, "
        "seed 1, cache off"
    )
    rows: dict[int, tuple[Usage, float, int]] = {}
    for n in slots:
        # The strategy's own temperature (0.5): at 0, an over-long merge comes back over-long
        # on every retry and the run measures retries instead of throughput.
        task = booookscore(data=str(path), chunk_size=chunk_size, cache=False)
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            [log] = inspect_eval(
                task,
                model=model,
                model_args={"n_parallel": n},
                seed=1,
                score=False,
                log_dir=tmp,
                display="none",
            )
            u = usage_of(log, time.perf_counter() - start)
            l0, out0 = level0_seconds(log)  # samples load lazily, from the log file
        rows[n] = (u, l0, out0)
        print(
            f"  {n} slot(s): level 0 {l0:6.1f} s ({out0 / l0:5.2f} output tokens/s), whole merge "
            f"{u.seconds:6.1f} s ({u.output} output tokens, {u.fresh} prompt tokens processed)"
        )
    base = rows[slots[0]]
    for n in slots[1:]:
        u, l0, out0 = rows[n]
        print(
            f"  {n} vs {slots[0]} slot(s): level-0 output tokens/s "
            f"{(out0 / l0) / (base[2] / base[1]):.2f}x, level-0 wall {base[1] / l0:.2f}x, "
            f"whole merge {base[0].seconds / u.seconds:.2f}x"
        )


@dataclass
class ProbeRun:
    seconds: float
    calls: int
    fresh: int
    prompt_seconds: float
    generation_seconds: float
    flagged: int


async def _probe_run(model_name: str, layout: ProbeLayout) -> ProbeRun:
    [sample] = load_summaries(bundled_summaries_dir() / "the_frost_hold.jsonl")
    sentences = split_sentences(str(sample.metadata["summary"]))  # type: ignore[index]
    model = get_model(model_name)
    totals = getattr(model.api, "totals", None)
    if not isinstance(totals, dict):
        raise SystemExit(f"{model_name} does not report llama.cpp timings; part C needs gguf/")
    await model.generate("Say OK.", config=GenerateConfig(max_tokens=2))  # a neutral prefix
    before = dict(totals)
    start = time.perf_counter()
    settings = ProbeSettings(cache=False, layout=layout)
    verdicts, calls = await probe_summary(model, sentences, settings)
    seconds = time.perf_counter() - start
    spent = {k: totals[k] - before[k] for k in totals}
    return ProbeRun(
        seconds,
        calls,
        int(spent["prompt_tokens"] - spent["cached_tokens"]),
        spent["prompt_ms"] / 1000,
        spent["generation_ms"] / 1000,
        sum(1 for v in verdicts if v.confused),
    )


def part_c(model: str) -> None:
    print(
        f"\nC. probe judge on the bundled summary with {model}, answer cache off "
        "(per_probe: the shipped layout; joint: every probe of a sentence from one call)"
    )
    rows: dict[str, ProbeRun] = {}
    layouts: tuple[ProbeLayout, ...] = ("per_probe", "joint")
    for layout in layouts:
        r = rows[layout] = asyncio.run(_probe_run(model, layout))
        print(
            f"  {layout:10s} {r.seconds:6.1f} s per summary, {r.calls:3d} calls, "
            f"{r.fresh:6d} prompt tokens processed; llama.cpp prompt processing "
            f"{r.prompt_seconds:6.1f} s ({r.prompt_seconds / r.seconds:.0%} of the wall time), "
            f"generation {r.generation_seconds:5.1f} s; {r.flagged} sentences flagged"
        )
    before, after = rows["per_probe"], rows["joint"]
    print(
        f"  joint vs per_probe: {before.seconds / after.seconds:.2f}x less wall time, "
        f"{before.fresh / max(after.fresh, 1):.2f}x fewer prompt tokens processed "
        "(its verdicts: benchmarks/booookscore_judge.py --layout joint --calibrate)"
    )


def _spin(stop: Any) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


async def _ask_all(model: Model, prompts: list[str], cache_prompt: bool) -> list[str]:
    config = GenerateConfig(temperature=0, max_tokens=24, cache_prompt=cache_prompt, seed=0)
    answers = []
    for prompt in prompts:  # one at a time: the engine's own speed, not its batching
        output = await model.generate(prompt, config=config, cache=False)
        answers.append(output.completion)
    return answers


def part_d(model: str, questions: int) -> None:
    import multiprocessing

    [sample] = load_summaries(bundled_summaries_dir() / "the_frost_hold.jsonl")
    summary = str((sample.metadata or {})["summary"])
    sentences = split_sentences(summary)[:questions]
    prompts = [
        f"Summary:\n{summary}\n\nSentence: {s}\nWould this sentence confuse a reader of "
        "the summary? Answer yes or no, then one short reason."
        for s in sentences
    ]
    cores = os.cpu_count() or 1
    print(
        f"\nD. {len(prompts)} judge-style calls with {model} (max 24 answer tokens), "
        f"threads 1 and {cores} (the default), idle and beside one CPU-bound process"
    )
    seconds: dict[tuple[str, int], float] = {}
    for load in ("idle", "busy"):
        stop = multiprocessing.Event()
        spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
        if load == "busy":
            spinner.start()
        try:
            for threads in sorted({1, cores}):
                judge = get_model(model, n_threads=threads, memoize=False)
                # load the engine and read the summary into its prefix cache, untimed
                asyncio.run(_ask_all(judge, prompts[:1], True))
                start = time.perf_counter()
                asyncio.run(_ask_all(judge, prompts, True))
                seconds[(load, threads)] = time.perf_counter() - start
        finally:
            stop.set()
            if spinner.is_alive():
                spinner.join()
        base = seconds[(load, cores)]
        for threads in sorted({1, cores}):
            took = seconds[(load, threads)]
            print(
                f"  {load:4s} threads={threads}: {took:6.1f} s "
                f"({base / took:.2f}x the speed of threads={cores})"
            )
    judge = get_model(model, n_threads=1, memoize=False)
    passes = {
        (cache, order): asyncio.run(_ask_all(judge, prompts[::step], cache))[::step]
        for cache in (True, False)
        for order, step in (("forward", 1), ("reverse", -1))
    }

    def differ(a: tuple[bool, str], b: tuple[bool, str]) -> int:
        return sum(x != y for x, y in zip(passes[a], passes[b], strict=True))

    print(
        f"  repeatability, answers that differ of {len(prompts)}: prefix cache on, forward vs "
        f"reverse order: {differ((True, 'forward'), (True, 'reverse'))}; cache off, forward vs "
        f"reverse: {differ((False, 'forward'), (False, 'reverse'))}; cache on vs off: "
        f"{differ((True, 'forward'), (False, 'forward'))}"
    )


def main() -> None:
    os.environ.setdefault("INSPECT_DISPLAY", "none")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("--parts", default="abc", help="which parts to run (letters a-d)")
    parser.add_argument("--questions", type=int, default=6, help="part D: calls per pass")
    parser.add_argument("--summaries", type=int, default=3, help="part A: summaries judged")
    parser.add_argument("--book", default="the_frost_hold", help="part B: a bundled book id")
    parser.add_argument("--chunk-size", type=int, default=512, help="part B: tokens per chunk")
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 2, 4], help="part B")
    args = parser.parse_args()
    unknown = set(args.parts) - set("abcd")
    if unknown:
        parser.error(f"--parts takes the letters a to d, not {''.join(sorted(unknown))}")
    if "a" in args.parts:
        part_a(args.model, args.summaries)
    if "b" in args.parts:
        part_b(args.model, args.book, args.chunk_size, args.slots)
    if "c" in args.parts:
        part_c(args.model)
    if "d" in args.parts:
        part_d(args.model, args.questions)


if __name__ == "__main__":
    main()
