"""ReadAgent episode pagination (the ReadAgent paper, "A Human-Inspired Reading Agent with
Gist Memory of Very Long Contexts", arXiv:2402.09727, §3.1): where to pause reading, as pure
logic.

The document is cut into *units*: paragraphs (separated by blank lines); a document without
blank lines is cut into sentences instead (:func:`~longform_evals.text.split_sentences`
rules), and any unit longer than ``max_words`` is cut into sentences and, if one sentence is
still too long, into runs of ``max_words`` words. Every unit is a span of the original text,
so a page is ``document[first_unit.start:last_unit.end]`` and the pages cover the document's
words exactly once, in order.

From the current position, :func:`next_window` gathers units up to ``max_words``; once a page
ending there would hold ``min_words``, break tags ``<k>`` are offered (``<k>`` sits before
unit ``k``; the last one after the window's last unit). :func:`paginate` asks a callback to
choose among them (one model call per page) and moves on. It never asks when there is no
choice: a final remainder shorter than ``min_words`` becomes the last page, and a window
with a single offered tag (or none, when the next unit is too long to add) ends there. An
answer that names no offered tag falls back to the last tag and is counted.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from longform_evals.text import sentence_spans

__all__ = [
    "DEFAULT_PAGE_LIMITS",
    "PAGE_LIMITS",
    "Pagination",
    "Unit",
    "Window",
    "next_window",
    "page_limits",
    "paginate",
    "parse_break_choice",
    "render_window",
    "split_units",
]

PAGE_LIMITS: dict[str, tuple[int, int]] = {
    "quality": (280, 600),
    "qmsum": (280, 600),
    "narrativeqa": (500, 3000),
    "gutenberg": (500, 3000),
    "movie": (600, 1000),
    "summary": (280, 600),
}
"""(min_words, max_words) per dataset or NarrativeQA ``doc_kind`` (the ReadAgent paper, Table 8;
NarrativeQA summaries are short, so they get the QuALITY sizes)."""

DEFAULT_PAGE_LIMITS = (280, 600)
"""Page limits of a dataset not in :data:`PAGE_LIMITS`."""

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n\s*")
_WORD = re.compile(r"\S+")
_BREAK_ANSWER = re.compile(r"(?i)break[\s_-]*(?:point)?\s*(?:is|:|=|#)?\s*<?\s*(\d+)\s*>?")
_TAG = re.compile(r"<\s*(\d+)\s*>")
_BARE_NUMBER = re.compile(r"\s*<?\s*(\d+)\s*>?\s*\.?\s*")


@dataclass(frozen=True)
class Unit:
    """A span of the document that pagination never cuts: ``document[start:end]``."""

    start: int
    end: int
    words: int


@dataclass(frozen=True)
class Window:
    """The units a page may take from ``start`` (inclusive) to ``end`` (exclusive).

    Attributes:
        tags: Offered break tags, ascending; tag ``k`` ends the page before unit ``k``, so the
            page would be units ``start..k-1``. Only tags giving at least ``min_words``.
        words: Words of all the window's units.
        final: Whether the window reaches the end of the document.
    """

    start: int
    end: int
    tags: tuple[int, ...]
    words: int
    final: bool


@dataclass
class Pagination:
    """The pages of one document and how they were found."""

    pages: list[str]
    calls: int = 0
    """Pages chosen by the callback (model calls)."""
    fallbacks: int = 0
    """Answers naming no offered tag, replaced by the last tag."""
    forced: int = 0
    """Pages ended without a choice because no break point gave ``min_words``."""
    answers: list[str] = field(default_factory=list)
    """The callback's answers that fell back, for the log."""


def page_limits(
    dataset: object,
    doc_kind: object,
    min_words: int | None = None,
    max_words: int | None = None,
) -> tuple[int, int]:
    """The (min_words, max_words) of a document: the dataset's (or ``doc_kind``'s) defaults,
    overridden by the arguments that are not ``None``.

    Raises:
        ValueError: If the result is not ``1 <= min_words <= max_words``.
    """
    kind = str(doc_kind or "").lower()
    name = str(dataset or "").lower()
    low, high = PAGE_LIMITS.get(kind) or PAGE_LIMITS.get(name) or DEFAULT_PAGE_LIMITS
    low = low if min_words is None else min_words
    high = high if max_words is None else max_words
    if not 1 <= low <= high:
        raise ValueError(
            f"page limits need 1 <= min_words <= max_words, got min_words={low}, "
            f"max_words={high} (dataset {name or '?'!r}, doc_kind {kind or '?'!r})"
        )
    return low, high


