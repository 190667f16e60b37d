"""The checks of the LLM-judged metrics: they pass on the packaged recording of the default judge,
fail when the scoring path is broken, and fail loudly when the recording lacks a call."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from longform_evals.checks import booookscore_checks, faithfulness_checks, rater_checks
from longform_evals.checks.judge import JudgeChoice, judge_choice
from longform_evals.checks.runner import format_table, junit_xml, run_checks, shipped_checks
from longform_evals.checks.spec import Result
from longform_evals.judges.coherence import probe as coherence_probe
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.faithfulness import support
from longform_evals.models.replay import packaged_recording

JUDGED = ["booookscore", "faithfulness", "llm_raters"]

pytestmark = pytest.mark.skipif(
    not packaged_recording("qwen2.5-coder-1.5b").exists(),
    reason="the packaged judge recording is absent",
)


@pytest.fixture
def fresh_scores() -> Iterator[None]:
    # The judged checks keep their scores per judge; a test that breaks the scorer needs new ones.
    for module in (booookscore_checks, faithfulness_checks, rater_checks):
        module.scored_with.cache_clear()
    yield
    for module in (booookscore_checks, faithfulness_checks, rater_checks):
        module.scored_with.cache_clear()


def _failed(results: list[Result]) -> set[str]:
    return {r.check.id for r in results if not r.passed}


def test_judged_checks_pass_on_the_recording() -> None:
    results = run_checks(only=JUDGED)
    assert not _failed(results), format_table(results)
    gaps = {r.check.name for r in results if r.known_gap is not None}
    # The recorded judge's measured gaps (docs/ci.md): sentence mode flags nothing, batched
    # mode's flags miss the planted errors; every other check must hold.
    assert gaps == {
        "sentence_mode_duplicated_sentence_lowers",
        "sentence_mode_discontinuity_lowers",
        "sentence_mode_planted_sentence_flagged",
        "sentence_mode_planted_vs_clean_auc",
        "sentence_mode_planted_mean_lower",
        "batched_mode_discontinuity_lowers",
        "batched_mode_planted_sentence_flagged",
        "batched_mode_planted_vs_clean_auc",
    }, gaps


@pytest.mark.parametrize("metric", JUDGED)
def test_every_judged_metric_has_an_effect_an_invariance_and_bounds(metric: str) -> None:
    kinds = {c.kind for c in shipped_checks() if c.metric == metric}
    assert kinds & {"direction", "discrimination"} and {"invariance", "bounds"} <= kinds, kinds


def test_a_known_gap_is_reported_and_does_not_fail() -> None:
    results = run_checks(only=["booookscore"])
    [entity] = [r for r in results if r.check.name == "sentence_mode_duplicated_sentence_lowers"]
    assert entity.passed and entity.verdict == "known gap"
    table = format_table([entity])
    assert "known gap" in table
    # counted apart from the passes, and as skipped (with its reason) in JUnit
    assert table.endswith("0 of 1 checks passed, 0 failed, 1 known gap of this judge.\n")
    root = ET.fromstring(junit_xml([entity]))
    assert root.get("skipped") == "1" and root.get("failures") == "0"
    [suite] = root.iter("testsuite")
    assert suite.get("skipped") == "1"
    [skipped] = root.iter("skipped")
    assert str(skipped.get("message")).startswith("known gap: ")


@pytest.mark.usefixtures("fresh_scores")
def test_a_parser_that_never_reads_confusion_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = coherence_probe.verdict_from_probes

    def never_confused(*args: object, **kwargs: object) -> SentenceVerdict:
        verdict = real(*args, **kwargs)  # type: ignore[arg-type]
        verdict.confused, verdict.types = False, []
        return verdict

    monkeypatch.setattr(coherence_probe, "verdict_from_probes", never_confused)
    failed = _failed(run_checks(only=["booookscore"]))
    assert {
        "booookscore/duplicated_sentence_lowers",
        "booookscore/planted_sentence_flagged",
        "booookscore/planted_mean_lower",
    } <= failed


@pytest.mark.usefixtures("fresh_scores")
def test_support_read_as_its_complement_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # A yes/no reading flipped (P(no) taken for support) turns every faithfulness effect round.
    real = support.SupportJudgement.__init__

    def flipped(self: support.SupportJudgement, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        if self.value is not None:
            object.__setattr__(self, "value", 1.0 - self.value)

    monkeypatch.setattr(support.SupportJudgement, "__init__", flipped)
    failed = _failed(run_checks(only=["faithfulness"]))
    assert {
        "faithfulness/planted_summary_lowers",
        "faithfulness/source_document",
    } <= failed


@pytest.mark.usefixtures("fresh_scores")
def test_a_missing_recording_line_fails_loudly_naming_the_prompt(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    results = run_checks(only=["llm_raters"], judge=JudgeChoice(recording=str(empty)))
    assert results and all(not r.passed and r.error for r in results)
    error = results[0].error or ""
    assert "ReplayMissError" in error and str(empty) in error, error


def test_recording_needs_a_model() -> None:
    with pytest.raises(ValueError, match="--record MODEL"):
        JudgeChoice(record=True)


def test_live_takes_the_model_specifications_inspect_takes(tmp_path: Path) -> None:
    assert judge_choice("openai/gpt-4o") == JudgeChoice(live="openai/gpt-4o")
    inline = judge_choice(
        "{model: gguf/qwen2.5-coder-1.5b, model_args: {n_threads: 1}, temperature: 0}",
        ["n_ctx=4096"],
    )
    assert inline.live == "gguf/qwen2.5-coder-1.5b"
    assert dict(inline.model_args) == {"n_threads": "1", "n_ctx": "4096"}
    assert dict(inline.config) == {"temperature": "0"}
    spec = tmp_path / "judge.yaml"
    spec.write_text("model: openai-api/local/qwen\nmax_connections: 4\n", encoding="utf-8")
    from_file = judge_choice(str(spec), ["api_key=local"])
    assert from_file.live == "openai-api/local/qwen"
    assert dict(from_file.model_args) == {"api_key": '"local"'}
    assert dict(from_file.config) == {"max_connections": "4"}


@pytest.mark.parametrize(
    ("live", "args", "message"),
    [
        ("{model_args: {a: 1}}", [], "needs `model`"),
        ("{model: x, temprature: 0}", [], "unknown generate setting"),
        ("{model: [x", [], "not valid YAML"),
        ("missing.yaml", [], "no such model specification file"),
        ("openai/gpt-4o", ["n_threads"], "expected name=value"),
        (None, ["n_threads=1"], "need a live model"),
    ],
)
def test_a_bad_live_specification_says_what_is_wrong(
    live: str | None, args: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        judge_choice(live, args)
