"""Reading the option letter from multiple-choice answers: the documented shapes, ambiguous
answers, and properties over generated answers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.scorers.choice_parse import choice_letter, letter_index, parse_choice


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Answer: (C)", 2),
        ("answer: C", 2),
        ("(C)", 2),
        ("C)", 2),
        ("C.", 2),
        ("The answer is C", 2),
        ("**C**", 2),
        ("C", 2),
        ("c", 2),
        ("Answer: (c) because the narrator says so.", 2),
        ("**Answer:** B", 1),
        ("Final answer: D. The letter proves it.", 3),
        ("The correct answer is option (B).", 1),
        ("Option A is right.", 0),
        ("I think C", 2),
        ("Answer: A because the text says so", 0),
        ("B) The captain lied to the crew.", 1),
        ("The butler did it, so (B).", 1),
        ("Reading the passage again, the answer is (B). Answer: (B)", 1),
        ("Answer: the butler, (B)", 1),
        ("The answer is I think B", 1),
        ("The answer is C. Options A and B are wrong.", 2),
        ("Answer: C, I think.", 2),
        ("Answer: B, a clear case", 1),
        ("Answer: (C)\nor so it seems", 2),
    ],
)
def test_answer_shapes(answer: str, expected: int) -> None:
    assert parse_choice(answer, 4) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I do not know.",
        "A dog is barking in the story.",
        "The answer is a bit unclear.",
        "(B) or (C), it is hard to say.",
        "Answer: (A). Answer: (D).",
        "Answer: (F)",
        "E",
        "e.g. the U.S. navy",
        "An X-ray shows it.",
        "A or B",
        "A and B are both plausible",
        "Answer: A or B",
        "The answer is C or D.",
        "Answer: (A) or (B)",
        "Answer: **B** and **C**",
        "answer: c/d",
        "A, B",
    ],
)
def test_unclear_answers_give_none(answer: str) -> None:
    assert parse_choice(answer, 4) is None


def test_letters_and_indices() -> None:
    assert [choice_letter(i) for i in range(4)] == ["A", "B", "C", "D"]
    assert letter_index("d") == 3
    with pytest.raises(ValueError, match="not an option letter"):
        letter_index("AB")
    with pytest.raises(ValueError, match=r"outside A\.\.Z"):
        choice_letter(26)
    with pytest.raises(ValueError, match="n_choices"):
        parse_choice("A", 0)


FORMATS = [
    "Answer: ({})",
    "answer: {}",
    "ANSWER: {}",
    "({})",
    "{})",
    "{}.",
    "The answer is {}",
    "The answer is ({}).",
    "**{}**",
    "{}",
    "[{}]",
    "Final answer: **{}**",
    "Answer: ({}) because of the second paragraph.",
]
LOWER_OK = {"Answer: ({})", "answer: {}", "ANSWER: {}", "({})", "{}", "[{}]", "**{}**"}

# Prose with no standalone letter: words of two or more letters, joined by spaces and marks.
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2)
_prose = st.lists(
    st.tuples(_word, st.sampled_from([" ", ", ", ". ", "\n", "; ", ": "])), max_size=12
).map(lambda parts: "".join(w + sep for w, sep in parts).strip())


@given(n=st.integers(1, 26), data=st.data(), fmt=st.sampled_from(FORMATS))
def test_any_letter_in_range_parses_back(n: int, data: st.DataObject, fmt: str) -> None:
    index = data.draw(st.integers(0, n - 1))
    letter = choice_letter(index)
    assert parse_choice(fmt.format(letter), n) == index
    if fmt in LOWER_OK:
        assert parse_choice(fmt.format(letter.lower()), n) == index


@given(n=st.integers(1, 25), data=st.data(), fmt=st.sampled_from(FORMATS))
def test_letters_past_the_last_option_give_none(n: int, data: st.DataObject, fmt: str) -> None:
    index = data.draw(st.integers(n, 25))
    assert parse_choice(fmt.format(choice_letter(index)), n) is None


@given(n=st.integers(1, 26), data=st.data(), before=_prose, after=_prose)
def test_marked_letter_inside_prose(n: int, data: st.DataObject, before: str, after: str) -> None:
    index = data.draw(st.integers(0, n - 1))
    answer = f"{before}\nAnswer: ({choice_letter(index)})\n{after}"
    assert parse_choice(answer, n) == index


@given(text=_prose, n=st.integers(1, 26))
def test_prose_without_a_letter_gives_none(text: str, n: int) -> None:
    assert parse_choice(text, n) is None


@given(
    n=st.integers(2, 26),
    data=st.data(),
    fmt=st.sampled_from(["({})", "**{}**", "{})", "[{}]"]),
    middle=_prose,
)
def test_two_different_letters_without_a_marker_give_none(
    n: int, data: st.DataObject, fmt: str, middle: str
) -> None:
    first, second = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    answer = f"{fmt.format(choice_letter(first))} {middle} {fmt.format(choice_letter(second))}"
    assert parse_choice(answer, n) is None
