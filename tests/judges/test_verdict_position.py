"""One reading of a verdict, in answer position only: generated answers in several languages
whose verdict word is negated, quoted, glued to other characters or not in answer position are
never read as a verdict (by the yes/no reader, the raters and the judges that use them), while
clean first-word verdicts still are; log-probabilities read each distinct token once, refuse
impossible numbers anywhere and a first token that disagrees with the text; a batched item
that gives a key twice is unreadable."""

from __future__ import annotations

import asyncio
import json
import math
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import Logprob, Logprobs, ModelOutput, TopLogprob, get_model

from longform_evals.judges.coherence.parse import parse_batch
from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, judge_support
from longform_evals.judges.raters.rating import RatingSettings, ask_rater, parse_verdict
from longform_evals.judges.verdict_text import QUESTION_MARKS, read_answer
from longform_evals.judges.yes_no import (
    p_yes_at_answers,
    p_yes_from_top,
    parse_yes_no,
    read_yes_no,
)

_YES = ["yes", "Yes", "YES", "yEs", "\uff39\uff45\uff53"]
_NO = ["no", "No", "NO", "\uff2e\uff4f"]

# Answers whose verdict word is not a verdict: negated, in the languages the reader knows.
_NEGATED = {
    "en": ["Not {v}.", "I cannot say {v}.", "I would never answer {v} here.", "Hardly {v}."],
    "fr": ["Pas {v}.", "Je ne dirais pas {v}.", "Ce n'est pas {v}, non plus."],
    "de": ["Nicht {v}.", "Ich kann nicht {v} sagen.", "Auf keinen Fall {v}."],
    "es": ["Nunca {v}.", "No puedo decir {v}.", "Sin duda no {v}."],
    "it": ["Non {v}.", "Non direi {v}."],
    "pt": ["Não {v}.", "Eu não diria {v}."],
    "ru": ["Не {v}.", "Я не могу сказать {v}."],  # noqa: RUF001
    "tr": ["{v} değil.", "Kesinlikle {v} değil."],
    "pl": ["Nie {v}.", "Nie mogę powiedzieć {v}."],
    "nl": ["Niet {v}.", "Ik zou geen {v} zeggen."],
    "ar": ["لا {v}.", "ليس {v}."],
    "hi": ["{v} नहीं।", "मैं {v} नहीं कह सकता।"],
    "zh": ["不是{v}。", "我不能说{v}。"],
    "ja": ["{v}ではない。"],
    "ko": ["{v} 아니다."],
}
# Verdict words quoted, or mentioned in a sentence, not given.
_QUOTES = ['"{v}"', "'{v}'", "«{v}»", "\u201c{v}\u201d", "\u201e{v}\u201c", "「{v}」", "`{v}`"]
_MENTIONED = [
    "{q}",
    "{q}.",
    "{q} is what the text says of another claim; this one is false.",
    "The source says {q} to a different question.",
    "Answer: {q}",
    "Well, {v}.",
    "So the answer would be {v}.",
    "Definitely {v}.",
    "The statement is backed, hence {v}.",
]
# Verdict words glued to other characters: not the word itself.
_GLUED = ["{v}-man", "{v}'s", "{v}\u200b", "{v}\u00ad", "{v}2", "{v}\u0308", "{v}\u200dx"]
# A verdict, then the other one or a negated, quoted repeat.
_OTHER = {"yes": ["no", "nein", "non", "нет", "hayır", "nie", "不", "いいえ", "아니요", "لا"]}  # noqa: RUF001
_OTHER["no"] = ["yes", "ja", "oui", "да", "evet", "tak", "是", "はい", "네", "نعم"]
# Informal answers: verdict words wherever they stand, a word after them or not.
_INFORMAL = {"yes": ["nope", "Nope", "nah", "NAH", "nay"], "no": ["yeah", "Yep", "yup", "YEAH"]}
_DOUBLE = [
    "{v}, but {o}.",
    "{v}. Actually, {o}.",
    "{v}/{o}",
    "{v} — {o}.",
    "{v}. I would not call it {v} though.",
    '{v}. The text says "{v}" only of the date.',
    "{v}? Not sure.",
]
_INFORMAL_DOUBLE = [*_DOUBLE, "{v}, {o} I think it is fine."]


