"""Reading yes/no answers exactly: whole-word tokens from log-probabilities, hedged or double
text answers unreadable, in the faithfulness judge as in the helpers it uses."""

from __future__ import annotations

import asyncio
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import Logprob, Logprobs, ModelOutput, TopLogprob, get_model

from helpers import output_with_logprobs
from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, judge_support
from longform_evals.judges.yes_no import (
    p_yes_from_logprobs,
    p_yes_from_output,
    parse_yes_no,
    read_yes_no,
    reading_source,
    token_word,
)


def _out(top: dict[str, float], text: str = "x") -> ModelOutput:
    return output_with_logprobs(text, top)


NOT_YES_NO = pytest.mark.fault("answer_not_yes_no", "counted")
NON_FINITE = pytest.mark.fault("non_finite_logprob", "counted")


@pytest.mark.parametrize(
    ("token", "word"),
    [
        ("Yes", "yes"),
        (" Yes", "yes"),
        ("YES", "yes"),
        ("yes", "yes"),
        ("Yes.", "yes"),
        ("Yes,", "yes"),
        ("\nNo", "no"),
        (" no", "no"),
        ("No.", "no"),
        ("NO!", "no"),
        ("Not", None),
        ("Nothing", None),
        ("None", None),
        ("Notably", None),
        ("Yesterday", None),
        ("yes-man", None),
        ("Noah", None),
        ("", None),
    ],
)
def test_tokens_count_only_as_whole_words(token: str, word: str | None) -> None:
    assert token_word(token) == word


@pytest.mark.parametrize(
    ("text", "top", "expected"),
    [
        ("Yes", {"Yes": math.log(0.5), "yes,": math.log(0.1), "No": math.log(0.4)}, 0.6),
        ("No.", {"No": math.log(0.6), " yes": math.log(0.2), "Not": -1.0}, 0.25),
        # The first token is not a yes or a no: nothing is read from the alternatives, however
        # much "Yes" they hold (an API judge answering "Nope", "Supported.", "The sentence ...").
        *(
            pytest.param(text, top, None, marks=NOT_YES_NO)
            for text, top in [
                ("Nope", {"Nope": -0.01, "Yes": -9.0}),
                ("Notably, yes", {"Notably": math.log(0.6), "Yes": math.log(0.3), "No": -2.3}),
                ("Not", {"Not": math.log(0.9), " yes": math.log(0.1)}),
                ("Yesterday", {"Yesterday": math.log(0.7), "No": math.log(0.3)}),
                ("Supported.", {"Supported": -0.2, "Yes": -1.8}),
                ("The sentence is supported.", {"The": -0.1, "Yes": -2.5, "No": -4.0}),
            ]
        ),
        ("Yes", {"Not": -0.1, "Nothing": -2.0, "Yesterday": -3.0}, None),
    ],
)
def test_p_yes_is_read_only_at_a_yes_or_no_first_token(
    text: str, top: dict[str, float], expected: float | None
) -> None:
    p = p_yes_from_logprobs(_out(top, text))
    assert p == (None if expected is None else pytest.approx(expected))


@pytest.mark.parametrize(
    "word", ["Yes", "YES", " yes", "Yes.", "**Yes**", '"Yes', "\uff39\uff25\uff33"]
)
def test_yes_spellings_count(word: str) -> None:
    assert token_word(word) == "yes"


@pytest.mark.parametrize("word", ["Y\u0435s", "N\u043e", "Yes\u0301", "Nope", "Noo"])
def test_look_alike_spellings_do_not_count(word: str) -> None:
    assert token_word(word) is None


def test_markdown_and_line_breaks_before_the_answer_are_skipped() -> None:
    out = ModelOutput.from_content("m", "**Yes**")
    out.choices[0].logprobs = Logprobs(
        content=[
            Logprob(token="**", logprob=-0.1, top_logprobs=[TopLogprob(token="**", logprob=-0.1)]),
            Logprob(
                token="Yes",
                logprob=math.log(0.8),
                top_logprobs=[
                    TopLogprob(token="Yes", logprob=math.log(0.8)),
                    TopLogprob(token="No", logprob=math.log(0.2)),
                ],
            ),
        ]
    )
    assert p_yes_from_logprobs(out) == pytest.approx(0.8)


@pytest.mark.fault("hedged_answer", "counted")
@pytest.mark.parametrize("text", ["Yes and no", "Yes\nNo", "No, but yes.", "Yes or no."])
def test_hedged_answers_are_unreadable_with_log_probabilities_too(text: str) -> None:
    first = text.split()[0].rstrip(",")
    assert p_yes_from_logprobs(_out({first: -0.1, "Yes": -3.0, "No": -3.0}, text)) is None
    assert p_yes_from_output(_out({first: -0.1, "Yes": -3.0, "No": -3.0}, text)) is None


