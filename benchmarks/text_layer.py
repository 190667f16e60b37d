"""Speed of the text layer on a book-sized input, as ratios against baselines run alongside.

Baselines measured in the same run on the same ~100k-word synthetic book:
- sentence splitting (NLTK's Punkt, line by line, no remembered decisions) against pysbd (if
  installed: `pip install pysbd`), paragraph by paragraph;
- chunking against one plain tokenization of the whole book (the least any token-bounded
  chunker must do).

    python benchmarks/text_layer.py
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial

from longform_evals.text import chunk_text, get_tokenizer, sentence_spans, sentences

_NAMES = ["Mr. Ashby", "Dr. Quill", "Mrs. Oduya", "Captain Reyes", "J. R. Hale"]
_SENTENCES = [
    "{n} walked down to the harbour before the tide turned.",
    '"Stop!" {n} shouted, but the cart had already gone.',
    "Nobody in the village, e.g. the miller or the clerk, had seen the letter.",
    "The price rose to 3.5 shillings by the end of the week.",
    "Was it the storm... or something else?",
    "{n} said nothing; the lamp flickered and went out.",
]


def book(words: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    paragraphs, count = [], 0
    while count < words:
        sents = [
            rng.choice(_SENTENCES).format(n=rng.choice(_NAMES)) for _ in range(rng.randint(3, 9))
        ]
        para = " ".join(sents)
        paragraphs.append(para)
        count += len(para.split())
    return "\n\n".join(paragraphs)


def best_of(fn: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description="Speed of the text layer on a book-sized input.")
    parser.add_argument("--words", type=int, default=100_000, help="size of the synthetic book")
    text = book(parser.parse_args().words)
    enc = get_tokenizer("cl100k_base")
    n_tokens = enc.count(text)
    print(f"book: {len(text.split())} words, {n_tokens} cl100k tokens")

    def split_cold() -> object:
        sentences._breaks_at.cache_clear()  # Punkt's remembered decisions: none yet
        return sentence_spans(text, by_line=True)

    ours = best_of(split_cold)
    print(f"sentence_spans (by line, as documents are read): {ours:.3f} s")
    try:
        import pysbd
    except ImportError:
        print("pysbd not installed: sentence-splitting baseline skipped")
    else:
        seg = pysbd.Segmenter(language="en", clean=False)
        base = best_of(lambda: [seg.segment(p) for p in text.split("\n\n")], repeats=1)
        print(f"pysbd per paragraph: {base:.3f} s  -> sentence_spans is {base / ours:.0f}x faster")

    encode = best_of(lambda: enc.encode(text))
    print(f"one tokenization of the book: {encode:.3f} s")
    for size in (2048, 512, 128):
        took = best_of(partial(chunk_text, text, max_tokens=size))
        n = len(chunk_text(text, max_tokens=size))
        print(
            f"chunk_text C={size}: {took:.3f} s, {n} chunks = {took / encode:.1f}x one tokenization"
        )


if __name__ == "__main__":
    main()
