"""Per-sentence verdicts of the two sides: both splits of a summary aligned by place, and
their agreement over the sentences split alike, each disagreement with its cause."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """One judged sentence, as one side read its judge."""

    sentence: str
    parsed: bool
    flagged: bool
    types: tuple[str, ...] = ()
    answer: str = ""  # the judge's first answer, when known
    problem: str = ""  # why the first unreadable answer was not read

    @property
    def label(self) -> str:
        if not self.parsed:
            return "unreadable"
        return f"flagged ({', '.join(self.types)})" if self.flagged else "clean"


def _flat(text: str) -> str:
    return " ".join(text.split())


def sentence_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    """Where each sentence is in `text` with whitespace runs made one space (the splitters keep
    or trim line breaks differently), each found after the previous one."""
    flat, at, spans = _flat(text), 0, []
    for sentence in sentences:
        piece = _flat(sentence)
        start = flat.find(piece, at)
        if start < 0:
            raise ValueError(f"{piece[:60]!r} is not in the summary after offset {at}")
        spans.append((start, start + len(piece)))
        at = start + len(piece)
    return spans


@dataclass(frozen=True)
class Group:
    """Official and suite sentences that overlap: one of each, the same text, when the two
    splitters agree."""

    official: tuple[int, ...]
    suite: tuple[int, ...]
    same: bool


def align(text: str, official: Sequence[str], suite: Sequence[str]) -> list[Group]:
    """The sentences of both splits grouped by overlap, in order of the summary."""
    items = sorted(
        [(s, e, 0, i) for i, (s, e) in enumerate(sentence_spans(text, official))]
        + [(s, e, 1, j) for j, (s, e) in enumerate(sentence_spans(text, suite))]
    )
    groups: list[tuple[list[int], list[int]]] = []
    end = -1
    for start, stop, side, index in items:
        if not groups or start >= end:
            groups.append(([], []))
        groups[-1][side].append(index)
        end = max(end, stop)
    return [
        Group(
            tuple(o),
            tuple(u),
            len(o) == len(u) == 1 and _flat(official[o[0]]) == _flat(suite[u[0]]),
        )
        for o, u in groups
    ]


@dataclass(frozen=True)
class Disagreement:
    number: int  # 1-based, among the sentences split alike
    sentence: str
    official: str  # label
    suite: str
    cause: str


@dataclass
class Agreement:
    """Per-sentence verdicts of two runs on one summary."""

    pair: str
    same_prompt: bool  # the official prompt on both sides
    sentences: int = 0  # split the same way by both
    split_differs: int = 0  # groups the splitters cut differently
    both_read: int = 0
    agree: int = 0
    same_answers: int = 0  # the judge's first answers byte-identical (when both are known)
    disagreements: list[Disagreement] = field(default_factory=list)
    split_notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Agreeing sentences over all sentences split alike (an unreadable one disagrees)."""
        return self.agree / self.sentences if self.sentences else math.nan

    @property
    def rate_read(self) -> float:
        return self.agree / self.both_read if self.both_read else math.nan

    def by_cause(self) -> list[str]:
        """One line per cause: how many sentences, which, and why."""
        causes: dict[str, list[Disagreement]] = {}
        for d in self.disagreements:
            causes.setdefault(f"official {d.official}, suite {d.suite}: {d.cause}", []).append(d)
        return [
            f"{len(ds)} sentence(s) #{','.join(str(d.number) for d in ds)}: {cause}"
            for cause, ds in causes.items()
        ]


def _cause(a: Verdict, b: Verdict, same_prompt: bool) -> str:
    if not a.parsed and not b.parsed:
        return f"neither side read its answer (official: {a.problem}; suite: {b.problem})"
    if not a.parsed:
        return f"the official code could not read {a.answer[:80]!r} ({a.problem})"
    if not b.parsed:
        return f"the suite could not read {b.answer[:80]!r} ({b.problem})"
    prompts = (
        "the same official prompt (a difference is the judge's, or a retry's: the suite asks "
        "again with its own retry message)"
        if same_prompt
        else "different prompts (the suite's own words and demonstrations)"
    )
    return f"{prompts}; the judge answered official {a.answer[:80]!r}, suite {b.answer[:80]!r}"


def compare(
    pair: str,
    text: str,
    official: Sequence[Verdict],
    suite: Sequence[Verdict],
    same_prompt: bool = False,
) -> Agreement:
    """Verdict agreement over sentences both sides split alike; the others listed apart."""
    result = Agreement(pair, same_prompt)
    for group in align(text, [v.sentence for v in official], [v.sentence for v in suite]):
        if not group.same:
            result.split_differs += 1
            mine = [official[i] for i in group.official]
            theirs = [suite[j] for j in group.suite]
            result.split_notes.append(
                f"{len(mine)} official / {len(theirs)} suite sentence(s) "
                f"{[v.sentence[:50] for v in mine]} vs {[v.sentence[:50] for v in theirs]}: "
                f"official {[v.label for v in mine]}, suite {[v.label for v in theirs]}"
            )
            continue
        a, b = official[group.official[0]], suite[group.suite[0]]
        result.sentences += 1
        if a.answer and b.answer and a.answer.strip() == b.answer.strip():
            result.same_answers += 1
        if a.parsed and b.parsed:
            result.both_read += 1
            if a.flagged == b.flagged:
                result.agree += 1
                continue
        result.disagreements.append(
            Disagreement(result.sentences, a.sentence, a.label, b.label, _cause(a, b, same_prompt))
        )
    return result


def official_verdicts(out: Mapping[str, Any]) -> list[Verdict]:
    """The official run's verdicts in the order of its punkt sentences."""
    made = [
        Verdict(
            v["sentence"],
            v["parsed"],
            v["flagged"],
            tuple(v["types"]),
            (v["answers"] or [""])[0],
            (v["problems"] or [""])[0],
        )
        for v in out["verdicts"]
    ]
    punkt = out.get("punkt")
    if not punkt or [v.sentence for v in made] == punkt:
        return made
    # v2 judges two batches at once (ThreadPool(2)) and keys its answers by sentence text.
    by_text = {v.sentence: v for v in made}
    return [by_text.get(s, Verdict(s, False, False, problem="never asked")) for s in punkt]
