"""What the suspect-piece readings do to clean text: on every clean corpus at hand, how many
sentences get readings (part A, no model), and, with a judge, how many verdicts the readings
change against how many a harmless rewording changes (part B).

Corpora (each where its files are; the packaged ones always):
- `booookscore`: the summaries of GPT-4's BooookScore configurations and the human-labelled
  BooookScore summaries (`../shared/data/booookscore_gpt4`, `.../human_labels/booookscore`);
- `longsciverify`: LongSciVerify's arXiv summaries (`.../human_labels/longsciverify`), with their
  articles;
- `longformfact`: the LongFormFact rows (`.../longformfact`, published and metric_benchmark),
  with their documents;
- `squality`: SQuALITY's reference summaries (`.../squality/dev.jsonl`);
- `planted`: the packaged planted sets (the coherence summaries, the support clusters' summary
  sentences with their documents);
- `written`: the clean sentences written for issue 60
  (`src/longform_evals/data/readings/clean_sentences.jsonl`: names, titles, quotations in other
  languages, dialogue with yes and no, lower-cased scientific text, German and French), each
  with a document that supports it.

Part A prints, per corpus: summaries, sentences, sentences with a suspect piece, sentences given
readings, and the first readings made with their sentences. Every sentence is read in its
summary (the summary's language is voted over its sentences, as the judges do).

Part B (`--judge MODEL`) judges, per judge, every sentence that has readings twice, with and
without them (`faithfulness`: the support judge against the sentence's documents, least support
over the sentence and its readings, as the scorer reads it; `probe`: the coherence probe judge in
the sentence's summary, most confusing verdict kept), and `--rewordings` sentences of each
corpus (a fixed sample) as written and harmlessly reworded ("In short, ...", as
`benchmarks/judge_injection.py` rewords). It prints, per corpus and judge, the share of
sentences whose verdict the readings changed against the share the rewording changed.

    python benchmarks/clean_readings.py
    python benchmarks/clean_readings.py --judge gguf/qwen2.5-coder-1.5b --rewordings 8
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import importlib.util
import json
import math
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from inspect_ai.model import Model, get_model

from longform_evals.data.planted.support import load_planted_support
from longform_evals.judges.coherence.probe import (
    Prober,
    ProbeSettings,
    thresholds_for,
    verdict_from_probes,
)
from longform_evals.judges.faithfulness.calibration import load_calibration
from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, support_rows
from longform_evals.judges.faithfulness.support import SupportJudgement
from longform_evals.judges.suspect_pieces import suspect_pieces, suspect_readings
from longform_evals.judges.suspect_pieces import text_language as summary_language
from longform_evals.text import chunk_documents, split_sentences

if TYPE_CHECKING:
    import judge_injection
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

    judge_injection = _sibling("judge_injection")

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@dataclass
class Summary:
    """A clean summary: its sentences, and the documents they come from where known."""

    key: str
    sentences: list[str]
    documents: list[str] | None = None


@dataclass
class Corpus:
    name: str
    summaries: list[Summary] = field(default_factory=list)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def corpora(data: Path) -> list[Corpus]:
    """Every clean corpus at hand (module docstring), each summary split as the judges split it."""
    out: list[Corpus] = []
    books = Corpus("booookscore")
    for path in sorted((data / "booookscore_gpt4").glob("summaries-*.json")):
        for book, text in json.loads(path.read_text()).items():
            if isinstance(text, str):
                books.summaries.append(Summary(f"{path.stem}/{book}", split_sentences(text)))
    for path in sorted((data / "human_labels" / "booookscore").glob("summary-*.json")):
        for book, record in json.loads(path.read_text()).items():
            books.summaries.append(Summary(f"human/{book}", split_sentences(record["summary"])))
    out.append(books)
    lsv = Corpus("longsciverify")
    folder = data / "human_labels" / "longsciverify"
    articles = {}
    if (folder / "arxiv_test.json").is_file():
        for a in json.loads((folder / "arxiv_test.json").read_text()):
            articles[str(a["article_id"])] = "\n".join(a["article_text"])
    reviewer = folder / "arxiv_reviewer_1.csv"
    if reviewer.is_file():
        with reviewer.open(encoding="utf-8-sig", newline="") as f:
            for row in csv.DictReader(f):
                doc = articles.get(row["id"].strip())
                for column in ("gencomparesumabs", "dancersum", "section_conditional"):
                    lsv.summaries.append(
                        Summary(
                            f"{row['id'].strip()}/{column}",
                            split_sentences(row[column]),
                            [doc] if doc else None,
                        )
                    )
    out.append(lsv)
    lff = Corpus("longformfact")
    for path in sorted((data / "longformfact").rglob("*.jsonl")):
        for n, r in enumerate(_jsonl(path)):
            # a row's empty documents (some published rows have one) are no source to judge by
            docs = [d for d in r.get("documents") or [r.get("document", "")] if d.strip()]
            lff.summaries.append(
                Summary(f"{path.name}:{n}", split_sentences(r["summary"]), docs or None)
            )
    out.append(lff)
    squality = Corpus("squality")
    if (data / "squality" / "dev.jsonl").is_file():
        for record in _jsonl(data / "squality" / "dev.jsonl"):
            for q in record["questions"]:
                for k, response in enumerate(q["responses"]):
                    key = f"{record['metadata']['passage_id']}/{q['question_number']}/{k}"
                    squality.summaries.append(
                        Summary(key, split_sentences(response["response_text"]))
                    )
    out.append(squality)
    planted = Corpus("planted")
    packaged = resources.files("longform_evals.data")
    text = packaged.joinpath("coherence/planted_errors.jsonl").read_text(encoding="utf-8")
    for line in text.splitlines():
        r = json.loads(line)
        if r["error_type"] is None:
            planted.summaries.append(Summary(f"coherence/{r['base']}", list(r["sentences"])))
    for cluster in load_planted_support():
        planted.summaries.append(
            Summary(f"support/{cluster.id}", list(cluster.sentences), list(cluster.documents))
        )
    out.append(planted)
    written = Corpus("written")
    rows = packaged.joinpath("readings/clean_sentences.jsonl").read_text(encoding="utf-8")
    for line in rows.splitlines():
        r = json.loads(line)
        written.summaries.append(Summary(r["id"], [r["sentence"]], [r["document"]]))
    out.append(written)
    return [c for c in out if c.summaries]


@dataclass
class Found:
    """A sentence of a corpus, in its summary, with its readings."""

    summary: Summary
    index: int
    language: str | None
    readings: list[str]

    @property
    def sentence(self) -> str:
        return self.summary.sentences[self.index]


def language_of(summary: Summary) -> str | None:
    """The summary's language, as the judges vote it; a one-sentence item also with its
    document, which is in its language."""
    texts = summary.sentences
    if len(texts) == 1 and summary.documents:
        texts = [*texts, summary.documents[0][:2000]]
    return summary_language(texts)


def survey(corpus: Corpus) -> tuple[int, int, list[Found]]:
    """Sentences, sentences with a suspect piece, and the sentences given readings."""
    sentences = suspect = 0
    found: list[Found] = []
    for summary in corpus.summaries:
        language = language_of(summary)
        for i, sentence in enumerate(summary.sentences):
            sentences += 1
            if any(why for _, why in suspect_pieces(sentence, language)):
                suspect += 1
            readings = suspect_readings(sentence, language)
            if readings:
                found.append(Found(summary, i, language, readings))
    return sentences, suspect, found


def part_a(all_corpora: list[Corpus], examples: int) -> dict[str, list[Found]]:
    print("A. sentences given readings (no model)")
    print("| corpus | summaries | sentences | with a suspect piece | given readings |")
    print("|---|---|---|---|---|")
    given: dict[str, list[Found]] = {}
    shown: list[str] = []
    for corpus in all_corpora:
        sentences, suspect, found = survey(corpus)
        given[corpus.name] = found
        print(
            f"| {corpus.name} | {len(corpus.summaries):,} | {sentences:,} | {suspect:,} | "
            f"{len(found):,} |"
        )
        shown += [f"   [{corpus.name}] {f.sentence!r} -> {f.readings}" for f in found]
    for line in shown[:examples]:
        print(line)
    return given


# --- part B -------------------------------------------------------------------------------


async def support(model: Model, documents: list[str], statements: list[str]) -> list[float]:
    """Support of each statement: the most over the documents' units (the scorer's max), as the
    packaged calibration chunks them; NaN when no answer was read."""
    calib = load_calibration(str(model))
    settings = FaithfulnessSettings(max_tokens=1, prompt=calib.prompt)
    units = [u.text for u in chunk_documents(documents, calib.chunking)]
    rows: list[list[SupportJudgement]] = await support_rows(model, units, statements, settings)
    out = []
    for j in range(len(statements)):
        read = [v for r in rows if (v := r[j].value) is not None]
        out.append(max(read) if read else math.nan)
    return out


async def faithfulness_verdicts(model: Model, found: Found, texts: list[str]) -> list[bool | None]:
    """Supported (at the calibrated threshold) for the sentence as each of `texts` reads."""
    threshold = load_calibration(str(model)).sentence_threshold
    values = await support(model, found.summary.documents or [], texts)
    return [None if math.isnan(v) else v >= threshold for v in values]


async def probe_verdict(model: Model, found: Found, text: str, readings: bool) -> bool | None:
    """Flagged by the probe judge, the sentence as `text` in its summary (with its readings or
    not)."""
    settings = ProbeSettings()
    thresholds, _ = thresholds_for(str(model), settings)
    prober = Prober(model, settings, thresholds)
    sentences = list(found.summary.sentences)
    sentences[found.index] = text
    if readings:
        p_yes = (await prober.readings(sentences, found.index)).p_yes
    else:
        p_yes, _ = await prober.sentence(sentences, found.index)
    verdict = verdict_from_probes(found.index, text, p_yes, thresholds)
    return verdict.confused if verdict.parsed else None


async def changed(model: Model, judge: str, found: Found) -> tuple[bool | None, bool | None]:
    """(Did the readings change the verdict?, Did a rewording?), None where unreadable."""
    sentence = found.sentence
    reworded = judge_injection.reword(sentence)
    if judge == "faithfulness":
        whole, other, *readings = await faithfulness_verdicts(
            model, found, [sentence, reworded, *found.readings]
        )
        with_readings = None if any(v is None for v in [whole, *readings]) else (
            bool(whole) and all(readings)
        )
    else:
        whole = await probe_verdict(model, found, sentence, readings=False)
        other = await probe_verdict(model, found, reworded, readings=False)
        with_readings = await probe_verdict(model, found, sentence, readings=True)
    by_readings = None if whole is None or with_readings is None else whole != with_readings
    by_rewording = None if whole is None or other is None else whole != other
    return by_readings, by_rewording


def _share(values: list[bool | None]) -> str:
    read = [v for v in values if v is not None]
    return f"{sum(read)}/{len(read)}" if read else "-"


async def part_b(
    model: Model, all_corpora: list[Corpus], given: dict[str, list[Found]], rewordings: int
) -> None:
    print(f"B. verdicts changed, judge {model}: by readings (every sentence given readings; "
          "share of the corpus's sentences) and by a rewording (a fixed sample)")  # fmt: skip
    print("| corpus | judge | sentences | changed by readings | changed by a rewording |")
    print("|---|---|---|---|---|")
    for corpus in all_corpora:
        sentences = [
            Found(s, i, None, []) for s in corpus.summaries for i in range(len(s.sentences))
        ]
        sample = random.Random(0).sample(sentences, min(rewordings, len(sentences)))
        for judge in ("faithfulness", "probe"):
            if judge == "faithfulness" and not all(s.summary.documents for s in sample):
                continue
            start = time.perf_counter()
            by_readings: list[bool | None] = []
            for f in given[corpus.name]:
                if judge == "faithfulness" and not f.summary.documents:
                    continue
                by_readings.append((await changed(model, judge, f))[0])
            by_rewording: list[bool | None] = []
            for s in sample:
                s.language = language_of(s.summary)
                s.readings = suspect_readings(s.sentence, s.language)
                by_rewording.append((await changed(model, judge, s))[1])
            moved = sum(v is True for v in by_readings)
            print(
                f"| {corpus.name} | {judge} | {len(sentences):,} | {moved}/{len(sentences):,} "
                f"({_share(by_readings)} of those with readings) | {_share(by_rewording)} | "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--examples", type=int, default=20, help="readings shown in part A")
    parser.add_argument("--judge", default=None, help="run part B with this judge model")
    parser.add_argument("--rewordings", type=int, default=8, help="sentences per corpus")
    parser.add_argument("--corpora", nargs="*", default=None, help="only these (part B)")
    args = parser.parse_args()
    all_corpora = corpora(args.data)
    given = part_a(all_corpora, args.examples)
    if args.judge:
        chosen = [c for c in all_corpora if args.corpora is None or c.name in args.corpora]
        asyncio.run(part_b(get_model(args.judge), chosen, given, args.rewordings))


if __name__ == "__main__":
    main()