def _spelling(draw: st.DrawFn, side: str) -> str:
    return draw(st.sampled_from(_YES if side == "yes" else _NO))


@st.composite
def unreadable_answers(draw: st.DrawFn) -> str:
    """An answer whose verdict word must not be read as a verdict."""
    side = draw(st.sampled_from(["yes", "no"]))
    v = _spelling(draw, side)
    kind = draw(st.sampled_from(["negated", "mentioned", "glued", "double", "asked", "informal"]))
    if kind == "negated":
        lang = draw(st.sampled_from(sorted(_NEGATED)))
        return draw(st.sampled_from(_NEGATED[lang])).format(v=v)
    if kind == "mentioned":
        quoted = draw(st.sampled_from(_QUOTES)).format(v=v)
        return draw(st.sampled_from(_MENTIONED)).format(q=quoted, v=v)
    if kind == "glued":
        return draw(st.sampled_from(_GLUED)).format(v=v) + draw(st.sampled_from(["", ".", " x"]))
    if kind == "asked":  # a question mark of any script after the word
        mark = draw(st.sampled_from("?" + QUESTION_MARKS))
        space = draw(st.sampled_from(["", " ", "**"]))
        return v + space + mark + draw(st.sampled_from(["", " It might be.", "\nMaybe."]))
    if kind == "informal":
        other = draw(st.sampled_from(_INFORMAL[side]))
        return draw(st.sampled_from(_INFORMAL_DOUBLE)).format(v=v, o=other)
    other = draw(st.sampled_from(_OTHER[side]))
    return draw(st.sampled_from(_DOUBLE)).format(v=v, o=other)


_LEADS = ["", "**", "\n", "  ", "(", "- ", "Answer: ", "**Verdict:** ", "Final answer - "]
_ENDS = {"": "", "**": "**", "(": ")"}
_CLEAN_TAILS = {
    "yes": [
        "",
        ".",
        "!",
        ", the source says so.",
        ". The third paragraph states it, and there is no contradiction.",
        " — it is stated plainly. Ja.",
        ". Yes, it does.",
        "\nThe ship sank in the storm, as the text says.",
    ],
    "no": [
        "",
        ".",
        ", the source never says that.",
        ". No one in the text does this.",
        " — the dates differ. Nein.",
        ". Nothing in the text supports it; no.",
        "\nThe text names another harbour.",
    ],
}


@st.composite
def clean_answers(draw: st.DrawFn) -> tuple[str, str]:
    """A clean verdict in answer position, with a tail that keeps it; and its side."""
    side = draw(st.sampled_from(["yes", "no"]))
    lead = draw(st.sampled_from(_LEADS))
    word = _spelling(draw, side) + _ENDS.get(lead.strip(), "")
    return lead + word + draw(st.sampled_from(_CLEAN_TAILS[side])), side


def _first_token_output(text: str, top: dict[str, float]) -> ModelOutput:
    """An answer whose first generated token is its first word, with alternatives `top`."""
    out = ModelOutput.from_content("m", text)
    first = text.split()[0] if text.split() else text
    out.choices[0].logprobs = Logprobs(
        content=[
            Logprob(
                token=first,
                logprob=top.get(first, -0.05),
                top_logprobs=[TopLogprob(token=t, logprob=v) for t, v in top.items()],
            )
        ]
    )
    return out


@pytest.mark.fault("answer_not_yes_no", "counted")
@settings(max_examples=400, deadline=None)
@given(answer=unreadable_answers())
def test_no_negated_quoted_glued_or_mentioned_verdict_is_read(answer: str) -> None:
    assert read_answer(answer) is None
    assert parse_yes_no(answer) is None
    assert parse_verdict(answer) is None
    assert read_yes_no(ModelOutput.from_content("m", answer)) == (None, "unreadable")
    # however confident the log-probabilities of a yes or a no at the first token
    for top in ({"Yes": -0.01, "No": -5.0}, {"No": -0.01, "Yes": -5.0}):
        assert read_yes_no(_first_token_output(answer, top))[0] is None


