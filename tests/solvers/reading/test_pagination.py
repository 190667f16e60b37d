"""ReadAgent pagination, pure parts: units, windows, break tags, choice parsing, paginate()."""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longform_evals.solvers.reading.pagination import (
    Pagination,
    Window,
    next_window,
    page_limits,
    paginate,
    parse_break_choice,
    render_window,
    split_units,
)

FILLER = "the ferry crossed the grey water while gulls circled the mast"


def para(i: int, n_words: int) -> str:
    """An invented paragraph of exactly ``n_words`` words, tagged P<i> at its start."""
    filler = FILLER.split()
    body = [filler[k % len(filler)] for k in range(n_words - 2)]
    return f"P{i} " + " ".join(body) + " end."


def run_paginate(
    document: str, low: int, high: int, answer: str | None = None
) -> tuple[Pagination, list[Window]]:
    """Paginate with a chooser that answers ``answer`` or picks the first offered tag."""
    seen: list[Window] = []

    async def choose(passage: str, window: Window) -> str:
        seen.append(window)
        return answer if answer is not None else f"Break point: <{window.tags[0]}>"

    return asyncio.run(paginate(document, low, high, choose)), seen


def test_paragraphs_are_split_on_blank_lines_and_keep_offsets() -> None:
    doc = "First one.\nstill first.\n\n  \nSecond here.\n\n\nThird."
    units = split_units(doc, 100)
    assert [doc[u.start : u.end] for u in units] == [
        "First one.\nstill first.",
        "Second here.",
        "Third.",
    ]
    assert [u.words for u in units] == [4, 2, 1]


def test_no_blank_lines_falls_back_to_sentences() -> None:
    doc = "One sentence here. Another one follows! And a third?"
    units = split_units(doc, 100)
    assert [doc[u.start : u.end] for u in units] == [
        "One sentence here.",
        "Another one follows!",
        "And a third?",
    ]


def test_over_long_units_are_cut_by_sentence_then_by_words() -> None:
    long_sentence = " ".join(f"w{i}" for i in range(25))
    doc = "Short start.\n\nA first sentence. " + long_sentence + "."
    units = split_units(doc, 10)
    assert all(u.words <= 10 for u in units)
    assert " ".join(doc[u.start : u.end] for u in units).split() == doc.split()
    with pytest.raises(ValueError, match="max_words"):
        split_units(doc, 0)


def test_window_offers_tags_only_after_min_words() -> None:
    doc = "\n\n".join(para(i, 10) for i in range(8))
    units = split_units(doc, 100)
    window = next_window(units, 2, 25, 55)
    assert (window.start, window.end, window.words) == (2, 7, 50)
    assert window.tags == (5, 6, 7)  # pages of 30, 40 and 50 words
    assert not window.final
    text = render_window(doc, units, window)
    assert text.startswith("P2 ") and text.endswith("<7>")
    assert re.findall(r"<(\d+)>", text) == ["5", "6", "7"]
    # a tag sits between the paragraphs it separates
    assert text.index("P4") < text.index("<5>") < text.index("P5")


def test_break_tag_insertion_is_between_units() -> None:
    doc = "\n\n".join(para(i, 10) for i in range(4))
    units = split_units(doc, 100)
    window = next_window(units, 0, 10, 40)
    text = render_window(doc, units, window)
    assert text == f"{para(0, 10)}\n<1>\n{para(1, 10)}\n<2>\n{para(2, 10)}\n<3>\n{para(3, 10)}\n<4>"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Break point: <6>", 6),
        ("break point 5", 5),
        ("<7>", 7),
        ("6", 6),
        (" 5. ", 5),
        ("I would pause at <5> rather than <6>. Break point: <7>", 7),
        ("Break point: <9>", None),  # not offered
        ("Break point: <4>", None),  # before min_words
        ("somewhere in the middle", None),
        ("", None),
    ],
)
def test_parse_break_choice(answer: str, expected: int | None) -> None:
    assert parse_break_choice(answer, (5, 6, 7)) == expected


