"""Every documented answer shape of the coherence judge, and the malformed ones."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.judges.coherence.error_types import ERROR_TYPES, normalize_type
from longform_evals.judges.coherence.parse import (
    Judgement,
    JudgementParseError,
    parse_batch,
    parse_judgement,
    parse_types,
)


@pytest.mark.parametrize(
    "answer",
    [
        "No confusion.",
        "no confusion",
        "Answer: No confusion.",
        "**No confusion**",
        "  No Confusion!\n",
    ],
)
def test_no_confusion_shapes(answer: str) -> None:
    j = parse_judgement(answer)
    assert not j.confused and j.types == [] and j.questions == []


def test_questions_and_types() -> None:
    j = parse_judgement(
        "Questions: Who is Harlan? Why is he at the trial?\nTypes: entity_omission, causal omission"
    )
    assert j.confused
    assert j.questions == ["Who is Harlan?", "Why is he at the trial?"]
    assert j.types == ["entity_omission", "causal_omission"]


@pytest.mark.parametrize(
    ("answer", "types"),
    [
        ("Questions: Why?\nTypes: Duplication", ["duplication"]),
        (
            "**Questions:** What fire?\n**Types:** event omission; salience",
            ["event_omission", "salience"],
        ),
        ("Question: Huh?\nType: language", ["language"]),
        (
            "Questions: Who?\nTypes: Entity Omission and Inconsistency.",
            ["entity_omission", "inconsistency"],
        ),
        (
            "Here is my verdict.\nQuestions: Where are we now?\nTypes: discontinuity",
            ["discontinuity"],
        ),
        ("Types: contradiction", ["inconsistency"]),  # no questions line: accepted, empty questions
        ("Questions: Who is he?\nAnd why?\nTypes: entity_omission", ["entity_omission"]),
    ],
)
def test_accepted_variants(answer: str, types: list[str]) -> None:
    j = parse_judgement(answer)
    assert j.confused and j.types == types


def test_continued_question_lines_are_kept() -> None:
    j = parse_judgement("Questions: Who is he?\nAnd why is he here?\nTypes: entity_omission")
    assert j.questions == ["Who is he?", "And why is he here?"]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("The sentence is fine I think.", "neither"),
        ("Questions: Who is Harlan?", "neither"),
        ("Questions: Who?\nTypes: vagueness", "unknown error type 'vagueness'"),
        ("Questions: Who?\nTypes:", "names no error type"),
        ("No confusion.\nTypes: salience", "also lists types"),
        (
            "No confusion, but who is Owen? Types: entity omission",
            "No confusion' but also lists types",
        ),
        ("No confusion. But who is Owen?", "No confusion' but also asks questions"),
        ("No confusion.\nQuestions: Who is Owen", "No confusion' but also asks questions"),
    ],
)
def test_malformed_answers_say_why(answer: str, reason: str) -> None:
    with pytest.raises(JudgementParseError, match=reason):
        parse_judgement(answer)


@pytest.mark.parametrize(
    "answer", ["No confusion.\nQuestions: none", "No confusion. The sentence follows on."]
)
def test_no_confusion_with_nothing_asked_is_clean(answer: str) -> None:
    assert parse_judgement(answer) == Judgement(confused=False)


@pytest.mark.parametrize(
    "answer",
    [
        "Questions: no confusion\nTypes: no confusion",
        "Questions: No confusion.\nTypes: No confusion.",
        "**Questions:** no confusion\n**Types:** no confusion",
        "Questions: none\nTypes: no confusion",
        "Types: no confusion",
    ],
)
def test_the_official_prompts_two_line_no_confusion_is_clean(answer: str) -> None:
    # The official per-sentence prompt asks for "no confusion" on both lines; its own
    # validator accepts exactly this shape.
    assert parse_judgement(answer) == Judgement(confused=False)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("Questions: no confusion\nTypes: entity omission", "also lists types"),
        ("Questions: Who is Owen?\nTypes: no confusion", "also asks questions"),
        ("Questions: no confusion", "the Types line does not"),
        ("Questions: no confusion\nTypes: no confusion, but who is Owen?", "asks questions"),
    ],
)
def test_a_half_said_no_confusion_is_a_contradiction(answer: str, reason: str) -> None:
    with pytest.raises(JudgementParseError, match=reason):
        parse_judgement(answer)


def test_every_canonical_type_normalises_to_itself() -> None:
    for t in ERROR_TYPES:
        assert normalize_type(t) == t
        assert normalize_type(t.replace("_", " ").upper()) == t
    assert parse_types(", ".join(ERROR_TYPES)) == list(ERROR_TYPES)


@given(st.text(max_size=80))
def test_parser_never_crashes_on_arbitrary_text(text: str) -> None:
    with contextlib.suppress(JudgementParseError):
        parse_judgement(text)


def test_batch_answer_with_fences_and_problems() -> None:
    answer = """```json
[{"sentence": 1, "confusion": false},
 {"sentence": 2, "confusion": true, "questions": "Who is Ola?", "types": ["entity omission"]},
 {"sentence": 3, "confusion": true, "types": ["nonsense"]},
 {"sentence": 9, "confusion": false}]
```"""
    judgements, problems = parse_batch(answer, 4)
    assert not judgements[1].confused
    assert judgements[2].types == ["entity_omission"] and judgements[2].questions == ["Who is Ola?"]
    assert "unknown error type" in problems[3]
    assert problems[4] == "no verdict given"
    assert 9 not in judgements


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("no json here", "no JSON list"), ("[{broken", "no JSON list"), ("[1, 2,]", "does not parse")],
)
def test_batch_answer_without_a_list(answer: str, reason: str) -> None:
    with pytest.raises(JudgementParseError, match=reason):
        parse_batch(answer, 2)


def test_batch_item_needs_boolean_confusion() -> None:
    _, problems = parse_batch('[{"sentence": 1, "confusion": "maybe"}]', 1)
    assert "true or false" in problems[1]


@pytest.mark.parametrize("number", ["true", "false", "1.0", '"1"', "null"])
def test_batch_item_named_by_anything_but_an_integer_is_unattributed(number: str) -> None:
    judgements, problems = parse_batch(f'[{{"sentence": {number}, "confusion": false}}]', 2)
    assert judgements == {}
    assert problems == {1: "no verdict given", 2: "no verdict given"}


def test_batch_types_must_be_names_and_odd_questions_are_dropped() -> None:
    answer = (
        '[{"sentence": 1, "confusion": true, "types": [["duplication"]]},'
        ' {"sentence": 2, "confusion": true, "types": ["duplication"],'
        ' "questions": ["Again?", [["nested"]], {"q": 1}, 3]}]'
    )
    judgements, problems = parse_batch(answer, 2)
    assert "list of type names" in problems[1]
    assert judgements[2].questions == ["Again?"]


def test_the_official_batched_prompts_items_are_read() -> None:
    answer = json.dumps(
        [
            {"sentence_num": 1, "sentence": "Ines arrives.", "questions": None, "types": None},
            {
                "sentence_num": 2,
                "sentence": "His companion was Astrid.",
                "questions": "Who is Astrid? Why is she there?",
                "types": "entity omission, salience",
            },
            {"sentence_num": 3, "sentence": "x", "questions": "Who?", "types": None},
            {"sentence_num": 4, "sentence": "y", "questions": "", "types": "no confusion"},
        ]
    )
    judgements, problems = parse_batch(answer, 4)
    assert judgements[1] == Judgement(confused=False)
    assert judgements[2] == Judgement(
        confused=True,
        questions=["Who is Astrid?", "Why is she there?"],
        types=["entity_omission", "salience"],
    )
    assert problems == {3: "the item asks questions but names no type"}
    assert judgements[4] == Judgement(confused=False)


@pytest.mark.fault("batched_contradiction", "counted")
def test_a_sentence_given_two_verdicts_is_unreadable() -> None:
    clean = {"sentence": 1, "confusion": False}
    flagged = {"sentence": 1, "confusion": True, "types": ["salience"]}
    for items in ([clean, flagged], [flagged, clean]):
        judgements, problems = parse_batch(json.dumps(items), 1)
        assert judgements == {} and "two different verdicts" in problems[1]
    # the same verdict twice is one verdict
    judgements, problems = parse_batch(json.dumps([clean, clean]), 1)
    assert judgements == {1: Judgement(confused=False)} and problems == {}