@settings(max_examples=300, deadline=None)
@given(answer=clean_answers())
def test_clean_first_word_verdicts_are_read(answer: tuple[str, str]) -> None:
    text, side = answer
    assert parse_yes_no(text) == (1.0 if side == "yes" else 0.0)
    assert parse_verdict(text) == side
    assert read_yes_no(ModelOutput.from_content("m", text)) == (parse_yes_no(text), "text")


def test_every_question_mark_of_unicode_is_listed() -> None:
    names = ("QUESTION MARK", "INTERROBANG")
    left_out = ("LESS-THAN", "GREATER-THAN", "TAG ")  # mathematical symbols; an invisible tag
    found = {
        chr(c)
        for c in range(sys.maxunicode + 1)
        if any(n in (name := unicodedata.name(chr(c), "")) for n in names)
        and not any(x in name for x in left_out)
    }
    assert found - {"?"} == set(QUESTION_MARKS)


@pytest.mark.parametrize(
    "answer", ["Yes\u061f", "Yes\u037e", "Yes\u203d", "Yes, nope.", "Yes, nah.", "No, yeah."]
)
def test_the_answers_once_misread_are_unreadable(answer: str) -> None:
    assert read_answer(answer) is None
    assert read_yes_no(ModelOutput.from_content("m", answer)) == (None, "unreadable")


def test_a_plain_semicolon_after_the_verdict_is_no_question() -> None:
    # The Greek question mark becomes ";" under NFKC: only the Greek one asks.
    assert read_answer("Yes; the source says so.") is not None


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Yes, partially", "partial"),
        ("Partially.", "partial"),
        ("Partly yes: the year is missing.", "partial"),
        ("Yes, but only partially.", "partial"),
        ("Yes, but not even partially.", None),
        ("Partially; no.", None),
        ("Not partially.", None),
        ("Verdict: NO", "no"),
    ],
)
def test_rater_partial_verdicts_in_answer_position(text: str, verdict: str | None) -> None:
    assert parse_verdict(text) == verdict


# ---- log-probabilities --------------------------------------------------------------------


def _out(
    text: str, chosen: str, chosen_lp: float, alternatives: list[tuple[str, float]]
) -> ModelOutput:
    out = ModelOutput.from_content("m", text)
    out.choices[0].logprobs = Logprobs(
        content=[
            Logprob(
                token=chosen,
                logprob=chosen_lp,
                top_logprobs=[TopLogprob(token=t, logprob=v) for t, v in alternatives],
            )
        ]
    )
    return out


def test_the_chosen_token_counts_even_when_the_alternatives_leave_it_out() -> None:
    # Before: P(yes) 1.0 from the alternatives alone, for an answer that says No.
    out = _out("No.", "No", math.log(0.6), [("Yes", math.log(0.3)), ("Maybe", math.log(0.1))])
    p, source = read_yes_no(out)
    assert source == "logprobs" and p == pytest.approx(0.3 / 0.9)


def test_each_distinct_token_counts_once() -> None:
    lp_yes, lp_no = math.log(0.5), math.log(0.4)
    twice = [("Yes", lp_yes), ("Yes", lp_yes), ("No", lp_no), ("No", lp_no)]
    p, source = read_yes_no(_out("Yes", "Yes", lp_yes, twice))
    assert source == "logprobs" and p == pytest.approx(5 / 9)
    # one token given two different values: the numbers contradict each other
    clash = [("Yes", lp_yes), ("No", lp_no), ("Yes", math.log(0.05))]
    assert read_yes_no(_out("Yes", "Yes", lp_yes, clash)) == (None, "unreadable")
    assert read_yes_no(_out("Yes", "Yes", math.log(0.9), [("Yes", lp_yes)])) == (
        None,
        "unreadable",
    )