@given(st.lists(st.integers(0, 500), min_size=1, max_size=8, unique=True), st.data())
def test_parse_break_choice_accepts_every_offered_form(
    tags: list[int], data: st.DataObject
) -> None:
    tags.sort()
    tag = data.draw(st.sampled_from(tags))
    form = data.draw(st.sampled_from(["Break point: <{}>", "<{}>", "{}", "Break point: {}"]))
    assert parse_break_choice(form.format(tag), tags) == tag


@given(st.text(max_size=80), st.lists(st.integers(0, 50), min_size=1, max_size=5))
def test_parse_break_choice_never_returns_an_unoffered_tag(answer: str, tags: list[int]) -> None:
    assert parse_break_choice(answer, tags) in {None, *tags}


def test_pagination_covers_the_text_once_in_order() -> None:
    doc = "\n\n".join(para(i, 12 + (i * 7) % 30) for i in range(40))
    result, seen = run_paginate(doc, 60, 150)
    assert " ".join(result.pages).split() == doc.split()
    assert all(len(p.split()) <= 150 for p in result.pages)
    assert all(len(p.split()) >= 60 for p in result.pages[:-1])
    assert result.calls == len(seen) and result.fallbacks == 0
    # each page is an exact span of the document
    assert all(p in doc for p in result.pages)


def test_unparseable_answer_falls_back_to_the_last_tag_and_is_counted() -> None:
    doc = "\n\n".join(para(i, 20) for i in range(20))
    result, seen = run_paginate(doc, 40, 100, answer="hmm, hard to say")
    assert result.fallbacks == result.calls == len(seen) > 0
    assert result.answers[0] == "hmm, hard to say"
    assert [len(p.split()) for p in result.pages] == [100] * 4
    assert " ".join(result.pages).split() == doc.split()


def test_short_final_remainder_is_a_page_without_a_call() -> None:
    doc = "\n\n".join(para(i, 20) for i in range(6))  # 120 words
    result, seen = run_paginate(doc, 50, 100, answer="Break point: <5>")
    assert [len(p.split()) for p in result.pages] == [100, 20]
    assert len(seen) == 1


def test_single_choice_needs_no_call_and_big_next_unit_forces_a_page() -> None:
    doc = para(0, 10) + "\n\n" + para(1, 95) + "\n\n" + para(2, 30)
    result, seen = run_paginate(doc, 50, 100)
    # [10] cannot take the 95-word unit and has no tag; [95] alone is the only choice
    assert [len(p.split()) for p in result.pages] == [10, 95, 30]
    assert result.forced == 1 and not seen


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 120), min_size=1, max_size=30),
    st.booleans(),
    st.integers(5, 60),
    st.integers(0, 80),
    st.sampled_from(["first", "last", "junk"]),
)
def test_pagination_terminates_and_covers_any_document(
    sizes: list[int], blank_lines: bool, low: int, extra: int, how: str
) -> None:
    high = low + extra
    sep = "\n\n" if blank_lines else " "
    doc = sep.join(para(i, max(3, n)) for i, n in enumerate(sizes))

    async def choose(passage: str, window: Window) -> str:
        if how == "junk":
            return "no idea"
        return f"<{window.tags[0] if how == 'first' else window.tags[-1]}>"

    result = asyncio.run(paginate(doc, low, high, choose))
    assert " ".join(result.pages).split() == doc.split()
    assert all(0 < len(p.split()) <= high for p in result.pages)


def test_a_document_without_breaks_or_punctuation_terminates() -> None:
    doc = " ".join(f"word{i}" for i in range(1000))
    result, _ = run_paginate(doc, 100, 300)
    assert " ".join(result.pages).split() == doc.split()
    assert all(len(p.split()) <= 300 for p in result.pages)


def test_page_limits_per_dataset_and_overrides() -> None:
    assert page_limits("quality", "article") == (280, 600)
    assert page_limits("qmsum", "meeting") == (280, 600)
    assert page_limits("narrativeqa", "gutenberg") == (500, 3000)
    assert page_limits("narrativeqa", "movie") == (600, 1000)
    assert page_limits("narrativeqa", "summary") == (280, 600)
    assert page_limits("other", None) == (280, 600)
    assert page_limits("quality", "article", max_words=900) == (280, 900)
    assert page_limits("quality", "article", 50, 80) == (50, 80)
    with pytest.raises(ValueError, match="min_words=280, max_words=100"):
        page_limits("quality", "article", max_words=100)
