"""Reading yes/no answers exactly: whole-word tokens from log-probabilities, hedged or double
text answers unreadable, in the faithfulness judge as in the helpers it uses."""

from __future__ import annotations

import asyncio
import math

import pytest
from inspect_ai.model import ModelOutput, get_model

from helpers import output_with_logprobs
from longform_evals.judges.faithfulness import FaithfulnessSettings, judge_support
from longform_evals.judges.yes_no import (
    p_yes_from_logprobs,
    p_yes_from_output,
    parse_yes_no,
    token_word,
)


def _out(top: dict[str, float], text: str = "x") -> ModelOutput:
    return output_with_logprobs(text, top)


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
    ("top", "expected"),
    [
        # "Notably, yes": the first token is "Notably", which is no "no".
        ({"Notably": math.log(0.6), "Yes": math.log(0.3), "No": math.log(0.1)}, 0.75),
        ({"Not": math.log(0.9), " yes": math.log(0.1)}, 1.0),
        ({"Yesterday": math.log(0.7), "No": math.log(0.3)}, 0.0),
        ({"Nothing": math.log(0.8), "YES": math.log(0.1), "no.": math.log(0.1)}, 0.5),
        ({" Yes": math.log(0.5), "yes,": math.log(0.1), "No": math.log(0.4)}, 0.6),
        ({"Not": -0.1, "Nothing": -2.0, "Yesterday": -3.0}, None),
    ],
)
def test_p_yes_reads_whole_word_tokens_only(top: dict[str, float], expected: float | None) -> None:
    p = p_yes_from_logprobs(_out(top))
    assert p == (None if expected is None else pytest.approx(expected))


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
        ("Notably, yes", 1.0),
        ("The statement is backed, so yes.", 1.0),
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
    top = {"Notably": -0.05, "Yes": -3.0, "No": -4.0}
    value, source = _judge("Notably, yes", top, logprobs=True)
    assert source == "logprobs" and value == pytest.approx(1 / (1 + math.exp(-1.0)))
    # Only prefix-matching tokens: no log-probability reading, the text decides.
    value, source = _judge("Notably, yes", {"Notably": -0.05, "Nothing": -1.0}, logprobs=True)
    assert (value, source) == (1.0, "text")


@pytest.mark.parametrize("answer", ["Yes, but no.", "Yes or no", "yes/no"])
def test_faithfulness_judge_counts_a_hedged_answer_as_missing(answer: str) -> None:
    assert _judge(answer, None, logprobs=False) == (None, "missing")


def test_text_answers_are_read_whole_not_cut_short() -> None:
    late_hedge = "Yes, the earlier text introduces everyone named here, but no."
    assert len(late_hedge) > 40
    assert p_yes_from_output(ModelOutput.from_content("m", late_hedge)) is None
    assert p_yes_from_output(ModelOutput.from_content("m", "Yes, it does.")) == 1.0