@pytest.mark.parametrize(
    "bad",
    [pytest.param(math.inf, marks=NON_FINITE), pytest.param(math.nan, marks=NON_FINITE), 0.5],
)
def test_impossible_log_probabilities_are_unreadable(bad: float) -> None:
    assert p_yes_from_logprobs(_out({"Yes": bad, "No": -1.0}, "Yes")) is None
    assert p_yes_from_logprobs(_out({"No": -0.1, "Yes": bad}, "No")) is None


def test_minus_infinity_is_probability_zero() -> None:
    assert p_yes_from_logprobs(_out({"Yes": 0.0, "No": -math.inf}, "Yes")) == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes.", 1.0),
        ("No.", 0.0),
        ("**Yes**", 1.0),
        ("No, the text never says that.", 0.0),
        ("Yes. The document states it.", 1.0),
        ("Yes, there is no contradiction.", 1.0),
        ("No. No one in the text does that.", 0.0),
        # a verdict counts only in answer position: a late "yes" is never inferred
        pytest.param("Notably, yes", None, marks=NOT_YES_NO),
        pytest.param("The statement is backed, so yes.", None, marks=NOT_YES_NO),
        ("Yes, but no.", None),
        ("Yes or no", None),
        ("yes/no", None),
        ("YES / NO", None),
        ("No. Actually, yes.", None),
        ("Yes and no.", None),
        ("It could be yes or no.", None),
        ("Maybe.", None),
        ("Yesterday it rained.", None),
        ("", None),
    ],
)
def test_hedged_or_double_text_answers_are_unreadable(text: str, expected: float | None) -> None:
    assert parse_yes_no(text) == expected


def _judge(response: str, top: dict[str, float] | None, logprobs: bool) -> tuple[float | None, str]:
    rule: dict[str, object] = {"pattern": "<statement>", "response": response}
    if top is not None:
        rule["top_logprobs"] = top
    model = get_model("scripted/faithfulness", rules=[rule], memoize=False)
    settings = FaithfulnessSettings(logprobs=logprobs, cache=False)
    judgement = asyncio.run(judge_support(model, "The ship sank.", "A ship sank.", settings))
    return judgement.value, judgement.source


def test_faithfulness_judge_reads_whole_word_tokens() -> None:
    value, source = _judge("Yes", {"Yes": -0.2, "No": -1.2, "Notably": -3.0}, logprobs=True)
    assert source == "logprobs" and value == pytest.approx(1 / (1 + math.exp(-1.0)))
    # A first token that is no yes/no word: no log-probability reading, and a verdict word
    # later in the text is not in answer position: the answer is missing, whatever follows.
    value, source = _judge("Notably, yes", {"Notably": -0.05, "Yes": -3.0}, logprobs=True)
    assert (value, source) == (None, "missing")
    value, source = _judge("Notably, yes", {"Notably": -0.05, "Nothing": -1.0}, logprobs=True)
    assert (value, source) == (None, "missing")


@pytest.mark.fault("answer_not_yes_no", "counted")
@pytest.mark.parametrize("answer", ["Nope", "Supported.", "The sentence is backed by it."])
def test_faithfulness_judge_never_reads_alternatives_of_another_answer(answer: str) -> None:
    first = answer.split()[0]
    assert _judge(answer, {first: -0.01, "Yes": -8.0}, logprobs=True) == (None, "missing")


@pytest.mark.fault("hedged_answer", "counted")
@pytest.mark.parametrize("answer", ["Yes and no", "No, but yes."])
def test_faithfulness_judge_refuses_hedges_with_log_probabilities(answer: str) -> None:
    first = answer.split()[0].rstrip(",")
    assert _judge(answer, {first: -0.1, "No": -2.0}, logprobs=True) == (None, "missing")


@pytest.mark.parametrize("answer", ["Yes, but no.", "Yes or no", "yes/no"])
def test_faithfulness_judge_counts_a_hedged_answer_as_missing(answer: str) -> None:
    assert _judge(answer, None, logprobs=False) == (None, "missing")


def test_text_answers_are_read_whole_not_cut_short() -> None:
    late_hedge = "Yes, the earlier text introduces everyone named here, but no."
    assert len(late_hedge) > 40
    assert p_yes_from_output(ModelOutput.from_content("m", late_hedge)) is None
    assert p_yes_from_output(ModelOutput.from_content("m", "Yes, it does.")) == 1.0


# ---- one reading everywhere: impossible log-probabilities, and generated answers ----------

_BAD = [pytest.param(math.inf, marks=NON_FINITE), pytest.param(math.nan, marks=NON_FINITE), 0.5]


def _judged_with(monkeypatch: pytest.MonkeyPatch, module: str, output: ModelOutput) -> None:
    """Make every call the judge module makes through the call path answer ``output`` (the
    scripted provider refuses impossible log-probabilities, a broken provider may send them)."""

    async def answer(*args: object, **kwargs: object) -> ModelOutput:
        return output

    monkeypatch.setattr(f"longform_evals.judges.{module}.generate", answer)


