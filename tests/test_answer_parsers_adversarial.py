"""Every parser of model answers on adversarial answers: numbers past Python's 4,300-digit int
limit, thousands of nested brackets, 100k-character runs made to trigger regex backtracking.
Each must read (or reject with its own error) in well under a second: a quadratic parser takes
tens of seconds on these, so the generous bound cannot flake but still catches it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longform_evals.judges.coherence.parse import (
    JudgementParseError,
    parse_batch,
    parse_judgement,
    parse_types,
    split_questions,
)
from longform_evals.judges.raters.rating import parse_verdict
from longform_evals.judges.yes_no import parse_yes_no
from longform_evals.scorers.choice_parse import parse_choice
from longform_evals.solvers.reading.lookup import choose_pages, next_page, parse_page_request

N = 100_000
BIG = "9" * 5000  # past int()'s 4,300-digit limit

PARSERS: dict[str, Callable[[str], object]] = {
    "yes_no": parse_yes_no,
    "rater_verdict": parse_verdict,
    "choice": lambda text: parse_choice(text, 4),
    "judgement": parse_judgement,
    "batch": lambda text: parse_batch(text, 3),
    "types": parse_types,
    "questions": split_questions,
    "pages": lambda text: choose_pages(parse_page_request(text), 10, 3),
    "next_page": lambda text: next_page(parse_page_request(text), 10, set()),
}

ADVERSARIAL: dict[str, str] = {
    "open_brackets": "[" * N,
    "open_braces": "{" * N,
    "deep_nesting": "[" * (N // 2) + "]" * (N // 2),
    "deep_objects": '[{"a": ' * (N // 8) + "1" + "}]" * (N // 8),
    "huge_number": "9" * N,
    "huge_number_in_list": "[" + BIG + ", 2]",
    "huge_sentence_number": f'[{{"sentence": {BIG}, "confusion": false}}]',
    "huge_number_in_item": f'[{{"sentence": 1, "confusion": true, "types": [{BIG}]}}]',
    "deep_questions": '[{"sentence": 1, "confusion": true, "types": ["duplication"], '
    '"questions": ' + "[" * 900 + "]" * 900 + "}]",
    "spaces": " " * N,
    "newlines": "\n" * N,
    "spaces_then_word": " " * N + "x",
    "marker_then_spaces": "Answer:" + " " * N + "x",
    "option_then_spaces": "option" + " " * N + "x",
    "letter_then_spaces": "A" + " " * N + "or x",
    "page_then_spaces": "page" + " " * N + "x",
    "number_then_spaces": "1" + " " * N + "x",
    "range_then_spaces": "page 1" + " " * N + "to x",
    "question_without_mark": "Questions: " + "a" * N + "\nTypes: duplication",
    "types_of_spaces": "Questions: Who?\nTypes: " + " " * N + "x",
    "no_confusion_then_marks": "No confusion" + "?" * N,
    "markdown_run": "*" * N,
    "underscores": "_" * N,
    "quotes": '"' * N,
    "nonword_run": "!" * N,
    "answer_words": "answer is " * (N // 10),
    "letters": "A " * (N // 2),
    "alternatives": "A or " * (N // 5),
    "yes_no_words": "yes no " * (N // 7),
    "page_words": "page 1 and " * (N // 11),
    "page_ranges": "pages 1 to 2, " * (N // 14),
    "list_without_end": "[" + "1, " * (N // 3),
    "list_then_spaces": "[1" + " " * N + "x",
    "bracket_then_spaces": "[" + " " * N + "x",
    "label_then_marks": "Verdict" + "!" * N,
    "labels": "Types: " * (N // 7),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
@pytest.mark.parametrize("parser", list(PARSERS))
def test_adversarial_answers_parse_fast_or_fail_cleanly(parser: str, name: str) -> None:
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    try:
        PARSERS[parser](text)
    except JudgementParseError:
        assert parser in ("judgement", "batch", "types")
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"{parser} took {elapsed:.2f}s on {name}"


def test_batch_rejects_what_json_cannot_hold() -> None:
    for name in ("deep_nesting", "huge_number_in_list", "huge_sentence_number"):
        with pytest.raises(JudgementParseError, match="does not parse"):
            parse_batch(ADVERSARIAL[name], 3)
    with pytest.raises(JudgementParseError, match="no JSON list"):
        parse_batch(ADVERSARIAL["open_brackets"], 3)
    _, problems = parse_batch(ADVERSARIAL["deep_questions"], 1)
    assert problems == {}


_PIECES = st.sampled_from(
    [
        "[", "]", "{", "}", "(", ")", '"', ":", ",", "?", "*", "\n", " ", " " * 300,
        BIG, "1", "true", '"sentence": ', '"confusion": ', '"types": ', "Yes", "no", "Not",
        "A", "(B)", "C)", " or ", " and ", "answer: ", "option ", "page ", " through ", "-",
        "STOP", "Types: ", "Questions: ", "No confusion", "duplication", "partially",
    ]
)  # fmt: skip
_ADVERSARIAL_TEXT = st.lists(_PIECES, max_size=60).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=_ADVERSARIAL_TEXT, parser=st.sampled_from(list(PARSERS)))
def test_parsers_never_crash_on_adversarial_pieces(text: str, parser: str) -> None:
    try:
        PARSERS[parser](text)
    except JudgementParseError:
        assert parser in ("judgement", "batch", "types")


@settings(max_examples=60, deadline=None)
@given(
    depth=st.integers(500, 5000),
    opener=st.sampled_from(["[", "{", '[{"sentence": 1, "questions": ', '{"a": [']),
)
def test_batch_never_crashes_on_deep_nesting(depth: int, opener: str) -> None:
    closer = "".join({"[": "]", "{": "}"}.get(c, "") for c in reversed(opener))
    with contextlib.suppress(JudgementParseError):
        parse_batch(opener * depth + closer * depth, 2)
