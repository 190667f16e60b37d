"""ReadAgent interactive look-up ("A Human-Inspired Reading Agent with Gist Memory of Very
Long Contexts", arXiv:2402.09727, §3.2), pure parts: reading a page request, applying it
(parallel or sequential), and the gist memory with expanded pages.

Page numbers are 0-based, as in the paper's examples (``<Page 0>`` is the first page).
A run of more than :data:`MAX_PAGE_DIGITS` digits in a reply is no page number (Python would
refuse to convert one of thousands of digits): it is read as :data:`UNREADABLE_PAGE`, which no
page has, so it is counted like a request for a page that does not exist.

A range in a phrase naming pages ("Pages 0 through 5", "pages 2-4", "page 3 to 6") is read as
every page in it, in the order written, so :func:`choose_pages` caps it at the page budget and
counts each page past the budget as a problem, exactly as for a list of those pages. A range
of more than :data:`MAX_RANGE_PAGES` pages (or with an endpoint too long to read) is
:data:`UNREADABLE_RANGE`, one problem, instead of a list no document could hold.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

__all__ = [
    "MAX_PAGE_DIGITS",
    "MAX_RANGE_PAGES",
    "UNREADABLE_PAGE",
    "UNREADABLE_RANGE",
    "PageRequest",
    "Selection",
    "choose_pages",
    "memory_text",
    "next_page",
    "parse_page_request",
]

# No two whitespace runs can match the same spaces, so a long reply cannot make it backtrack.
_LIST = re.compile(r"\[\s*(?:(\d+(?:\s*,\s*\d+)*)\s*)?(?:,\s*)?\]")
_STOP = re.compile(r"\bSTOP\b")
_RANGE_TO = r"\s*(?:-|\u2013|\u2014|\bto\b|\bthrough\b|\bthru\b)\s*"
_ITEM = re.compile(rf"(?i)(\d+)(?:{_RANGE_TO}(\d+))?")
_PAGE_WORDS = re.compile(
    r"(?i)\bpages?\s*(?:(?:#|no\.?|number)\s*)?"
    rf"(\d+(?:{_RANGE_TO}\d+)?(?:\s*(?:,|&|\band\b|\bor\b)\s*(?:pages?\s*)?\d+"
    rf"(?:{_RANGE_TO}\d+)?)*)"
)
# Matched against the stripped reply: no two whitespace runs meet (no quadratic backtracking).
_BARE = re.compile(r"(\d+(?:\s*(?:,|\band\b)\s*\d+)*)(?:\s*\.)?")
_INT = re.compile(r"\d+")

MAX_PAGE_DIGITS = 12
"""Longest digit run read as a page number; longer runs are :data:`UNREADABLE_PAGE`."""

UNREADABLE_PAGE = -1
"""Stands for a digit run too long to be a page number; no page has it."""

MAX_RANGE_PAGES = 1000
"""Most pages a range ("pages 0 through 5") is read as; a longer one is :data:`UNREADABLE_RANGE`."""

UNREADABLE_RANGE = -2
"""Stands for a page range too long to read as pages; no page has it."""


@dataclass(frozen=True)
class PageRequest:
    """What a look-up reply asks for.

    Attributes:
        pages: Page numbers in the order written, ranges expanded (duplicates and
            out-of-range ones kept; a number too long to read is :data:`UNREADABLE_PAGE`, a
            range too long to expand :data:`UNREADABLE_RANGE`).
        stop: The reply asks to stop looking up (``STOP``), or for no page (``[]``).
        understood: False when the reply holds neither page numbers nor a stop.
    """

    pages: tuple[int, ...] = ()
    stop: bool = False
    understood: bool = True


def _int(digits: str) -> int:
    return int(digits) if len(digits) <= MAX_PAGE_DIGITS else UNREADABLE_PAGE


def _ints(text: str | None) -> tuple[int, ...]:
    return tuple(_int(n) for n in _INT.findall(text or ""))


def _pages_and_ranges(text: str) -> tuple[int, ...]:
    """Page numbers of a phrase naming pages, each range expanded (see the module docstring)."""
    pages: list[int] = []
    for m in _ITEM.finditer(text):
        first = _int(m.group(1))
        if m.group(2) is None:
            pages.append(first)
            continue
        last = _int(m.group(2))
        if UNREADABLE_PAGE in (first, last) or abs(last - first) >= MAX_RANGE_PAGES:
            pages.append(UNREADABLE_RANGE)
        else:
            step = 1 if last >= first else -1
            pages.extend(range(first, last + step, step))
    return tuple(pages)


def _page(page: int) -> str:
    if page == UNREADABLE_PAGE:
        return f"a page number of over {MAX_PAGE_DIGITS} digits"
    if page == UNREADABLE_RANGE:
        return f"a page range of over {MAX_RANGE_PAGES} pages"
    return f"page {page}"


def _missing(page: int, n_pages: int) -> str:
    if page == UNREADABLE_RANGE:
        return f"{_page(page)} is not read (pages 0-{n_pages - 1})"
    return f"{_page(page)} does not exist (pages 0-{n_pages - 1})"


def parse_page_request(reply: str) -> PageRequest:
    """Read a look-up reply.

    Models reason first and decide last, so the last decision counts: the last bracketed list
    (``[2, 5]``; ``[]`` means no page) or ``STOP``, whichever comes later. Without either,
    the last phrase naming pages (``Pages 3 and 7``, ``<Page 4>``, ``Pages 0 through 5``: a
    range is every page in it), and finally a reply that is only numbers (``3, 7``). Anything
    else is not understood.
    """
    decisions: list[tuple[int, PageRequest]] = [
        (m.start(), PageRequest(_ints(m.group(1)), stop=not m.group(1)))
        for m in _LIST.finditer(reply)
    ]
    decisions += [(m.start(), PageRequest(stop=True)) for m in _STOP.finditer(reply)]
    if decisions:
        return max(decisions, key=lambda d: d[0])[1]
    named = _PAGE_WORDS.findall(reply)
    if named:
        return PageRequest(_pages_and_ranges(named[-1]))
    bare = _BARE.fullmatch(reply.strip())
    if bare:
        return PageRequest(_ints(bare.group(1)))
    return PageRequest(understood=False)


@dataclass
class Selection:
    """Pages to expand and the requested pages that were ignored, with why."""

    pages: list[int]
    problems: list[str] = field(default_factory=list)


def choose_pages(request: PageRequest, n_pages: int, max_pages: int) -> Selection:
    """Apply a parallel (ReadAgent-P) request: existing pages, deduplicated, at most
    ``max_pages`` of them in the order asked, returned in page order. Each page that does not
    exist or is beyond the limit, and a reply not understood, is one problem."""
    chosen: list[int] = []
    problems: list[str] = []
    if not request.understood:
        problems.append("the reply names no page and does not say STOP")
    for page in request.pages:
        if not 0 <= page < n_pages:
            problems.append(_missing(page, n_pages))
        elif page in chosen:
            continue
        elif len(chosen) >= max_pages:
            problems.append(f"page {page} is beyond the limit of {max_pages} page(s)")
        else:
            chosen.append(page)
    return Selection(sorted(chosen), problems)


def next_page(
    request: PageRequest, n_pages: int, expanded: Collection[int]
) -> tuple[int | None, list[str]]:
    """Apply one sequential (ReadAgent-S) step: the page to expand next, or None to stop,
    and the problems seen. A reply not understood, or a request for a page that does not
    exist or is already expanded, stops the look-up and is a problem; a reply naming several
    pages expands the first and counts the others as problems."""
    if not request.understood:
        return None, ["the reply names no page and does not say STOP"]
    if request.stop or not request.pages:
        return None, []
    page, *others = request.pages
    problems = [f"{_page(p)} ignored: one page per step" for p in others]
    if not 0 <= page < n_pages:
        return None, [_missing(page, n_pages), *problems]
    if page in expanded:
        return None, [f"page {page} was already read", *problems]
    return page, problems


def memory_text(gists: Sequence[str], pages: Sequence[str], expanded: Collection[int]) -> str:
    """The gist memory with the ``expanded`` pages' full text in place of their gists, each
    block headed by its page tag, in page order."""
    return "\n\n".join(
        f"<Page {i}>\n{pages[i] if i in expanded else gist}" for i, gist in enumerate(gists)
    )
