"""Scene splitting, scene grouping and dialogue detection for NexusSum (pure functions).

NexusSum's preprocessor and summarizer work on chunks of 8 scenes. A scene here is an exact
slice of the text; the scenes cover the text in order, so ``"".join(s.text for s in scenes)``
gives the text back. A new scene starts at

* a script scene heading: a line starting ``INT.``, ``EXT.``, ``INT./EXT.``, ``EXT./INT.``,
  ``I/E`` (optionally after a scene number), upper case;
* a chapter or section heading: ``CHAPTER 3``, ``Chapter Three: The Storm``, ``Part II``,
  ``ACT I``, ``Prologue``, a Roman numeral alone on a line (``III.``), a Markdown heading
  (``# Title``) or a lone ``#``;
* the first line after a separator line (``* * *``, ``***``, ``---``, ``~~~``); the
  separator stays with the scene it closes;
* in prose, the first line after two or more blank lines. These count only when the text
  has no script headings (scripts put blank lines everywhere) and when at most half of the
  gaps between consecutive lines are that wide (otherwise they are plain paragraph spacing).

A piece holding only headings, separators and blank lines joins the scene after it (or the
one before it, at the end of the text), so every scene has some body text.

When the text has none of these marks, it is cut into pieces of about ``max_words`` words
(*fallback*, marked on every scene): whole paragraphs (blocks between blank lines, or lines
when there are no blank lines) are packed greedily, and a paragraph longer than
``max_words`` is cut at sentence ends. A marked scene longer than ``max_words`` is cut the
same way (its pieces share the scene's ``part`` numbering), which keeps one chunk of 8
scenes within what a model can rewrite in one call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from longform_evals.text import sentence_spans

__all__ = ["DEFAULT_SCENE_WORDS", "Scene", "group_scenes", "has_dialogue", "split_scenes"]

DEFAULT_SCENE_WORDS = 500
"""Size of fallback pieces, and the length above which a scene is cut (words)."""

_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|"
    r"tenth|last|final)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
)
_SCRIPT_HEADING = re.compile(
    r"[ \t]*(?:\d+[A-Z]?[ \t]+)?(?:INT\.?/EXT|EXT\.?/INT|INT|EXT|I/E)(?:\.|[ \t]+[-\u2013A-Z])"
)
_CHAPTER_HEADING = re.compile(
    rf"[ \t]*(?i:(?:chapter|part|book|section|act|scene|episode|canto)[ \t]+"
    rf"(?:\d+|[ivxlcdm]+|{_NUMBER_WORD})\b\.?(?:[ \t]*[.:\-\u2013\u2014][ \t]*\S.*)?"
    rf"|prologue|epilogue|interlude|afterword|foreword)[ \t]*"
)
_ROMAN = re.compile(
    r"[ \t]*(?=[IVXLCDM])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})\.?[ \t]*"
)
_MARKDOWN_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+\S.*)?[ \t]*")
_SEPARATOR = re.compile(
    r"[ \t]*[*~=_+\-\u2013\u2014\u2022\u00b7\u25c6\u25c7\u00a7#]"
    r"(?:[ \t]*[*~=_+\-\u2013\u2014\u2022\u00b7\u25c6\u25c7\u00a7#]){2,}[ \t]*"
)
_MAX_HEADING_CHARS = 100

_BLANK, _BODY, _HEADING, _SCRIPT, _SEPARATOR_LINE = range(5)


@dataclass(frozen=True)
class Scene:
    """One scene: an exact slice ``source[start:end]`` of the text it came from.

    Attributes:
        text: The scene's text, trailing whitespace included.
        start: Offset of the scene in the source.
        end: Offset just past the scene.
        index: Position in the list of scenes, from 0.
        fallback: True when the text had no scene marks and was cut by length.
        part: 0 for a whole scene or the first piece of a cut one; 1, 2, ... for later pieces.
    """

    text: str
    start: int
    end: int
    index: int
    fallback: bool = False
    part: int = 0


def _kind(line: str) -> int:
    """Classify one line (line break removed)."""
    if not line.strip():
        return _BLANK
    if len(line) <= _MAX_HEADING_CHARS:
        if _SCRIPT_HEADING.match(line):
            return _SCRIPT
        if _SEPARATOR.fullmatch(line):
            return _SEPARATOR_LINE
        if any(p.fullmatch(line) for p in (_CHAPTER_HEADING, _ROMAN, _MARKDOWN_HEADING)):
            return _HEADING
    return _BODY


def _lines(text: str) -> tuple[list[int], list[int]]:
    """Start offsets and kinds of the lines of ``text``."""
    starts: list[int] = []
    kinds: list[int] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        starts.append(offset)
        kinds.append(_kind(line.rstrip("\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029")))
        offset += len(line)
    return starts, kinds


def _blank_breaks(kinds: list[int]) -> list[int]:
    """Lines that follow two or more blank lines, if such gaps are scene breaks at all."""
    after: list[int] = []
    gaps = 0
    blanks = 0
    seen_content = False
    for i, kind in enumerate(kinds):
        if kind == _BLANK:
            blanks += 1
            continue
        if seen_content:
            gaps += 1
            if blanks >= 2:
                after.append(i)
        seen_content = True
        blanks = 0
    return after if 2 * len(after) <= gaps else []


def _marked_starts(kinds: list[int]) -> list[int]:
    """Indices of the lines that start a scene (before merging body-less pieces)."""
    script = _SCRIPT in kinds
    starts = {i for i, k in enumerate(kinds) if k in (_HEADING, _SCRIPT)}
    for i, kind in enumerate(kinds):
        if kind == _SEPARATOR_LINE:
            nxt = next((j for j in range(i + 1, len(kinds)) if kinds[j] != _BLANK), None)
            if nxt is not None:
                starts.add(nxt)
    if not script:
        starts.update(_blank_breaks(kinds))
    starts.discard(0)
    return sorted(starts)


def _merge_bodiless(bounds: list[int], kinds: list[int]) -> list[int]:
    """Drop scene starts so that every scene (a run of lines) has a body line."""
    edges = [0, *bounds, len(kinds)]
    has_body = [_BODY in kinds[a:b] for a, b in pairwise(edges)]
    kept: list[int] = []
    pending_empty = not has_body[0]  # the piece before the next kept start lacks a body
    for start, body in zip(bounds, has_body[1:], strict=True):
        if pending_empty:
            # The body-less piece joins this one: drop the start between them.
            pending_empty = not body
            continue
        kept.append(start)
        pending_empty = not body
    if pending_empty and kept:
        kept.pop()  # a body-less piece at the end joins the scene before it
    return kept


def _paragraph_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets where paragraphs of ``text[start:end]`` begin (after the first one)."""
    segment = text[start:end]
    pattern = r"\n[ \t\r]*\n\s*" if re.search(r"\n[ \t\r]*\n\s*\S", segment) else r"\n\s*"
    return [start + m.end() for m in re.finditer(pattern, segment) if start + m.end() < end]


