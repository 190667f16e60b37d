"""benchmarks/booookscore_cost.py: the layouts it compares are the packaged prompts with only
their order changed, and part A counts every layout's tokens over the same summaries."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from inspect_ai.model import Model, get_model

from helpers import load_benchmark_script
from longform_evals.prompts import load_prompt


def _script() -> ModuleType:
    return load_benchmark_script("booookscore_cost")


def test_the_baseline_layouts_reorder_the_packaged_prompts(tmp_path: Path) -> None:
    script = _script()
    quoted = load_prompt("booookscore", "judge_sentence_quoted").text
    first = load_prompt(
        "booookscore", "judge_sentence_quoted", script.sentence_first_prompts(tmp_path / "s")
    ).text
    assert first.index("<sentence>") < first.index("<summary>\n{summary}")
    assert quoted.index("<summary>\n{summary}") < quoted.index("<sentence>")
    assert sorted(first.split()) == sorted(quoted.split())  # same words, other order
    probe = load_prompt("booookscore", "probe").text
    question_first = load_prompt(
        "booookscore", "probe", script.question_first_prompts(tmp_path / "p")
    ).text
    assert question_first.index("{question}") < question_first.index("{earlier}")
    assert probe.index("{earlier}") < probe.index("{question}")


def test_judged_summaries_start_with_the_bundled_one() -> None:
    summaries = _script().judged_summaries(3)
    assert len(summaries) == 3 and len(summaries[0]) == 24
    assert all(len(s) >= 5 for s in summaries)


def test_agreement_counts_only_sentences_both_layouts_read() -> None:
    agreement = _script().agreement
    assert agreement([True, False, None], [True, True, False]) == "1/2 same verdicts"
    assert agreement([None], [True]) == "no sentence read by both"


def test_part_a_runs_every_layout_over_the_same_summaries(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    model = get_model(
        "scripted/cost",
        rules=[{"pattern": "Sentence to judge", "response": "No confusion."}],
        default_response="No",
        memoize=False,
    )
    sent: list[int] = []

    def totals(m: Model) -> dict[str, Any]:  # tokens as the scripted model's prompt words
        words = sum(len(c.prompt.split()) for c in m.api.calls)  # type: ignore[attr-defined]
        sent.append(words)
        return {"prompt_tokens": words, "cached_tokens": 0}

    monkeypatch.setattr(script, "_totals", totals)
    monkeypatch.setattr(script, "get_model", lambda name: model)
    script.asyncio.run(script.part_a("scripted/cost", 2, ["sentence", "probe"]))
    out = capsys.readouterr().out
    for name in ("sentence first", "quoted", "numbered", "question first", "per_probe"):
        assert f"    {name} " in out
    assert "sentence first / quoted: prompt tokens processed" in out
    assert "question first / per_probe" in out
    assert out.count("0 unreadable (parse failures)") == 5  # the scripted judge always answers
    assert sent and sent == sorted(sent)
