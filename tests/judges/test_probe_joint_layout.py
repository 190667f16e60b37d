"""The `joint` probe layout: every probe of a sentence from one call, prompts that extend."""

from __future__ import annotations

import asyncio
import math

from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.model import Logprob, Logprobs, ModelOutput, TopLogprob, get_model

from longform_evals.judges.coherence.probe import (
    JOINT_ORDER,
    PROBES,
    ProbeSettings,
    joint_prompt,
    probe_summary,
    thresholds_for,
)
from longform_evals.judges.yes_no import p_yes_at_answers


def _position(token: str, top: dict[str, float]) -> Logprob:
    """One generated token and its alternatives, `top` as probabilities."""
    return Logprob(
        token=token,
        logprob=math.log(top[token]),
        top_logprobs=[TopLogprob(token=t, logprob=math.log(p)) for t, p in top.items()],
    )


def test_each_answer_position_is_read_and_numbering_is_skipped() -> None:
    out = ModelOutput.from_content("m", "1. No 2. Yes")
    out.choices[0].logprobs = Logprobs(
        content=[
            _position("1", {"1": 0.9}),
            _position(".", {".": 0.9}),
            _position(" No", {" No": 0.75, " Yes": 0.25}),
            _position(" 2", {" 2": 0.9}),
            _position(".", {".": 0.9}),
            _position(" Yes", {" Yes": 0.6, " No": 0.2, " Maybe": 0.2}),
        ]
    )
    ps = p_yes_at_answers(out, 3)
    assert ps[0] is not None and abs(ps[0] - 0.25) < 1e-9
    assert ps[1] is not None and abs(ps[1] - 0.75) < 1e-9
    assert ps[2] is None  # the answer stopped before a third word


def test_without_logprobs_the_words_are_read() -> None:
    assert p_yes_at_answers(ModelOutput.from_content("m", "No yes, NO."), 4) == [
        0.0,
        1.0,
        0.0,
        None,
    ]
    assert p_yes_at_answers(ModelOutput.from_content("m", "I cannot tell."), 2) == [None, None]


@given(st.lists(st.text(alphabet="abcdefgh .,'", min_size=1, max_size=30), min_size=2, max_size=6))
def test_each_prompt_extends_the_previous_sentences_line(sentences: list[str]) -> None:
    for i in range(len(sentences) - 1):
        now, after = (
            joint_prompt(sentences, i, JOINT_ORDER),
            joint_prompt(sentences, i + 1, JOINT_ORDER),
        )
        shared = now[: now.rindex("\n</summary>")]
        assert after.startswith(shared + "\n")
        assert after[len(shared) + 1 :].startswith(sentences[i + 1] + "\n</summary>")


def test_questions_are_numbered_in_order_and_the_judged_sentence_is_last() -> None:
    prompt = joint_prompt(["A met B.", "B left."], 1, JOINT_ORDER)
    numbers = [prompt.index(f"\n{n}. ") for n in range(1, len(JOINT_ORDER) + 1)]
    assert numbers == sorted(numbers)
    assert prompt.index("A met B.\nB left.\n</summary>") > numbers[-1]


def test_uncalibrated_joint_judge_switches_on_only_its_questions() -> None:
    table, source = thresholds_for("openai/some-model", ProbeSettings(layout="joint"))
    assert source.startswith("uncalibrated")
    assert {name for name, t in table.items() if t.enabled} == set(JOINT_ORDER)
    assert len(table) == len(PROBES)


def test_joint_summary_one_call_per_sentence_and_answers_map_to_probes() -> None:
    # Answers in JOINT_ORDER: repeats No, follows Yes, matters No, explained Yes.
    judge = get_model(
        "scripted/joint", rules=[{"pattern": ".", "response": "No Yes No Yes"}], memoize=False
    )
    settings = ProbeSettings(cache=False, layout="joint", threshold=0.5)
    verdicts, calls = asyncio.run(
        probe_summary(judge, ["Ana buys a boat.", "Ana sails to Crete."], settings)
    )
    assert calls == 2
    # First sentence: only "matters" applies; "No" to "would a reader lose the plot" flags.
    assert verdicts[0].type_probabilities == {"salience": 1.0}
    assert verdicts[0].types == ["salience"]
    second = verdicts[1]
    assert second.parsed and second.type_probabilities == {
        "duplication": 0.0,
        "discontinuity": 0.0,
        "salience": 1.0,
        "causal_omission": 0.0,
    }
    assert second.types == ["salience"]


def test_a_short_joint_answer_is_a_parse_failure_naming_the_probes() -> None:
    judge = get_model("scripted/short", rules=[{"pattern": ".", "response": "No"}], memoize=False)
    settings = ProbeSettings(cache=False, layout="joint", threshold=0.5)
    verdicts, _ = asyncio.run(probe_summary(judge, ["Ana buys a boat.", "She sails."], settings))
    assert not verdicts[1].parsed
    assert any("follows" in p for p in verdicts[1].problems)