@pytest.mark.parametrize("bad", _BAD)
def test_an_impossible_log_probability_makes_the_answer_unreadable_not_text(
    bad: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the log-probability reading failed and the text ("Yes") was read instead, so
    the probe judge scored the sentence and the faithfulness judge called it supported."""
    for chosen in ({"Yes": bad, "No": -1.0}, {"Yes": -0.1, "No": bad}):
        out = _out(chosen, "Yes")
        assert read_yes_no(out) == (None, "unreadable")
        assert p_yes_from_output(out) is None and reading_source(out) == "unreadable"
    # asked without log-probabilities, the judge reads the words: nothing broken was asked for
    assert read_yes_no(_out({"Yes": bad, "No": -1.0}, "Yes"), logprobs=False) == (1.0, "text")
    _judged_with(monkeypatch, "faithfulness.llm", _out({"Yes": bad, "No": -1.0}, "Yes"))
    model = get_model("scripted/faithfulness", default_response="Yes", memoize=False)
    settings = FaithfulnessSettings(logprobs=True, cache=False)
    judgement = asyncio.run(judge_support(model, "The ship sank.", "A ship sank.", settings))
    assert (judgement.value, judgement.source) == (None, "missing")


@pytest.mark.parametrize("bad", _BAD)
def test_raters_refuse_an_answer_with_impossible_log_probabilities(
    bad: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from longform_evals.judges.raters.rating import RatingSettings, rate_answer

    _judged_with(monkeypatch, "raters.rating", _out({"Yes": bad, "No": -2.0}, "Yes"))
    model = get_model("scripted/rater", default_response="Yes", memoize=False)
    settings = RatingSettings(logprobs=True, cache=False)
    [verdicts] = asyncio.run(rate_answer(model, "Who?", "Anna.", ["Anna."], settings))
    for verdict in verdicts.values():
        assert verdict.verdict is None and verdict.p_yes is None


_YES = ["Yes", " yes", "YES", "Yes.", "Yes,", "\nYes", "**Yes", "\uff39\uff45\uff53"]
_NO = ["No", " no", "NO", "No.", "No,", "\nNo", "**No", "\uff2e\uff4f"]
_OTHER = ["Nope", "Supported", "The", "Not", "Yesterday", "Answer", "Maybe", "Noah", "1"]
_TAILS = ["", " it does.", " and no.", " but yes.", ", there is no doubt.", "\nNo", " or no"]


@st.composite
def answers(draw: st.DrawFn) -> tuple[ModelOutput, str, str]:
    """An answer: a first token, a tail of words, and a table of alternatives for the first
    position (log-probabilities finite or not), with the text they spell."""
    first = draw(st.sampled_from(_YES + _NO + _OTHER))
    tail = draw(st.sampled_from(_TAILS))
    finite = st.floats(min_value=-30.0, max_value=0.0)
    anything = st.one_of(finite, st.sampled_from([math.inf, math.nan, 0.25]))
    alternatives = draw(
        st.dictionaries(
            st.sampled_from(_YES + _NO + _OTHER),
            draw(st.sampled_from([finite, anything])),
            max_size=5,
        )
    )
    top = {first: draw(finite), **{t: v for t, v in alternatives.items() if t != first}}
    text = first + tail
    return _out(top, text), first, text


@pytest.mark.fault("answer_not_yes_no", "counted")
@settings(max_examples=300, deadline=None)
@given(answers())
def test_generated_answers_follow_the_one_rule(answer: tuple[ModelOutput, str, str]) -> None:
    out, first, text = answer
    p, source = read_yes_no(out)
    top = out.choices[0].logprobs.content[0].top_logprobs or []  # type: ignore[union-attr]
    impossible = any(math.isnan(t.logprob) or t.logprob > 0 for t in top)
    if impossible:
        assert (p, source) == (None, "unreadable")
    elif source == "logprobs":
        # read from the alternatives only when the chosen first token is a yes or a no, and
        # the words do not hedge
        assert token_word(first) is not None and parse_yes_no(text.strip()) is not None
        assert p is not None and 0.0 <= p <= 1.0
    else:
        # otherwise the words alone decide, whatever the alternatives hold
        assert (p, source) == (
            (parse_yes_no(text.strip()), "text")
            if parse_yes_no(text.strip()) is not None
            else (None, "unreadable")
        )
    if token_word(first) is None and not impossible:
        assert source != "logprobs"
        # the same words with other alternatives read the same
        assert read_yes_no(_out({first: -0.01, "Yes": -0.02}, text)) == (p, source)
        assert read_yes_no(_out({first: -0.01, "No": -0.02}, text)) == (p, source)
    if parse_yes_no(text.strip()) is None and not impossible:
        # a hedged or verdictless answer is never read, with or without log-probabilities
        assert p is None
