"""The paper's BooookScore figures from GPT-4's released annotations: the suite's scorer against
the official package, on the same summaries and the same verdicts, under both of the suite's
rules for a sentence the summary repeats word for word.

Data: `../shared/data/booookscore_gpt4/` (README there): for three of the paper's
configurations, the summaries `{book: summary}` and GPT-4's released annotations, which hold
only the sentences GPT-4 flagged (a book whose sentences were all clean maps to null), in
either of the BooookScore repository's two formats: `{book: {sentence: {questions, types}}}`
(what the official `get_annot` writes: one entry per sentence text) or `{book: [{span,
questions, types}, ...]}` (llama2-2048-hier: one entry per flagged occurrence, so a sentence
the summary repeats may be listed several times, with different questions or types). The
paper reports 78.6 for `claude-2048-inc`.

Per configuration:
1. punkt: every summary split by nltk's `sent_tokenize` in the reference env
   (benchmarks/reference_env.py), the split GPT-4 was asked about.
2. each punkt sentence's verdict, occurrence by occurrence: in the dict format the one entry of
   its text, at every occurrence (the file keeps one verdict per text); in the list format the
   entries of its text in the order listed, which say how many occurrences GPT-4 flagged but
   not which: they go to its last occurrences (so a sentence flagged anywhere is flagged in
   the file `get_annot` would write, as reading the list into the dict format by text gives).
   Sentences listed fewer (or more) times than the summary has them are counted and printed.
3. official: the annotation file `Scorer.get_annot` would have written, each punkt sentence
   written in order under its text (a repeat overwrites it, so the last occurrence's verdict
   stays; a clean one as questions and types None, which is what `validate_response` returns
   for "no confusion"), scored by the package's own `Scorer.get_score` in the reference env.
   Books: those of the released file, null books counting as all clean; that is the choice
   that gives the paper's 78.6 (printed beside the other treatments).
4. suite: the `longform_evals/booookscore` task with `score_only` on the same books, run by
   `inspect_ai.eval` once per rule for repeated sentences (`once`, the default, and `each`)
   with a recorded judge as the grader: for each sentence the suite's splitter makes, the
   `sentence`-mode answer its punkt occurrence's released verdict becomes ("No confusion." or
   `Questions:` and `Types:` lines). The `numbered` layout is used, whose prompt names the
   sentence by its place, so each occurrence of a repeated sentence gets its own answer (the
   `quoted` prompt of two occurrences is the same text). A suite sentence that is not exactly
   one punkt sentence (the splitters differ) has no verdict of its own: it is answered from
   the punkt sentences it overlaps (flagged when any is, with their types), counted as
   unmatched, and the score without those sentences is printed too.

A flagged sentence of the released file that is no punkt sentence here loses its flag on both
sides (listed): in claude-2048-inc one, cut at `Sides.” Despite` by this nltk but not by the
3.8.1 GPT-4's split came from (with nltk 3.8.1 the official figure is 78.59 instead of 78.63,
measured once outside this script); in chatgpt-2048-hier nine, absent from the summaries.

    python benchmarks/paper_booookscore.py [--data DIR] [--limit N] [--configs NAME ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from longform_evals.judges.coherence.demonstrations import numbered_lines
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.injection import as_data
from longform_evals.judges.text_check import check_text, has_word
from longform_evals.scorers.booookscore import RepeatedSentences, booookscore_values
from longform_evals.scorers.results import result_values
from longform_evals.text import sentence_spans

if TYPE_CHECKING:
    import reference_env
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

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "booookscore_gpt4"
CONFIGS = ("claude-2048-inc", "chatgpt-2048-hier", "llama2-2048-hier")
RULES: tuple[RepeatedSentences, ...] = ("once", "each")  # the suite's rules, default first
PAPER = {"claude-2048-inc": 78.6}  # arXiv:2310.00785, section 5
MATCHED = "paper, unmatched sentences left out"
"""The official figure over the punkt sentences the suite also makes (beside the suite's figure
without the unmatched sentences)."""
Span = tuple[int, int]
Entry = dict[str, Any]  # one released verdict: {"questions": str, "types": [str]}
BookAnnotation = dict[str, Entry] | list[Entry] | None  # by sentence, a list of spans, or null
Format = Literal["dict", "list", "null"]


def _entry(raw: Any, where: str) -> Entry:
    """A released verdict's questions and types (a list item's `span` left out)."""
    if not isinstance(raw, dict) or "questions" not in raw or "types" not in raw:
        raise ValueError(f"{where}: expected an object with questions and types, got {raw!r}")
    return {"questions": raw["questions"], "types": list(raw["types"] or [])}


def listed_entries(annotation: BookAnnotation, where: str = "book") -> dict[str, list[Entry]]:
    """A book's released verdicts by sentence text, each text's in the order listed: one per
    text in the dict format, one per flagged occurrence in the list-of-spans format.

    Raises:
        ValueError: naming ``where`` when the annotation is in neither format.
    """
    if annotation is None:
        return {}
    if isinstance(annotation, dict):
        return {s: [_entry(e, f"{where}: {s[:40]!r}")] for s, e in annotation.items()}
    if isinstance(annotation, list):
        found: dict[str, list[Entry]] = {}
        for i, item in enumerate(annotation):
            span = item.get("span") if isinstance(item, dict) else None
            if not isinstance(span, str):
                raise ValueError(f"{where}[{i}]: expected an object with a span, got {item!r}")
            found.setdefault(span, []).append(_entry(item, f"{where}[{i}]"))
        return found
    raise ValueError(f"{where}: expected an object, a list of spans or null")


def occurrence_entries(
    punkt: list[str], listed: Mapping[str, list[Entry]], per_occurrence: bool
) -> list[Entry | None]:
    """Each punkt sentence's released verdict (None: clean), occurrence by occurrence.

    ``per_occurrence`` False (the dict format): a text's one entry at each of its occurrences.
    True (the list format): a text's n entries, in the order listed, at its last n occurrences
    (the list does not say which occurrences were flagged).
    """
    places: dict[str, list[int]] = {}
    for j, sentence in enumerate(punkt):
        places.setdefault(sentence, []).append(j)
    found: list[Entry | None] = [None] * len(punkt)
    for sentence, entries in listed.items():
        where = places.get(sentence, [])
        if not per_occurrence:
            for j in where:
                found[j] = entries[-1]
            continue
        n = min(len(entries), len(where))
        for j, entry in zip(where[len(where) - n :], entries[len(entries) - n :], strict=True):
            found[j] = entry
    return found


@dataclass(frozen=True)
class Released:
    """One configuration's summaries and GPT-4's released annotations."""

    name: str
    summaries: dict[str, str]
    annotations: dict[str, BookAnnotation]

    @classmethod
    def load(cls, data_dir: Path, name: str) -> Released:
        summaries = json.loads((data_dir / f"summaries-{name}.json").read_text(encoding="utf-8"))
        path = data_dir / f"annotations-{name}.json"
        annotations = json.loads(path.read_text(encoding="utf-8"))
        for book, annotation in annotations.items():
            listed_entries(annotation, f"{path.name}#{book}")  # either format, or refused here
        return cls(name, summaries, annotations)

    def books(self, limit: int | None = None) -> list[str]:
        """The books of the released annotation file (the paper's set), sorted."""
        return sorted(self.annotations)[:limit]

    def format(self, book: str) -> Format:
        annotation = self.annotations.get(book)
        return "null" if annotation is None else "list" if isinstance(annotation, list) else "dict"

    def listed(self, book: str) -> dict[str, list[Entry]]:
        """The book's released verdicts by sentence text (:func:`listed_entries`)."""
        return listed_entries(self.annotations.get(book), book)

    def occurrences(self, book: str, punkt: list[str]) -> list[Entry | None]:
        """Each punkt sentence's verdict (:func:`occurrence_entries`)."""
        return occurrence_entries(punkt, self.listed(book), self.format(book) == "list")

    def mismatched(self, book: str, punkt: list[str]) -> tuple[int, int]:
        """Sentences of the list format listed fewer times than punkt has them (which
        occurrences GPT-4 flagged is not known), and more times (GPT-4's split made more of
        them than this nltk does: the extra entries have no occurrence)."""
        if self.format(book) != "list":
            return 0, 0
        counts = Counter(punkt)
        listed = {s: len(e) for s, e in self.listed(book).items() if counts[s]}
        fewer = sum(1 for s, n in listed.items() if n < counts[s])
        return fewer, sum(1 for s, n in listed.items() if n > counts[s])


# --- punkt and the official scorer, in the reference env -------------------------------

_SPLIT = """
import json, sys
from nltk.tokenize import sent_tokenize
summaries = json.load(open(sys.argv[1]))
json.dump({book: sent_tokenize(text) for book, text in summaries.items()}, open(sys.argv[2], "w"))
"""

# get_score reads annot_path only (get_annot runs only when the file is missing); the client
# the constructor builds needs a key file and makes no call.
_GET_SCORE = """
import json, sys
from booookscore.score import Scorer
open(sys.argv[1], "w").write("unused")
scores = {}
for path in sys.argv[3:]:
    scorer = Scorer(model="gpt-4", api="openai", api_key=sys.argv[1], summ_path=None,
                    annot_path=path, template_path=None)
    scores[path] = float(scorer.get_score())
json.dump(scores, open(sys.argv[2], "w"))
"""


def punkt_splits(
    env: reference_env.ReferenceEnv, summaries: Mapping[str, str], work: Path
) -> dict[str, list[str]]:
    """nltk `sent_tokenize` of every summary, run in the reference env."""
    source, out = work / "punkt-in.json", work / "punkt-out.json"
    source.write_text(json.dumps(summaries))
    env.run(_SPLIT, args=[str(source), str(out)])
    splits: dict[str, list[str]] = json.loads(out.read_text())
    return splits


def written_annotation(punkt: list[str], entries: list[Entry | None]) -> dict[str, Entry]:
    """What get_annot writes for one book: each punkt sentence in order under its text (a
    repeat overwrites the entry, so its last occurrence's verdict stays), GPT-4's entry for a
    flagged one, questions and types None (validate_response's "no confusion") otherwise."""
    clean: Entry = {"questions": None, "types": None}
    written: dict[str, Entry] = {}
    for sentence, entry in zip(punkt, entries, strict=True):
        written[sentence] = entry or clean
    return written


def official_annotations(
    splits: Mapping[str, list[str]], released: Released, books: Iterable[str]
) -> dict[str, dict[str, Entry]]:
    """The file get_annot would write for ``books`` (:func:`written_annotation`)."""
    return {
        book: written_annotation(splits[book], released.occurrences(book, splits[book]))
        for book in books
    }


def official_scores(
    env: reference_env.ReferenceEnv, files: Mapping[str, dict[str, Any]], work: Path
) -> dict[str, float]:
    """`Scorer.get_score` (x100) of each annotation file, by name."""
    paths = {name: work / f"annotations-{name.replace(' ', '-')}.json" for name in files}
    for name, annotation in files.items():
        paths[name].write_text(json.dumps(annotation))
    out = work / "official-scores.json"
    env.run(_GET_SCORE, args=[str(work / "key.txt"), str(out), *map(str, paths.values())])
    scores = json.loads(out.read_text())
    return {name: 100 * scores[str(path)] for name, path in paths.items()}


def treatments(released: Released, books: list[str]) -> dict[str, list[str]]:
    """Which books a figure averages over; `paper` reproduces the published 78.6."""
    nulls = {b for b, v in released.annotations.items() if v is None}
    every = sorted(released.summaries) if len(books) == len(released.annotations) else books
    return {
        "paper": books,  # the released file's books, null ones all clean
        "every summary": every,  # what get_annot writes for the whole summaries file
        "null books left out": [b for b in books if b not in nulls],
    }


# --- the suite's sentences against punkt's ---------------------------------------------


def spans(text: str, pieces: Iterable[str]) -> list[Span]:
    """Offsets of `pieces` without their surrounding whitespace (sent_tokenize keeps a text's
    leading whitespace on its first sentence), each found in `text` after the previous one."""
    found, at = [], 0
    for piece in map(str.strip, pieces):
        start = text.find(piece, at)
        if start < 0:
            raise ValueError(f"{piece[:60]!r} is not in the text after offset {at}")
        found.append((start, start + len(piece)))
        at = start + len(piece)
    return found


@dataclass(frozen=True)
class Unit:
    """One sentence the suite judges, with the released verdict it gets."""

    sentence: str
    kind: str  # "same" (a punkt sentence), "joins", "part" (of a punkt sentence) or "crosses"
    flagged: bool
    questions: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    where: str = ""  # for a difference: the text around the first boundary the splits disagree on
    punkt: tuple[int, ...] = ()  # the punkt sentences it overlaps, by position

    @property
    def answer(self) -> str:
        """The suite's `sentence`-mode answer for this verdict."""
        if not self.flagged:
            return "No confusion."
        types = ", ".join(t.replace(" ", "_") for t in self.types)
        return f"Questions: {' '.join(self.questions)}\nTypes: {types}"


def _kind(span: Span, overlapping: list[Span]) -> str:
    if overlapping == [span]:
        return "same"
    if len(overlapping) == 1:
        return "part"
    inside = all(span[0] <= a and b <= span[1] for a, b in overlapping)
    return "joins" if inside else "crosses"


def _where(text: str, span: Span, overlapping: list[Span], width: int = 40) -> str:
    """`...before | after...` around the first cut one splitter makes and the other does not."""
    cuts = [a for a, _ in overlapping if span[0] < a < span[1]]  # punkt cuts inside ours
    cuts += [c for c in span if any(a < c < b for a, b in overlapping)]  # ours inside punkt's
    if not cuts:
        return ""
    cut = min(cuts)
    return f"...{text[max(0, cut - width) : cut]}|{text[cut : cut + width]}..."


def suite_units(summary: str, punkt: list[str], entries: list[Entry | None]) -> list[Unit]:
    """The suite's judged sentences of `summary`, each with the verdict of the punkt sentence
    occurrence it is (``entries``: each punkt sentence's, None when clean), or derived from the
    punkt sentences it overlaps."""
    # The judged sentences are the worded ones, whitespace runs made one space for the judge.
    ours = check_text(summary, judged=True).sentences
    worded = [(a, b) for a, b in sentence_spans(summary) if has_word(summary[a:b])]
    theirs = list(zip(spans(summary, punkt), entries, strict=True))
    units = []
    for span, sentence in zip(worded, ours, strict=True):
        over = [j for j, (s, _) in enumerate(theirs) if s[0] < span[1] and span[0] < s[1]]
        hits = [e for j in over if (e := theirs[j][1]) is not None]
        questions = tuple(h["questions"] for h in hits)
        types = tuple(dict.fromkeys(t for h in hits for t in h["types"]))
        overlapped = [theirs[j][0] for j in over]
        kind = _kind(span, overlapped)
        where = "" if kind == "same" else _where(summary, span, overlapped)
        units.append(Unit(sentence, kind, bool(hits), questions, types, where, tuple(over)))
    return units


def matched_annotations(
    splits: Mapping[str, list[str]], released: Released, units: Mapping[str, list[Unit]]
) -> dict[str, dict[str, Entry]]:
    """The file get_annot would write with only the punkt sentences the suite also makes
    (kind `same`), for the books that have one: the official side of the figure without the
    unmatched sentences."""
    found = {}
    for book, book_units in units.items():
        kept = sorted(u.punkt[0] for u in book_units if u.kind == "same")
        entries = released.occurrences(book, splits[book])
        if kept:
            found[book] = written_annotation(
                [splits[book][j] for j in kept], [entries[j] for j in kept]
            )
    return found


# --- the suite's run ---------------------------------------------------------------------

_NUMBER = "Sentence to judge: "


def prompt_key(prompt: str) -> tuple[str, int]:
    """(summary, number) of a `numbered` sentence-mode prompt, as the judge reads them: the
    summary as its numbered lines, and the number of the sentence to judge."""
    start = prompt.rindex("<summary>\n") + len("<summary>\n")
    summary = prompt[start : prompt.index("\n</summary>", start)]
    return summary, int(prompt.rsplit(_NUMBER, 1)[1].strip())


def judge_table(units: Mapping[str, list[Unit]]) -> dict[tuple[str, int], str]:
    """The recorded answers keyed as the prompts show them: a book's judged sentences as
    numbered lines, each fenced as data, and the sentence's number (so each occurrence of a
    repeated sentence has its own answer)."""
    table: dict[tuple[str, int], str] = {}
    for book, book_units in units.items():
        summary = numbered_lines([as_data(u.sentence) for u in book_units])
        for number, unit in enumerate(book_units, start=1):
            if table.setdefault((summary, number), unit.answer) != unit.answer:
                raise ValueError(f"{book}: two books with one summary, two answers at {number}")
    return table


def recorded_judge(table: Mapping[tuple[str, int], str]) -> Model:
    """A scripted grader answering each numbered sentence-mode prompt from `table`; an unknown
    prompt is an error, never a default verdict."""

    def respond(prompt: str, _: int) -> str:
        key = prompt_key(prompt)
        if key not in table:
            raise KeyError(f"no recorded verdict for sentence {key[1]} of {key[0][:80]!r}")
        return table[key]

    return get_model(
        "scripted/gpt4-released-annotations",
        rules=[{"pattern": _NUMBER + r"\d+\s*$", "response": respond}],
        memoize=False,
    )


def run_suite(
    summaries: Mapping[str, str], judge: Model, work: Path, rule: RepeatedSentences = "once"
) -> EvalLog:
    """The booookscore task on `summaries` (score_only), judged by `judge` as the grader,
    repeated sentences counted by `rule`."""
    data = work / "summaries.jsonl"
    data.write_text(
        "".join(json.dumps({"id": b, "summary": s}) + "\n" for b, s in summaries.items()),
        encoding="utf-8",
    )
    [log] = inspect_eval(
        "longform_evals/booookscore",
        model=get_model("scripted/no-summarizer", default_response="unused", memoize=False),
        model_roles={"grader": judge},
        task_args={
            "score_only": True,
            "data": str(data),
            "judge_mode": "sentence",
            "judge_layout": "numbered",
            "judge_cache": False,
            # The released verdicts are of sentences as written; the suite's readings without
            # suspect pieces (a defence against notes to the judge) have none to replay.
            "judge_readings": False,
            "repeated_sentences": rule,
        },
        log_dir=str(work / f"logs-{rule}"),
        display="none",
    )
    if log.status != "success":
        raise RuntimeError(f"the suite's run failed: {log.error}")
    return log


def log_metric(log: EvalLog, name: str, metric: str = "mean") -> float:
    """The `metric` Inspect computed of the booookscore scorer's value `name`, read as every
    surface reads results (`scorers/results.py`)."""
    assert log.results is not None
    return result_values(log.results.scores)[("booookscore", name)][metric]


def verdicts(log: EvalLog) -> dict[str, list[dict[str, Any]]]:
    """Every judged sentence's verdict, by book, from the log."""
    return {
        str(s.id): s.scores["booookscore"].metadata["sentences"]  # type: ignore[index]
        for s in log.samples or []
    }


def score_without(
    found: Mapping[str, list[dict[str, Any]]],
    left_out: Mapping[str, set[int]],
    rule: RepeatedSentences = "once",
) -> float:
    """Mean BooookScore over books with the sentences `left_out` (by index) not judged: a book
    with none left out keeps the sentences its log counted; the others are recounted by the
    suite's own values (`booookscore_values`) of their other verdicts, under `rule`, the judged
    sentences telling repeats apart; books without a readable verdict left out."""
    per_book = []
    for book, sentences in found.items():
        if left_out[book]:
            kept = [
                SentenceVerdict(
                    v["index"], v["sentence"], v["parsed"], v["confused"], types=list(v["types"])
                )
                for v in sentences
                if v["index"] not in left_out[book]
            ]
            value = booookscore_values(kept, 0, rule)["booookscore"]
        else:
            read = [v for v in sentences if v["counted"] and v["parsed"]]
            clean = sum(1 for v in read if not v["confused"])
            value = 100.0 * clean / len(read) if read else math.nan
        if not math.isnan(value):
            per_book.append(value)
    return float(np.mean(per_book))


# --- one configuration -------------------------------------------------------------------


@dataclass(frozen=True)
class SuiteRun:
    """The suite's run under one rule for repeated sentences, read from its Inspect log."""

    rule: RepeatedSentences
    score: float  # the log's mean BooookScore
    parse_failure_rate: float
    flagged: int  # counted sentences judged confusing
    counted: int  # sentences the rule counted
    matched_only: float  # the score without the unmatched sentences
    seconds: float


def run_rule(
    rule: RepeatedSentences,
    summaries: Mapping[str, str],
    judge: Model,
    work: Path,
    unmatched: Mapping[str, set[int]],
) -> SuiteRun:
    """The suite's run under `rule`, and what the benchmark reads from its log."""
    start = time.perf_counter()
    log = run_suite(summaries, judge, work, rule)
    seconds = time.perf_counter() - start
    found = verdicts(log)
    counted = [v for vs in found.values() for v in vs if v["counted"]]
    return SuiteRun(
        rule=rule,
        score=log_metric(log, "booookscore"),
        parse_failure_rate=log_metric(log, "parse_failure_rate"),
        flagged=sum(bool(v["confused"]) for v in counted),
        counted=len(counted),
        matched_only=score_without(found, unmatched, rule),
        seconds=seconds,
    )


@dataclass
class ConfigReport:
    """What the benchmark prints for one configuration."""

    name: str
    books: int
    null_books: int
    absent_books: int
    formats: Counter[str]
    punkt_sentences: int
    punkt_repeats: int  # occurrences of a punkt sentence after its first
    repeat_books: int
    released_flagged: int  # entries of the released file (list format: flagged occurrences)
    listed_fewer: int  # list format: sentences listed fewer times than punkt has them
    listed_more: int  # ... and more times
    lost_flags: list[tuple[str, str, bool]]  # (book, sentence, found in the summary's text)
    suite_sentences: int
    kinds: Counter[str]
    examples: dict[str, list[str]]
    unmatched_flagged: int
    suite: dict[RepeatedSentences, SuiteRun]  # by rule
    official: dict[str, float]
    paper: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def unmatched(self) -> int:
        return self.suite_sentences - self.kinds["same"]

    @property
    def suite_score(self) -> float:
        """The suite's figure under its default rule (`once`)."""
        return self.suite[RULES[0]].score

    @property
    def suite_parse_failure_rate(self) -> float:
        return max(run.parse_failure_rate for run in self.suite.values())


def measure(
    released: Released,
    env: reference_env.ReferenceEnv,
    work: Path,
    limit: int | None = None,
    rules: tuple[RepeatedSentences, ...] = RULES,
) -> ConfigReport:
    """Both scorers on the configuration's books (the first `limit` of them, sorted), the
    suite under each of `rules`."""
    work.mkdir(parents=True, exist_ok=True)
    books = released.books(limit)
    every = treatments(released, books)["every summary"]
    splits = punkt_splits(env, {b: released.summaries[b] for b in every}, work)
    units = {
        b: suite_units(released.summaries[b], splits[b], released.occurrences(b, splits[b]))
        for b in books
    }
    files = {
        name: official_annotations(splits, released, chosen)
        for name, chosen in treatments(released, books).items()
    }
    official = official_scores(
        env, {**files, MATCHED: matched_annotations(splits, released, units)}, work
    )
    judge = recorded_judge(judge_table(units))
    unmatched = {b: {i for i, u in enumerate(units[b]) if u.kind != "same"} for b in books}
    summaries = {b: released.summaries[b] for b in books}
    runs = {rule: run_rule(rule, summaries, judge, work, unmatched) for rule in rules}
    kinds = Counter(u.kind for b in books for u in units[b])
    examples: dict[str, list[str]] = {}
    for b in books:
        for u in units[b]:
            if u.kind != "same" and len(examples.setdefault(u.kind, [])) < 3:
                examples[u.kind].append(u.where)
    lost = [
        (b, s, s in released.summaries[b])
        for b in books
        for s in released.listed(b)
        if s not in splits[b]
    ]
    repeats = {b: len(splits[b]) - len(set(splits[b])) for b in books}
    return ConfigReport(
        name=released.name,
        books=len(books),
        null_books=sum(released.annotations[b] is None for b in books),
        absent_books=len(set(released.summaries) - set(released.annotations)),
        formats=Counter(released.format(b) for b in books),
        punkt_sentences=sum(len(splits[b]) for b in books),
        punkt_repeats=sum(repeats.values()),
        repeat_books=sum(1 for n in repeats.values() if n),
        released_flagged=sum(len(e) for b in books for e in released.listed(b).values()),
        listed_fewer=sum(released.mismatched(b, splits[b])[0] for b in books),
        listed_more=sum(released.mismatched(b, splits[b])[1] for b in books),
        lost_flags=lost,
        suite_sentences=sum(len(units[b]) for b in books),
        kinds=kinds,
        examples=examples,
        unmatched_flagged=sum(u.flagged for b in books for u in units[b] if u.kind != "same"),
        suite=runs,
        official=official,
        paper=PAPER.get(released.name) if limit is None else None,
    )


_RULE_NAMES = {"once": "once per distinct sentence", "each": "once per occurrence"}


def render(r: ConfigReport) -> str:
    formats = ", ".join(f"{n} {f}" for f, n in sorted(r.formats.items()))
    lines = [
        f"== {r.name}: {r.books} books of the released file ({formats}; null books all "
        f"clean); {r.absent_books} summaries absent from it, left out as in the paper",
        f"punkt sentences {r.punkt_sentences} ({r.punkt_repeats} repeats of an earlier "
        f"sentence, in {r.repeat_books} books), GPT-4 flagged {r.released_flagged} (entries "
        f"of the file); sentences listed fewer times than punkt has them (which occurrences "
        f"GPT-4 flagged is not known; the last ones taken): {r.listed_fewer}, more times (split "
        f"otherwise by this nltk; the extra entries lost on both sides): {r.listed_more}; "
        f"flagged sentences that are no punkt sentence here (their flag is lost on both "
        f"sides): {len(r.lost_flags)}",
    ]
    for book, sentence, in_text in r.lost_flags:
        why = "in the summary, split otherwise by this nltk" if in_text else "not in the summary"
        lines.append(f"    [{why}] {book}: {sentence[:90]!r}")
    lines += [
        f"suite sentences {r.suite_sentences}: {r.kinds['same']} are a punkt sentence, "
        f"{r.unmatched} are not ({r.kinds['joins']} join several, {r.kinds['part']} are part "
        f"of one, {r.kinds['crosses']} cross a boundary); {r.unmatched_flagged} of those "
        "answered as flagged from the punkt sentences they overlap (| marks a cut one "
        "splitter makes and the other does not)",
    ]
    for kind, sentences in r.examples.items():
        lines += [f"    e.g. [{kind}] {s!r}" for s in sentences]
    for rule, run in r.suite.items():
        lines.append(
            f"suite BooookScore, repeated_sentences={rule} ({_RULE_NAMES[rule]}; Inspect log, "
            f"mean): {run.score:.2f}  ({run.flagged} of {run.counted} counted sentences "
            f"flagged, parse failure rate {run.parse_failure_rate:.3f}, {run.seconds:.0f} s); "
            f"without the {r.unmatched} unmatched sentences: {run.matched_only:.2f}"
        )
    lines += [
        "official Scorer.get_score x100: "
        + ", ".join(f"{name} {value:.2f}" for name, value in r.official.items()),
        f"paper: {r.paper if r.paper is not None else 'no figure'}",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--limit", type=int, default=None, help="first N books of each")
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    args = parser.parse_args()
    env = reference_env.ensure_reference_env()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.configs:
            report = measure(Released.load(args.data, name), env, Path(tmp) / name, args.limit)
            print(render(report) + "\n", flush=True)
            rows.append(report)
    columns = [
        "configuration",
        "books",
        "sentences punkt / suite",
        "repeats",
        "flagged",
        "unmatched",
        "official",
        "suite once (default)",
        "suite each",
        "paper",
    ]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for r in rows:
        print(
            f"| {r.name} | {r.books} | {r.punkt_sentences} / {r.suite_sentences} | "
            f"{r.punkt_repeats} | {r.released_flagged} | {r.unmatched} | "
            f"{r.official['paper']:.2f} | {r.suite['once'].score:.2f} | "
            f"{r.suite['each'].score:.2f} | {r.paper if r.paper is not None else '-'} |"
        )


if __name__ == "__main__":
    main()
