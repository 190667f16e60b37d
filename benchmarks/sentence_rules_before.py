"""The rule-based sentence splitter the suite used before issue 59 (text/sentences.py until
then), kept only as the baseline of benchmarks/sentence_speed.py; the suite splits with NLTK's
Punkt now. Its docstring, unchanged:

Offline, rule-based English sentence splitting.

Why not pysbd? Measured on a synthetic 100k-word book, pysbd needs
about 1.6 s (per paragraph) and grows faster than linearly on long paragraphs (1.7 s for a
single 10k-word one), and on punctuation-heavy input it drops characters (``"x e.g.Mr.!?"``
loses ``!?``), which would break the chunker's losslessness. This splitter only computes
offsets into the original text, so nothing can be lost or reordered, and it splits the same
book in about 0.03 s.

Rules, in order:

* every line break ends a sentence (paragraphs never share a sentence);
* a candidate end is a run of ``.``, ``!``, ``?`` or ``…`` plus any closing quotes/brackets,
  followed by whitespace or the end of the line; CJK full stops end a sentence directly;
* no end if the next word starts in lower case (``"Stop!" he said.``, ``Wait... what?``);
* after a single ``.``: no end after titles and Latin abbreviations (``Mr.``, ``Dr.``,
  ``e.g.``), after single-capital initials (``J. R. R. Tolkien``) or after a bare list marker
  (``1.``, ``a.``); after initialisms such as ``U.S.`` or ``a.m.`` only when the next word is a
  common sentence opener (``The``, ``He``, ...), since ``the U.S. Army`` is one sentence.

Decimals (``3.14``) and inner periods (``e.g.,``) never qualify, as no whitespace follows.
"""

from __future__ import annotations

import re

__all__ = ["sentence_spans", "split_sentences", "wordset"]

# Characters that str.splitlines() treats as line breaks; each one ends a sentence.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE = re.compile(f"[^{LINE_BREAKS}]+")
# The lookbehinds make a match start only at the beginning of a punctuation run, so a long
# run without whitespace after it (".....x") is rejected in linear, not quadratic, time.
_CANDIDATE = re.compile(
    r"(?<![.!?\u2026])[.!?\u2026]+[\"'\u201d\u2019\u00bb)\]}*_]*(?=\s|$)"
    r"|(?<![\u3002\uff01\uff1f])[\u3002\uff01\uff1f]+[\u300d\u300f\u201d\uff09]*"
)
_OPENERS = "\"'\u201c\u2018\u00ab([{*_-\u2014\u2013\u00bf\u00a1"
_CLOSERS = "\"'\u201d\u2019\u00bb)]}*_"
_LEAD_WORD = re.compile(r"[A-Za-z]+")
_LIST_MARKER = re.compile(r"\(?(?:\d{1,3}|[A-Za-z]|[ivxlcdm]{1,6}|[IVXLCDM]{1,6})")
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


def wordset(words: str) -> frozenset[str]:
    """The words of a space-separated string: long word lists (some in scripts with look-alikes
    of Latin letters) read better as text than as set literals."""
    return frozenset(words.split())


# Abbreviations, lower-case without the final period. Titles precede names and Latin forms
# precede what they introduce, so they never end a sentence.
_NEVER_END = wordset(
    """
    mr mrs ms messrs dr prof rev hon fr st mt gen col maj capt cpt lt sgt cmdr adm gov pres
    sen rep supt insp det e.g i.e cf vs viz
    """
)
# References and dates: no end only when a number follows ("No. 5", "p. 12", "Jan. 3"), so that
# "The answer is no. Then ..." still splits.
_BEFORE_NUMBER = wordset(
    """
    no nos p pp vol vols fig figs eq eqs ch chap sec art para ref refs op ca approx est
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
)
# Abbreviations that often do end a sentence: end there only before a likely sentence opener.
_MAYBE_END = wordset(
    "etc al inc ltd co corp jr sr bros llc plc esq ft ed eds phd ph.d a.m p.m u.s u.k u.s.a"
)
_STARTERS = wordset(
    """
    a an the this that these those there then thus he she it i we you they his her its our
    their my your but and or so yet if when while after before as in on at for from with by
    however although though because since still also later meanwhile now what who why how
    where which one some many most all no not yes
    """
)


def _word_before(text: str, line_start: int, end: int) -> str:
    """Return the whitespace-delimited word ending at ``end``, without quotes or brackets."""
    i = end
    while i > line_start and not text[i - 1].isspace():
        i -= 1
    return text[i:end].strip(_OPENERS + _CLOSERS)


def _is_end(text: str, line_start: int, sent_start: int, match: re.Match[str], nxt: int) -> bool:
    """Decide whether the candidate ``match`` ends a sentence; ``nxt`` is the next word."""
    # Skip opening quotes and brackets to reach the first real character of the next word.
    k = nxt
    while k < len(text) and text[k] in _OPENERS:
        k += 1
    if k < len(text) and text[k].islower():
        return False
    punct = match.group()
    if punct.rstrip(_CLOSERS) != ".":
        return True  # "!", "?", "...": end unless the next word is lower case (checked above)
    word = _word_before(text, line_start, match.start())
    low = word.lower()
    if low in _NEVER_END or (low in _BEFORE_NUMBER and k < len(text) and text[k].isdigit()):
        return False
    if len(word) == 1 and word.isupper() and word != "I":
        return False  # an initial, as in "J. R. R. Tolkien"
    if low in _MAYBE_END or _INITIALISM.fullmatch(word):
        lead = _LEAD_WORD.match(text, k)
        if low == "etc":
            return lead is not None
        return lead is not None and lead.group().lower() in _STARTERS
    # A bare list marker ("1.", "a.", "iv.") opening the sentence is not a sentence itself.
    return _LIST_MARKER.fullmatch(text, sent_start, match.start()) is None


def _skip_space(text: str, i: int, end: int) -> int:
    while i < end and text[i].isspace():
        i += 1
    return i


def _strip(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Shrink ``[start, end)`` to exclude surrounding whitespace; None if nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _line_spans(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Append the sentence spans of one line ``text[start:end]`` to ``out``."""
    sent_start = _skip_space(text, start, end)
    for m in _CANDIDATE.finditer(text, sent_start, end):
        nxt = _skip_space(text, m.end(), end)
        if nxt >= end:
            break  # the line ends here anyway
        if _is_end(text, start, sent_start, m, nxt):
            span = _strip(text, sent_start, m.end())
            if span is not None:
                out.append(span)
            sent_start = nxt
    span = _strip(text, sent_start, end)
    if span is not None:
        out.append(span)


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Find the sentences of ``text`` as character offsets.

    Args:
        text: The text to split.
        start: Offset at which to start looking (default: the beginning).
        end: Offset at which to stop looking (default: the end of ``text``).

    Returns:
        ``(start, end)`` offsets into ``text``, in order and non-overlapping. Each span is
        non-empty and has no leading or trailing whitespace; together they cover every
        non-whitespace character in the range.

    Raises:
        TypeError: If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    stop = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    for line in _LINE.finditer(text, start, stop):
        _line_spans(text, line.start(), line.end(), out)
    return out


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences.

    Args:
        text: The text to split.

    Returns:
        The sentences, stripped of surrounding whitespace, in order.

    Raises:
        TypeError: If ``text`` is not a string.
    """
    return [text[a:b] for a, b in sentence_spans(text)]
