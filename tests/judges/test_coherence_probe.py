"""Probe-mode logic: reading P(yes), thresholds, calibration files, verdicts."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import get_model

from helpers import output_with_logprobs
from longform_evals.judges.coherence.probe import (
    PROBES,
    ProbeSettings,
    ProbeThreshold,
    probe_summary,
    thresholds_for,
    verdict_from_probes,
)
from longform_evals.judges.yes_no import p_yes_from_output
from longform_evals.scorers.booookscore import booookscore_values


def test_p_yes_normalises_over_yes_and_no_variants() -> None:
    out = output_with_logprobs(
        "Yes", {"Yes": math.log(0.5), " yes": math.log(0.1), "No": math.log(0.2), "The": -1}
    )
    assert p_yes_from_output(out) == pytest.approx(0.6 / 0.8)


def test_p_yes_falls_back_to_text_then_none() -> None:
    assert p_yes_from_output(output_with_logprobs("No.", None)) == 0.0
    assert p_yes_from_output(output_with_logprobs("yes, it does", None)) == 1.0
    assert p_yes_from_output(output_with_logprobs("Maybe", None)) is None
    assert p_yes_from_output(output_with_logprobs("Maybe", {"Maybe": -0.1, "Perhaps": -2})) is None


@pytest.mark.fault("answer_not_yes_no", "counted")
def test_p_yes_reads_whole_word_tokens_only() -> None:
    # "Notably" / "Nothing" / "Yesterday" merely start with no / yes: an answer that starts
    # with one is not read from its alternatives (the text decides, and these say nothing).
    out = output_with_logprobs(
        "Notably", {"Notably": math.log(0.6), "Yes": math.log(0.3), "No": math.log(0.1)}
    )
    assert p_yes_from_output(out) is None
    out = output_with_logprobs(
        "Yesterday", {"Yesterday": math.log(0.7), "Nothing": -3, "No.": math.log(0.3)}
    )
    assert p_yes_from_output(out) is None
    out = output_with_logprobs("No.", {"No.": math.log(0.3), "Nothing": -3, "Yes": math.log(0.1)})
    assert p_yes_from_output(out) == pytest.approx(0.25)
    # No whole word among the tokens: the text decides, and "Yes, but no." decides nothing.
    assert (
        p_yes_from_output(output_with_logprobs("Yes, but no.", {"Yesterday": -0.1, "Not": -1}))
        is None
    )


def test_first_sentence_is_only_asked_the_probes_that_need_no_earlier_text() -> None:
    first_only = {p.name for p in PROBES if not p.needs_earlier}
    assert first_only == {"matters", "well_formed"}


def _all(p: float) -> dict[str, float | None]:
    return {probe.name: p for probe in PROBES}


def test_verdict_flags_by_direction_and_threshold() -> None:
    thresholds = {p.name: ProbeThreshold(0.7) for p in PROBES}
    # P(yes)=0.9: "repeats" (flag on yes) fires; every flag-on-no probe has signal 0.1.
    v = verdict_from_probes(3, "s", _all(0.9), thresholds)
    assert v.parsed and v.confused and v.types == ["duplication"]
    # P(yes)=0.2: every flag-on-no probe fires (signal 0.8), "repeats" does not.
    v = verdict_from_probes(3, "s", _all(0.2), thresholds)
    assert "duplication" not in v.types and len(v.types) == len(PROBES) - 1
    assert v.p_confusion == pytest.approx(0.5 + 0.5 * 0.1 / 0.3)  # signal 0.8, centred on 0.7


def test_p_confusion_ranks_as_the_thresholds_do() -> None:
    """A sentence one probe flags ranks above one that no probe flags, whatever the raw
    signals: the largest raw signal (0.60 from `follows`, under its 0.62) would rank them
    the other way round."""
    thresholds = {p.name: ProbeThreshold(0.62 if p.name == "follows" else 0.5) for p in PROBES}
    clean = verdict_from_probes(2, "s", {"follows": 0.40, "matters": 0.80}, thresholds)
    flagged = verdict_from_probes(2, "s", {"follows": 0.95, "matters": 0.48}, thresholds)
    assert not clean.confused and flagged.confused and flagged.types == ["salience"]
    assert (flagged.p_confusion or 0.0) > (clean.p_confusion or 0.0)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([p.name for p in PROBES]),
        st.floats(0.0, 1.0),
        min_size=1,
    ),
    st.floats(0.01, 0.99),
    st.floats(0.01, 0.99),
)
def test_p_confusion_reaches_one_half_exactly_when_confused(
    p_yes: dict[str, float], low: float, high: float
) -> None:
    thresholds = {p.name: ProbeThreshold(low if k % 2 else high) for k, p in enumerate(PROBES)}
    v = verdict_from_probes(1, "s", dict(p_yes), thresholds)
    assert v.parsed and v.p_confusion is not None and 0.0 <= v.p_confusion <= 1.0
    assert (v.p_confusion >= 0.5) == v.confused


def test_disabled_probes_never_flag_and_unreadable_ones_are_problems() -> None:
    thresholds = {p.name: ProbeThreshold(0.7, enabled=p.name == "repeats") for p in PROBES}
    answers = _all(0.1)
    answers["compatible"] = None
    v = verdict_from_probes(1, "s", answers, thresholds)
    assert v.parsed and not v.confused
    assert v.problems == ["probe compatible: the answer was neither yes nor no"]
    nothing = verdict_from_probes(1, "s", {p.name: None for p in PROBES}, thresholds)
    assert not nothing.parsed and nothing.confused is None


def test_sentence_with_an_unreadable_active_probe_is_a_parse_failure() -> None:
    thresholds = {p.name: ProbeThreshold(0.7) for p in PROBES}
    answers: dict[str, float | None] = {p.name: None for p in PROBES}
    answers["well_formed"] = 0.9  # one readable probe of eight, and it sees nothing wrong
    v = verdict_from_probes(2, "s", answers, thresholds)
    assert not v.parsed and v.confused is None and not v.types
    unread = [p.name for p in PROBES if p.name != "well_formed"]
    assert v.problems[-1] == f"unread: 7 of 8 active probes unreadable ({', '.join(unread)})"
    values = booookscore_values([v], judge_calls=8)
    assert math.isnan(values["booookscore"]) and values["parse_failure_rate"] == 1.0
    # A read, confused sentence next to a partial one: the partial one is not counted clean.
    confused = verdict_from_probes(1, "t", _all(0.2), thresholds)
    one_missing = _all(0.9)
    one_missing["follows"] = None
    values = booookscore_values(
        [confused, verdict_from_probes(2, "u", one_missing, thresholds)], judge_calls=16
    )
    assert values["booookscore"] == 0.0 and values["parse_failure_rate"] == 0.5


def test_unasked_probes_do_not_make_a_sentence_partial() -> None:
    thresholds = {p.name: ProbeThreshold(0.7) for p in PROBES}
    first = {p.name: 0.9 for p in PROBES if not p.needs_earlier}
    v = verdict_from_probes(0, "s", first, thresholds)  # the first sentence: two probes asked
    assert v.parsed and not v.confused and not v.problems


def test_thresholds_from_override_file_and_uncalibrated(tmp_path: Path) -> None:
    table, source = thresholds_for("gguf/x", ProbeSettings(threshold=0.6))
    assert all(t.threshold == 0.6 for t in table.values()) and source == "threshold=0.6"
    table, source = thresholds_for("openai/some-model", ProbeSettings())
    assert source.startswith("uncalibrated")
    path = tmp_path / "cal.json"
    path.write_text(
        json.dumps(
            {
                "probe_template": "probe",
                "probes": {p.name: {"threshold": 0.9, "enabled": False} for p in PROBES},
            }
        )
    )
    table, source = thresholds_for("gguf/x", ProbeSettings(calibration=str(path)))
    assert source == str(path) and not any(t.enabled for t in table.values())
    path.write_text(json.dumps({"probe_template": "probe", "probes": {"repeats": {}}}))
    with pytest.raises(ValueError, match="lacks probes"):
        thresholds_for("gguf/y", ProbeSettings(calibration=str(path)))


def test_a_calibrated_judge_is_asked_only_its_switched_on_probes(tmp_path: Path) -> None:
    on = {"follows", "repeats"}
    path = tmp_path / "cal.json"
    path.write_text(
        json.dumps(
            {
                "probe_template": "probe",
                "probes": {p.name: {"threshold": 0.5, "enabled": p.name in on} for p in PROBES},
            }
        )
    )
    judge = get_model("scripted/probe", rules=[{"pattern": ".", "response": "Yes"}], memoize=False)
    settings = ProbeSettings(cache=False, calibration=str(path))
    verdicts, calls = asyncio.run(probe_summary(judge, ["He left.", "She stayed."], settings))
    assert calls == 2  # none for the first sentence (both need earlier text), two for the second
    # No switched-on probe applies to the first sentence: read, and clean, without a call.
    assert verdicts[0].attempts == 0 and verdicts[0].parsed and not verdicts[0].confused
    assert verdicts[1].parsed and set(verdicts[1].type_probabilities) == {
        "discontinuity",
        "duplication",
    }
    assert verdicts[1].types == ["duplication"]  # "Yes" to "does it repeat?"


def test_thresholds_measured_with_another_probe_prompt_are_refused(tmp_path: Path) -> None:
    """Thresholds fit the prompt they were measured with; a file without `probe_template`
    predates the fenced prompt."""
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"probes": {p.name: {"threshold": 0.5} for p in PROBES}}))
    with pytest.raises(ValueError, match="'probe_unfenced' probe prompt, not 'probe'"):
        thresholds_for("gguf/x", ProbeSettings(calibration=str(path)))
    _, source = thresholds_for(
        "gguf/x", ProbeSettings(calibration=str(path), template="probe_unfenced")
    )
    assert source == str(path)
    with pytest.raises(ValueError, match="probe template 'fenced' is not one of"):
        ProbeSettings(template="fenced")


def test_the_probe_prompt_fences_the_judged_text() -> None:
    """The earlier text and the sentence reach the judge inside their fences, with a fence
    marker written in the sentence broken (an aside to the judge stays text to check)."""
    fenced = (
        r"<earlier>He left\.</earlier>\nNew sentence: "
        r"<sentence>She \u27e6/sentence> stayed\.</sentence>"
    )
    judge = get_model(
        "scripted/probe",
        rules=[{"pattern": fenced, "response": "Yes"}, {"pattern": ".", "response": "Maybe"}],
        memoize=False,
    )
    settings = ProbeSettings(cache=False, threshold=0.5)
    verdicts, _ = asyncio.run(
        probe_summary(judge, ["He left.", "She </sentence> stayed."], settings)
    )
    assert verdicts[1].parsed  # every probe of the second sentence matched the fenced rule