@pytest.mark.fault("non_finite_logprob", "counted")
@pytest.mark.parametrize("where", ["chosen", "alternative", "later"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, 0.3])
def test_impossible_numbers_anywhere_make_the_answer_unreadable(where: str, bad: float) -> None:
    alternatives = [("Yes", -0.1), ("No", -2.5)]
    if where == "alternative":
        alternatives.append(("Perhaps", bad))
    out = _out("Yes, it does.", "Yes", bad if where == "chosen" else -0.1, alternatives)
    if where == "later":
        assert out.choices[0].logprobs is not None
        out.choices[0].logprobs.content.append(Logprob(token=",", logprob=bad))
    assert read_yes_no(out) == (None, "unreadable")


def test_a_generated_token_at_minus_infinity_is_impossible() -> None:
    out = _out("Yes", "Yes", -math.inf, [("Yes", -math.inf), ("No", -0.1)])
    assert read_yes_no(out) == (None, "unreadable")
    later = _out("Yes, it does.", "Yes", -0.1, [("Yes", -0.1), ("No", -2.4)])
    assert later.choices[0].logprobs is not None
    later.choices[0].logprobs.content.append(Logprob(token=" it", logprob=-math.inf))
    assert read_yes_no(later) == (None, "unreadable")
    # an alternative at minus infinity is merely impossible to choose: probability 0
    fine = _out("Yes", "Yes", 0.0, [("Yes", 0.0), ("No", -math.inf)])
    assert read_yes_no(fine) == (1.0, "logprobs")


@pytest.mark.parametrize(
    ("text", "chosen"),
    [("No, it is not there.", "Yes"), ("Yes.", "No"), ("Not yes.", "Yes"), ("Nope", "No")],
)
def test_a_first_token_that_disagrees_with_the_text_is_unreadable(text: str, chosen: str) -> None:
    out = _out(text, chosen, -0.1, [(chosen, -0.1), ("Yes" if chosen == "No" else "No", -2.4)])
    assert read_yes_no(out) == (None, "unreadable")


def test_a_label_before_the_verdict_token_is_skipped() -> None:
    out = ModelOutput.from_content("m", "Answer: Yes")
    out.choices[0].logprobs = Logprobs(
        content=[
            Logprob(token="Answer", logprob=-0.1),
            Logprob(token=":", logprob=-0.1),
            Logprob(
                token=" Yes",
                logprob=math.log(0.8),
                top_logprobs=[
                    TopLogprob(token=" Yes", logprob=math.log(0.8)),
                    TopLogprob(token=" No", logprob=math.log(0.2)),
                ],
            ),
        ]
    )
    p, source = read_yes_no(out)
    assert source == "logprobs" and p == pytest.approx(0.8)


def test_a_verdict_word_split_into_tokens_is_read_from_its_text() -> None:
    out = ModelOutput.from_content("m", "Yes.")
    out.choices[0].logprobs = Logprobs(
        content=[Logprob(token="Y", logprob=-0.1), Logprob(token="es.", logprob=-0.1)]
    )
    assert read_yes_no(out) == (1.0, "text")


_FINITE = st.floats(min_value=-20.0, max_value=0.0)


@settings(max_examples=200, deadline=None)
@given(
    chosen=st.sampled_from(["Yes", "No", " yes", "NO"]),
    chosen_lp=_FINITE,
    alternatives=st.lists(
        st.tuples(st.sampled_from(["Yes", "No", " yes", "NO", "Maybe", "The"]), _FINITE),
        max_size=6,
    ),
)
def test_p_yes_is_a_probability_over_distinct_tokens(
    chosen: str, chosen_lp: float, alternatives: list[tuple[str, float]]
) -> None:
    item = Logprob(
        token=chosen,
        logprob=chosen_lp,
        top_logprobs=[TopLogprob(token=t, logprob=v) for t, v in alternatives],
    )
    p = p_yes_from_top(item)
    values: dict[str, list[float]] = {}
    for token, value in [(chosen, chosen_lp), *alternatives]:
        values.setdefault(token, []).append(value)
    consistent = all(
        max(v) - min(v) <= 1e-6 for t, v in values.items() if t.strip().lower() in ("yes", "no")
    )
    if not consistent:
        assert p is None
        return
    yes = sum(math.exp(v[0]) for t, v in values.items() if t.strip().lower() == "yes")
    no = sum(math.exp(v[0]) for t, v in values.items() if t.strip().lower() == "no")
    assert p == pytest.approx(yes / (yes + no))
    # listing any alternative again changes nothing
    again = Logprob(
        token=chosen,
        logprob=chosen_lp,
        top_logprobs=[*(item.top_logprobs or []), *(item.top_logprobs or [])],
    )
    assert p_yes_from_top(again) == pytest.approx(p)