def _count(text: str, start: int, end: int) -> int:
    return sum(1 for _ in _WORD.finditer(text, start, end))


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    last = 0
    for match in _BLANK_LINE.finditer(text):
        spans.append((last, match.start()))
        last = match.end()
    spans.append((last, len(text)))
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


def _word_runs(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    words = [m.span() for m in _WORD.finditer(text, start, end)]
    return [
        (words[i][0], words[min(i + size, len(words)) - 1][1]) for i in range(0, len(words), size)
    ]


def split_units(document: str, max_words: int) -> list[Unit]:
    """Cut ``document`` into units of at most ``max_words`` words (see the module docstring).

    Raises:
        ValueError: If ``max_words < 1``.
    """
    if max_words < 1:
        raise ValueError(f"max_words must be >= 1, got {max_words}")
    spans = _paragraph_spans(document)
    if len(spans) == 1:
        spans = sentence_spans(document, by_line=True)
    units: list[Unit] = []
    for a, b in spans:
        n = _count(document, a, b)
        if n <= max_words:
            units.append(Unit(a, b, n))
            continue
        for sa, sb in sentence_spans(document, a, b, by_line=True):
            m = _count(document, sa, sb)
            if m <= max_words:
                units.append(Unit(sa, sb, m))
            else:
                units.extend(
                    Unit(wa, wb, _count(document, wa, wb))
                    for wa, wb in _word_runs(document, sa, sb, max_words)
                )
    return units


def next_window(units: Sequence[Unit], start: int, min_words: int, max_words: int) -> Window:
    """The units a page starting at unit ``start`` may take, and the break tags offered.

    The window takes units while they fit in ``max_words`` (always at least one unit, so
    pagination advances).
    """
    total, j, tags = 0, start, []
    while j < len(units) and (j == start or total + units[j].words <= max_words):
        total += units[j].words
        j += 1
        if total >= min_words:
            tags.append(j)
    return Window(start, j, tuple(tags), total, j == len(units))


def render_window(document: str, units: Sequence[Unit], window: Window) -> str:
    """The window's text with each offered tag ``<k>`` on its own line before unit ``k``
    (and the last after the window's last unit); other unit joins keep their original
    whitespace."""
    tags = set(window.tags)
    parts: list[str] = []
    for i in range(window.start, window.end):
        parts.append(document[units[i].start : units[i].end])
        if i + 1 in tags:
            parts.append(f"\n<{i + 1}>\n" if i + 1 < window.end else f"\n<{i + 1}>")
        elif i + 1 < window.end:
            parts.append(document[units[i].end : units[i + 1].start] or " ")
    return "".join(parts)


def parse_break_choice(answer: str, tags: Sequence[int]) -> int | None:
    """The offered tag an answer chooses, or None when it names none of ``tags``.

    Read, in order of preference: "Break point: <k>" (the last such phrase), the last ``<k>``
    tag, or an answer that is just a number.
    """
    offered = set(tags)
    for pattern in (_BREAK_ANSWER, _TAG):
        found = pattern.findall(answer)
        if found:
            choice = int(found[-1])
            return choice if choice in offered else None
    bare = _BARE_NUMBER.fullmatch(answer)
    if bare:
        choice = int(bare.group(1))
        return choice if choice in offered else None
    return None


ChooseBreak = Callable[[str, Window], Awaitable[str]]
"""Given the rendered window and the window, return the answer naming a break tag."""


async def paginate(
    document: str, min_words: int, max_words: int, choose: ChooseBreak
) -> Pagination:
    """Split ``document`` into pages, asking ``choose`` where to pause when there is a choice.

    Args:
        document: The text.
        min_words: Words a page should have before a break is offered.
        max_words: Words a page may have at most (a longer unit is cut first).
        choose: Called once per page with a real choice; its answer is read with
            :func:`parse_break_choice`, falling back to the last offered tag.

    Returns:
        The pages (spans of the document, stripped of surrounding whitespace) and counters.
    """
    units = split_units(document, max_words)
    result = Pagination(pages=[])
    pos = 0
    while pos < len(units):
        window = next_window(units, pos, min_words, max_words)
        if window.final and window.words < min_words:
            end = window.end
        elif not window.tags:
            end = window.end
            result.forced += 1
        elif len(window.tags) == 1:
            end = window.tags[0]
        else:
            answer = await choose(render_window(document, units, window), window)
            result.calls += 1
            choice = parse_break_choice(answer, window.tags)
            if choice is None:
                result.fallbacks += 1
                result.answers.append(answer)
                choice = window.tags[-1]
            end = choice
        result.pages.append(document[units[pos].start : units[end - 1].end])
        pos = end
    return result
