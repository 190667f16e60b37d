"""How much KV-cache reuse of a shared prompt prefix saves on the embedded GGUF model.

Sends N prompts that share a long prefix (instructions plus a ~2,000-token passage) and differ
only in a short final question, once with prefix reuse switched off and once with it on, all
through Inspect's model API, and prints the wall-time ratio measured in this run.

    python benchmarks/gguf_prefix_cache.py [--model gguf/qwen2.5-coder-0.5b] [--prompts 20]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from longform_evals.text import count_tokens

_WORDS = [
    "river",
    "stone",
    "lantern",
    "harbour",
    "winter",
    "orchard",
    "letter",
    "bridge",
    "market",
    "candle",
    "meadow",
    "station",
    "window",
    "garden",
    "forest",
    "valley",
    "mirror",
    "ledger",
    "clock",
    "tower",
    "island",
    "road",
    "quarry",
    "sailor",
    "weaver",
    "miller",
    "baker",
    "teacher",
    "doctor",
    "captain",
    "widow",
    "soldier",
    "clerk",
    "farmer",
]
_VERBS = [
    "found",
    "carried",
    "lost",
    "painted",
    "mended",
    "sold",
    "buried",
    "watched",
    "followed",
    "remembered",
]


def passage(target_tokens: int, seed: int = 7) -> str:
    """Deterministic pseudo-prose of about `target_tokens` cl100k tokens."""
    rng = random.Random(seed)
    sentences: list[str] = []
    while count_tokens(" ".join(sentences)) < target_tokens:
        a, b = rng.sample(_WORDS, 2)
        sentences.append(f"The {a} {rng.choice(_VERBS)} the {b} near the {rng.choice(_WORDS)}.")
    return " ".join(sentences)


async def run(model_name: str, prompts: list[str], reuse: bool) -> tuple[float, int]:
    model = get_model(model_name)
    config = GenerateConfig(max_tokens=4, temperature=0.0, cache_prompt=reuse)
    start = time.perf_counter()
    outputs: list[ModelOutput] = []
    for prompt in prompts:  # in order, as a judge walks the sentences of one summary
        outputs.append(await model.generate(prompt, config=config))
    elapsed = time.perf_counter() - start
    cached = sum((o.usage.input_tokens_cache_read or 0) if o.usage else 0 for o in outputs)
    return elapsed, cached


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gguf/qwen2.5-coder-0.5b")
    parser.add_argument("--prompts", type=int, default=20)
    parser.add_argument("--prefix-tokens", type=int, default=2000)
    args = parser.parse_args()

    shared = "Read the passage, then answer the question after it with one word.\n\n" + passage(
        args.prefix_tokens
    )
    prompts = [
        f"{shared}\n\nQuestion {i}: name one object in the passage."
        for i in range(1, 1 + args.prompts)
    ]
    print(
        f"model {args.model}; {args.prompts} prompts; shared prefix {count_tokens(shared)} tokens"
    )

    await run(args.model, prompts[:1], reuse=False)  # load the model outside the timings
    cold, cold_cached = await run(args.model, prompts, reuse=False)
    warm, warm_cached = await run(args.model, prompts, reuse=True)
    print(f"without prefix reuse: {cold:7.2f} s  ({cold_cached} prompt tokens read from cache)")
    print(f"with prefix reuse:    {warm:7.2f} s  ({warm_cached} prompt tokens read from cache)")
    print(f"speed-up (without / with): {cold / warm:.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
