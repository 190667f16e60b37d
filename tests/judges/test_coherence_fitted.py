"""The fitted coherence judge: its file, its arithmetic, and its place in the BooookScore scorer."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model

from longform_evals.analysis.coherence_features import FEATURES
from longform_evals.judges.coherence.fitted import (
    fitted_summary,
    fitted_verdict,
    load_fitted,
    parse_fitted,
)
from longform_evals.judges.coherence.probe import ProbeSettings

TEXT_ROW = (0.5, 2.0, 1.0, 0.0, 0.2, 0.1, 0.6)  # a sentence's text signals, FEATURES order


def _file(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "features": ["probe:introduced", "new_names", "overlap_previous"],
        "mean": [0.5, 0.0, 0.3],
        "scale": [0.25, 1.0, 0.2],
        "weights": [1.0, 2.0, -1.0],
        "intercept": -1.0,
        "threshold": 0.5,
        "types": {"new_names": "entity_omission", "overlap_previous": "discontinuity"},
    }
    return data | overrides


def test_probability_is_the_logistic_of_the_standardised_weighted_sum() -> None:
    fitted = parse_fitted(_file(), "test")
    # introduced: P(yes) 0.2 -> signal 0.8 (flags on "no"); new_names 1; overlap_previous 0.1.
    verdict = fitted_verdict(1, "Zorb fixes it.", {"introduced": 0.2}, TEXT_ROW, fitted)
    z = -1.0 + 1.0 * (0.8 - 0.5) / 0.25 + 2.0 * (1.0 - 0.0) / 1.0 - 1.0 * (0.1 - 0.3) / 0.2
    assert verdict.parsed
    assert verdict.p_confusion == pytest.approx(1 / (1 + math.exp(-z)))
    assert verdict.confused
    # new_names pushed hardest (2.0, against 1.2 and 1.0): its type names the confusion.
    assert verdict.types == ["entity_omission"]


def test_below_the_threshold_is_clean_and_an_unread_probe_is_a_parse_failure() -> None:
    fitted = parse_fitted(_file(threshold=0.999), "test")
    clean = fitted_verdict(1, "Mara rests.", {"introduced": 0.9}, TEXT_ROW, fitted)
    assert clean.parsed and not clean.confused and clean.types == []
    unread = fitted_verdict(1, "Mara rests.", {"introduced": None}, TEXT_ROW, fitted)
    assert not unread.parsed and "introduced" in unread.problems[0]


def test_the_first_sentence_has_no_probe_signal() -> None:
    fitted = parse_fitted(_file(), "test")
    first = fitted_verdict(
        0, "Mara keeps the light.", {}, (0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 1.0), fitted
    )
    z = -1.0 + (0.0 - 0.5) / 0.25 + 0.0 - (0.0 - 0.3) / 0.2
    assert first.parsed and first.p_confusion == pytest.approx(1 / (1 + math.exp(-z)))


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"weights": [1.0]}, "1 weights for 3 features"),
        ({"scale": [0.25, 0.0, 0.2]}, "scale must be positive"),
        ({"features": ["probe:nosuch", "new_names", "overlap_previous"]}, "unknown features"),
        ({"intercept": "high"}, "malformed"),
        ({"probe_template": "fenced"}, "unknown probe_template 'fenced'"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_problem(
    change: dict[str, Any], needle: str
) -> None:
    with pytest.raises(ValueError, match=needle):
        parse_fitted(_file(**change), "bad.json")
    data = _file()
    del data["threshold"]
    with pytest.raises(ValueError, match="malformed"):
        parse_fitted(data, "bad.json")


def test_the_judge_asks_only_the_probes_its_file_names(tmp_path: Path) -> None:
    path = tmp_path / "fitted.json"
    path.write_text(json.dumps(_file()))
    fitted = load_fitted("gguf/x", str(path))
    assert fitted is not None and fitted.probes == ("introduced",)
    judge = get_model(
        "scripted/probe",
        rules=[{"pattern": ".", "response": "No", "top_logprobs": {"No": -0.1, "Yes": -2.5}}],
        memoize=False,
    )
    settings = ProbeSettings(cache=False)
    sentences = ["Mara keeps the light.", "Zorb fixes the lamp."]
    verdicts, calls = asyncio.run(fitted_summary(judge, sentences, settings, fitted))
    assert calls == 1  # `introduced` needs earlier text: asked of the second sentence only
    assert [v.parsed for v in verdicts] == [True, True]
    assert set(verdicts[1].type_probabilities or {}) == {"entity_omission"}
    assert len(FEATURES) == len(TEXT_ROW)


@pytest.mark.parametrize(("template", "readable"), [(None, True), ("probe", False)])
def test_the_judge_asks_with_the_prompt_its_weights_were_fitted_on(
    tmp_path: Path, template: str | None, readable: bool
) -> None:
    """Whatever the settings say: a file without `probe_template` predates the fence."""
    path = tmp_path / "fitted.json"
    path.write_text(json.dumps(_file() | ({"probe_template": template} if template else {})))
    fitted = load_fitted("gguf/x", str(path))
    assert fitted is not None
    judge = get_model(
        "scripted/probe",
        rules=[
            {"pattern": "<sentence>", "response": "Maybe"},  # the fenced prompt
            {"pattern": ".", "response": "No", "top_logprobs": {"No": -0.1, "Yes": -2.5}},
        ],
        memoize=False,
    )
    settings = ProbeSettings(cache=False, template="probe")
    verdicts, _ = asyncio.run(
        fitted_summary(judge, ["Mara keeps it.", "Zorb too."], settings, fitted)
    )
    assert verdicts[1].parsed is readable


def test_the_scorer_refuses_fitted_mode_without_a_file() -> None:
    from longform_evals.judges.coherence.judges import CoherenceJudging

    judge = get_model("scripted/probe", rules=[{"pattern": ".", "response": "No"}], memoize=False)
    with pytest.raises(ValueError, match="no fitted coherence judge"):
        asyncio.run(CoherenceJudging(mode="fitted").judge(judge, ["One.", "Two."]))


def test_the_card_command_offers_every_scorer_mode() -> None:
    from longform_evals.cli.judge_card import _run_args
    from longform_evals.judges.coherence.judges import coherence_modes

    for mode in coherence_modes():
        assert _run_args("grader", "coherence", "data.json", mode, None, ())["mode"] == mode


def test_the_packaged_fitted_judge_is_readable_and_asks_the_calibrated_probes() -> None:
    from longform_evals.judges.coherence.probe import thresholds_for

    fitted = load_fitted("gguf/qwen2.5-coder-1.5b")
    assert fitted is not None and fitted.source.startswith("packaged")
    # Fitted on the unfenced probe prompt's answers, with that calibration's probes.
    assert fitted.probe_template == "probe_unfenced"
    on, _ = thresholds_for("gguf/qwen2.5-coder-1.5b", ProbeSettings(template="probe_unfenced"))
    assert set(fitted.probes) == {name for name, t in on.items() if t.enabled}
    assert 0.0 < fitted.threshold < 1.0
    assert load_fitted("replay/qwen2.5-coder-1.5b") == fitted