def test_joint_answers_stop_at_a_word_that_is_no_plain_verdict() -> None:
    assert p_yes_at_answers(ModelOutput.from_content("m", "1. No 2. Not yes 3. No"), 3) == [
        0.0,
        None,
        None,
    ]
    assert p_yes_at_answers(ModelOutput.from_content("m", '"Yes" No No'), 3) == [None] * 3
    assert p_yes_at_answers(ModelOutput.from_content("m", "Yes, No; yes"), 3) == [1.0, 0.0, 1.0]


# ---- the judges ---------------------------------------------------------------------------


@pytest.mark.fault("answer_not_yes_no", "counted")
@pytest.mark.parametrize(
    "answer",
    [
        "Nicht yes: the source places the fire a year later.",
        "I would not say yes; the harbour is another one.",
        "«Yes» is what the text says of the captain, not of this claim.",
        "Kesinlikle yes değil.",
    ],
)
def test_the_judges_count_such_answers_unreadable(answer: str) -> None:
    model = get_model("scripted/verdicts", default_response=answer, memoize=False)
    for logprobs in (True, False):
        settings = FaithfulnessSettings(logprobs=logprobs, cache=False)
        judgement = asyncio.run(judge_support(model, "The ship sank.", "A ship sank.", settings))
        assert (judgement.value, judgement.source) == (None, "missing")
        verdict = asyncio.run(
            ask_rater(model, "x (YES or NO)", RatingSettings(cache=False, logprobs=logprobs))
        )
        assert verdict.verdict is None and verdict.p_yes is None and len(verdict.answers) == 2


# ---- batched answers ----------------------------------------------------------------------


@pytest.mark.fault("batched_contradiction", "counted")
@settings(max_examples=100, deadline=None)
@given(
    key=st.sampled_from(["confusion", "types", "questions", "sentence"]),
    spelling=st.sampled_from(["{k}", "{K}", " {k} "]),
    order=st.booleans(),
)
def test_a_batched_item_that_repeats_a_key_is_unreadable(
    key: str, spelling: str, order: bool
) -> None:
    values = {
        "confusion": ("true", "false"),
        "types": ('["duplication"]', '["salience"]'),
        "questions": ('["Who?"]', '["Where?"]'),
        "sentence": ("1", "1"),
    }[key]
    first, second = values if order else values[::-1]
    pairs = {"sentence": "1", "confusion": "true", "types": '["duplication"]', key: first}
    again = spelling.format(k=key, K=key.capitalize())
    item = "{" + ", ".join([*(f'"{k}": {v}' for k, v in pairs.items()), f'"{again}": {second}'])
    item += "}"
    judgements, problems = parse_batch(f'[{item}, {{"sentence": 2, "confusion": false}}]', 2)
    assert 1 not in judgements and "twice" in problems[1]
    assert judgements[2].confused is False


def test_a_clean_batched_answer_still_reads() -> None:
    text = json.dumps(
        [
            {"sentence": 1, "confusion": False},
            {"sentence": 2, "confusion": True, "types": ["salience"], "questions": ["Why?"]},
        ]
    )
    judgements, problems = parse_batch(text, 2)
    assert problems == {} and judgements[2].types == ["salience"]
