"""Lossless token-bounded chunking (the BooookScore rule).

Paragraphs (lines) are packed greedily into chunks of at most ``max_tokens`` tokens. A paragraph
longer than that is cut into sentences, a sentence longer than that into words, and a single
word longer than that into character runs; the pieces are packed greedily in text order, so
pieces of an oversized paragraph share chunks with their neighbours.

Whitespace policy: every piece owns the whitespace that follows it, up to the first
non-whitespace character of the next piece; the first piece also owns any leading whitespace of
the text. Hence chunks start at a non-whitespace character (except possibly the first), end with
the newlines/spaces that separated them from the next chunk, and
``"".join(c.text for c in chunks) == text`` holds exactly. The one exception: a whitespace run
too long to fit in any chunk with its neighbours is cut by characters, so some chunks are then
whitespace only.

Token guarantee: ``n_tokens`` is the exact count of the chunk's *full* text, trailing
whitespace included, and never exceeds ``max_tokens``. Piece counts are summed only to guess a
chunk's end; since the count of a concatenation can differ from the sum of its parts, each guess
is checked against the real count and moved (galloping, then bisection) before it is accepted.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, pairwise

from .sentences import LINE_BREAKS, sentence_spans
from .tokens import DEFAULT_ENCODING, Tokenizer, TokenizerLike, count_many, get_tokenizer

__all__ = ["Chunk", "chunk_text"]

# The first non-whitespace character after a line break starts a new paragraph.
_PARA_START = re.compile(f"[{LINE_BREAKS}][^\\S{LINE_BREAKS}]*(?=\\S)")
_WORD_START = re.compile(r"(?<=\s)\S")
_PARAGRAPHS, _SENTENCES, _WORDS = 0, 1, 2  # levels of add_pieces


@dataclass(frozen=True)
class Chunk:
    """One chunk of a text.

    Attributes:
        text: The chunk's text, trailing whitespace included; equals ``source[start:end]``.
        start: Offset of the chunk in the source text.
        end: Offset just past the chunk.
        n_tokens: Exact token count of ``text``.
        index: Position of the chunk in the list, from 0.
    """

    text: str
    start: int
    end: int
    n_tokens: int
    index: int


def _first_content(text: str, start: int, end: int) -> int:
    while start < end and text[start].isspace():
        start += 1
    return start


def _fit(fits: Callable[[int], bool], lo: int, hi: int, guess: int) -> int:
    """Return a large ``k`` in ``[lo, hi]`` with ``fits(k)``, given that ``fits(lo)`` holds.

    Gallops from ``guess`` then bisects. Token counts of growing prefixes are only almost
    monotone, so the result is the best found rather than provably the maximum, but it is
    always a ``k`` that fits.
    """
    bad = min(max(guess, lo), hi)  # first probe: the guess
    if fits(bad):
        lo, step = bad, 1
        while True:  # gallop upwards until a probe fails or the range ends
            if lo == hi:
                return lo
            bad = min(lo + step, hi)
            if not fits(bad):
                break
            lo, step = bad, step * 2
    while bad - lo > 1:  # bisect, keeping fits(lo) and not fits(bad)
        mid = (lo + bad) // 2
        if fits(mid):
            lo = mid
        else:
            bad = mid
    return lo


class _Chunker:
    """Cuts one text into pieces that each fit, then packs the pieces into chunks."""

    def __init__(self, text: str, limit: int, tok: Tokenizer) -> None:
        self.text = text
        self.limit = limit
        self.tok = tok
        self.ends: list[int] = []  # end offset of each piece; piece i starts at ends[i - 1]
        self.counts: list[int] = []  # token count of each piece on its own

    def _fits(self, start: int) -> Callable[[int], bool]:
        def fits(end: int) -> bool:
            return self.tok.count(self.text[start:end]) <= self.limit

        return fits

    def _fits_pieces(self, start: int) -> Callable[[int], bool]:
        fits = self._fits(start)
        return lambda k: fits(self.ends[k])

    def add_pieces(self, cuts: list[int], level: int) -> None:
        """Add the pieces between consecutive ``cuts``, splitting any that are too long."""
        spans = list(pairwise(cuts))
        counts = count_many(self.tok, [self.text[a:b] for a, b in spans])
        for (a, b), n in zip(spans, counts, strict=True):
            if n <= self.limit:
                self.ends.append(b)
                self.counts.append(n)
            elif level == _PARAGRAPHS:
                sentences = [s for s, _ in sentence_spans(self.text, a, b)]
                self.add_pieces(self.cuts(sentences, a, b), _SENTENCES)
            elif level == _SENTENCES:
                words = [m.start() for m in _WORD_START.finditer(self.text, a, b)]
                self.add_pieces(self.cuts(words, a, b), _WORDS)
            else:
                self._add_char_runs(a, b)

    def cuts(self, starts: list[int], a: int, b: int) -> list[int]:
        """Cut points for a piece ``[a, b)``: ``a``, the inner piece starts, ``b``."""
        first = _first_content(self.text, a, b)
        return [a, *(s for s in starts if s > first), b]

    def _add_char_runs(self, a: int, b: int) -> None:
        # Last resort for a single over-long "word": the longest runs of characters that fit.
        content_end = b
        while content_end > a and self.text[content_end - 1].isspace():
            content_end -= 1
        while a < b:
            fits = self._fits(a)
            if not fits(a + 1):
                raise ValueError(
                    f"max_tokens={self.limit} is too small: the character {self.text[a]!r} at "
                    f"offset {a} alone is {self.tok.count(self.text[a])} tokens"
                )
            end = _fit(fits, a + 1, b, a + self.limit)
            if content_end <= end < b:
                # Only whitespace would be left for the next run, making a blank chunk; move
                # the last character over to it if both sides still fit.
                cut = content_end - 1
                if cut > a and fits(cut) and self._fits(cut)(b):
                    end = cut
            self.ends.append(end)
            self.counts.append(self.tok.count(self.text[a:end]))
            a = end

    def pack(self) -> list[Chunk]:
        """Pack the pieces greedily into chunks, each checked against the real count."""
        text, ends = self.text, self.ends
        prefix = [0, *accumulate(self.counts)]
        chunks: list[Chunk] = []
        i, start = 0, 0
        while i < len(ends):
            # Guess from summed piece counts, then settle on the real count of the joined text.
            guess = max(i, bisect_right(prefix, prefix[i] + self.limit) - 2)
            j = _fit(self._fits_pieces(start), i, len(ends) - 1, guess)
            piece = text[start : ends[j]]
            n = self.tok.count(piece)
            if n > self.limit:  # only an inconsistent (e.g. non-deterministic) counter gets here
                raise RuntimeError(f"tokenizer gave inconsistent counts for {piece[:50]!r}...")
            chunks.append(Chunk(piece, start, ends[j], n, len(chunks)))
            i, start = j + 1, ends[j]
        return chunks


def chunk_text(
    text: str, max_tokens: int = 2048, tokenizer: TokenizerLike = DEFAULT_ENCODING
) -> list[Chunk]:
    """Cut ``text`` into consecutive chunks of at most ``max_tokens`` tokens each.

    Args:
        text: The text to chunk; it must contain some non-whitespace character.
        max_tokens: The most tokens a chunk may hold (trailing whitespace included).
        tokenizer: Anything :func:`~longform_evals.text.tokens.get_tokenizer` accepts.

    Returns:
        The chunks in order; joined, their texts give back ``text`` exactly.

    Raises:
        TypeError: If ``text`` is not a string or ``max_tokens`` is not an int.
        ValueError: If ``max_tokens < 1``, if ``text`` is empty or only whitespace, or if a
            single character needs more than ``max_tokens`` tokens.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise TypeError(f"max_tokens must be int, not {type(max_tokens).__name__}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    if not text.strip():
        raise ValueError("cannot chunk: the text is empty or contains only whitespace")
    chunker = _Chunker(text, max_tokens, get_tokenizer(tokenizer))
    paragraphs = [m.end() for m in _PARA_START.finditer(text)]
    chunker.add_pieces(chunker.cuts(paragraphs, 0, len(text)), _PARAGRAPHS)
    return chunker.pack()
