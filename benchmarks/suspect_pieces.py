"""What the suspect-piece readings cost and how often they fire on real summaries.

Part A, speed: a coherence judge asks for the readings of every sentence of a summary
(`statement_parts.sentence_readings`), and each ask needs the summary's language, voted over
the pieces of up to 200 of its sentences. The vote is kept per summary; the baseline, measured
in the same run, recomputes it for every sentence (what the code did before).

Part B, false alarms: the pieces of the BooookScore authors' released summaries (the
`summaries-*.json` files of ../shared/data/booookscore_gpt4, or `--summaries DIR`), how many
are suspect and why, at the shipped five-word minimum of the language rule and at `--min-words`
(three by default, the value tried first). These are the figures docs/judges.md and
docs/booookscore.md quote.

    python benchmarks/suspect_pieces.py
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from longform_evals.judges import suspect_pieces
from longform_evals.judges.statement_parts import sentence_readings
from longform_evals.text import split_sentences

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "booookscore_gpt4"


def speed(sentences: int) -> None:
    summary = [
        f"Marta walks to the harbour for the {i + 1}th time, where the boats wait out the storm."
        for i in range(sentences)
    ]
    sentence_readings(summary, 0)  # the identifier loaded, the pieces' scores cached
    start = time.perf_counter()
    for i in range(sentences):
        sentence_readings(summary, i)
    kept = time.perf_counter() - start
    voted = suspect_pieces._voted_language
    suspect_pieces._voted_language = voted.__wrapped__  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        for i in range(sentences):
            sentence_readings(summary, i)
        again = time.perf_counter() - start
    finally:
        suspect_pieces._voted_language = voted
    print(f"A. readings of every sentence of a {sentences}-sentence summary:")
    print(f"   language voted once per summary: {kept:.3f} s")
    print(f"   voted again for every sentence (baseline): {again:.3f} s ({again / kept:.0f}x)")


def false_alarms(folder: Path, min_words: int) -> None:
    files = sorted(folder.glob("summaries-*.json"))
    if not files:
        print(f"B. skipped: no summaries-*.json in {folder}")
        return
    for minimum in (suspect_pieces.MIN_WORDS, min_words):
        shipped = suspect_pieces.MIN_WORDS
        suspect_pieces.MIN_WORDS = minimum
        suspect_pieces._voted_language.cache_clear()
        try:
            sentences = pieces = 0
            reasons: Counter[str] = Counter()
            examples: list[str] = []
            for file in files:
                for summary in json.loads(file.read_text(encoding="utf-8")).values():
                    text = summary if isinstance(summary, str) else " ".join(map(str, summary))
                    split = split_sentences(text)
                    language = suspect_pieces.text_language(split)
                    sentences += len(split)
                    for piece, why in suspect_pieces.suspect_pieces(text, language):
                        pieces += 1
                        if why is not None:
                            reasons[why.split(" (")[0]] += 1
                            examples.append(f"{piece.text!r}: {why}")
        finally:
            suspect_pieces.MIN_WORDS = shipped
        print(
            f"B. language rule at {minimum} plain words: {len(files)} files, {sentences:,} "
            f"sentences, {pieces:,} pieces, {sum(reasons.values())} suspect {dict(reasons)}"
        )
        for line in examples[:10]:
            print(f"   {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=200, help="part A's summary length")
    parser.add_argument("--summaries", type=Path, default=SHARED, help="part B's folder")
    parser.add_argument("--min-words", type=int, default=3, help="part B's other minimum")
    args = parser.parse_args()
    speed(args.sentences)
    false_alarms(args.summaries, args.min_words)


if __name__ == "__main__":
    main()