def _words_between(text: str, a: int, b: int) -> int:
    return len(text[a:b].split())


def _pack_cuts(text: str, start: int, end: int, max_words: int) -> list[int]:
    """Offsets inside ``(start, end)`` that cut it into pieces of about ``max_words`` words."""
    units: list[int] = []  # start offsets of the units, paragraph or sentence
    paragraphs = [start, *_paragraph_starts(text, start, end), end]
    for a, b in pairwise(paragraphs):
        units.append(a)
        if _words_between(text, a, b) > max_words:
            units.extend(s for s, _ in sentence_spans(text, a, b, by_line=True) if s > a)
    units = sorted(set(units))
    edges = [*units, end]
    cuts: list[int] = []
    words = 0
    for a, b in pairwise(edges):
        n = _words_between(text, a, b)
        if words and words + n > max_words:
            cuts.append(a)
            words = 0
        words += n
    return cuts


def split_scenes(text: str, max_words: int = DEFAULT_SCENE_WORDS) -> list[Scene]:
    """Split ``text`` into scenes that cover it exactly, in order.

    Args:
        text: A story, script or other narrative.
        max_words: Size of the pieces when the text has no scene marks, and the length
            above which a marked scene is cut into such pieces.

    Returns:
        The scenes (none for an empty text); ``scenes[0].fallback`` says whether the text
        had no scene marks.

    Raises:
        TypeError: If ``text`` is not a string.
        ValueError: If ``max_words < 1``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, got {max_words}")
    if not text:
        return []
    line_starts, kinds = _lines(text)
    marked = _merge_bodiless(_marked_starts(kinds), kinds)
    fallback = not marked
    edges = [0, *(line_starts[i] for i in marked), len(text)]
    scenes: list[Scene] = []
    for a, b in pairwise(edges):
        cuts = [a, *_pack_cuts(text, a, b, max_words), b]
        for part, (c, d) in enumerate(pairwise(cuts)):
            scenes.append(Scene(text[c:d], c, d, len(scenes), fallback, part))
    return scenes


def group_scenes(scenes: Sequence[Scene], per_chunk: int = 8) -> list[list[Scene]]:
    """Group consecutive scenes, ``per_chunk`` at a time (the last group may be smaller).

    Raises:
        ValueError: If ``per_chunk < 1``.
    """
    if per_chunk < 1:
        raise ValueError(f"per_chunk must be at least 1, got {per_chunk}")
    return [list(scenes[i : i + per_chunk]) for i in range(0, len(scenes), per_chunk)]


_QUOTED_SPEECH = re.compile(
    # Straight or curly double quotes, or guillemets, around text ending like speech
    # ("Stop!", "I know," ...); a quoted term without end punctuation is not speech.
    r'"[^"\n]*?\w[^"\n]*?[,.!?\u2026\u2014\-]"'
    r"|\u201c[^\u201d]*?\w[^\u201d]*?[,.!?\u2026\u2014\-]\u201d"
    r"|\u00ab[^\u00bb]*?\w[^\u00bb]*?\u00bb"
    # Single curly quotes only with end punctuation inside: apostrophes use the same mark.
    r"|(?:^|(?<=\s))\u2018[^\u2019\n]*?\w[^\u2019\n]*?[,.!?\u2026\u2014]\u2019"
)
_SCRIPT_SPEAKER_COLON = re.compile(
    r"^[ \t]*[A-Z][A-Z0-9.'\-]*(?:[ \t]+[A-Z][A-Z0-9.'\-]*){0,3}"
    r"(?:[ \t]*\([^)\n]*\))?[ \t]*:[ \t]*\S",
    re.MULTILINE,
)
_SPEAKER_LINE = re.compile(
    r"[ \t]*[A-Z][A-Z0-9.'\-]*(?:[ \t]+[A-Z][A-Z0-9.'\-]*){0,3}(?:[ \t]*\([^)\n]*\))?[ \t]*"
)
_TRANSITION = re.compile(r"(?:FADE|CUT|DISSOLVE|SMASH|MATCH|THE END|END\b)|.*\bTO:?\s*$")


def has_dialogue(text: str) -> bool:
    """Return whether ``text`` seems to contain dialogue.

    Dialogue is quoted speech (a quotation ending in punctuation, as in ``"Stop!"`` or
    ``"I know,"``), a script line ``NAME: words`` with an upper-case name, or an upper-case
    speaker line (``ANNA`` or ``ANNA (V.O.)``, at most four words, not a heading or a
    transition such as ``CUT TO:``) followed by a line with lower-case text.
    """
    if _QUOTED_SPEECH.search(text) or _SCRIPT_SPEAKER_COLON.search(text):
        return True
    lines = text.splitlines()
    for line, nxt in pairwise(lines):
        if (
            _SPEAKER_LINE.fullmatch(line)
            and _kind(line) == _BODY
            and not _TRANSITION.match(line.strip())
            and any(c.islower() for c in nxt)
        ):
            return True
    return False
