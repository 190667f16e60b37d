"""benchmarks/paper_booookscore.py: GPT-4's released verdicts reach the suite's scorer as answers
it reads, sentences the splitters cut differently are counted apart, and on the shared data the
suite's BooookScore agrees with the official `get_score`, which gives back the paper's 78.6."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import load_benchmark_script
from longform_evals.judges.coherence.paper import JudgeSettings, sentence_prompt
from longform_evals.judges.coherence.parse import parse_judgement
from longform_evals.judges.injection import as_data

ENTRY = {"questions": "Who is Zorb?", "types": ["entity omission", "event omission"]}


@pytest.fixture(scope="module")
def paper() -> ModuleType:
    return load_benchmark_script("paper_booookscore")


def test_a_released_verdict_becomes_an_answer_the_suite_reads(paper: ModuleType) -> None:
    flagged = paper.Unit("Zorb came.", "same", True, ("Who is Zorb?",), tuple(ENTRY["types"]))
    judgement = parse_judgement(flagged.answer)
    assert judgement.confused and judgement.types == ["entity_omission", "event_omission"]
    assert judgement.questions == ["Who is Zorb?"]
    assert not parse_judgement(paper.Unit("Mara left.", "same", False).answer).confused


def test_a_sentence_punkt_splits_otherwise_gets_the_verdict_of_what_it_overlaps(
    paper: ModuleType,
) -> None:
    summary = "Ames met J.B. Zorb at noon. He ran. Zorb came."
    punkt = ["Ames met J.B.", "Zorb at noon.", "He ran.", "Zorb came."]  # punkt cuts at J.B.
    units = paper.suite_units(summary, punkt, {"Zorb at noon.": ENTRY})
    assert [(u.sentence, u.kind, u.flagged) for u in units] == [
        ("Ames met J.B. Zorb at noon.", "joins", True),
        ("He ran.", "same", False),
        ("Zorb came.", "same", False),
    ]
    assert units[0].types == ("entity omission", "event omission")
    assert "met J.B. |Zorb at noon." in units[0].where  # where punkt cuts and the suite does not


def test_the_official_file_holds_every_punkt_sentence(paper: ModuleType) -> None:
    released = paper.Released("x", {"a": "A. B.", "b": "C."}, {"a": {"B.": ENTRY}, "b": None})
    splits = {"a": ["A.", "B."], "b": ["C."]}
    clean = {"questions": None, "types": None}
    assert paper.official_annotations(splits, released, ["a", "b"]) == {
        "a": {"A.": clean, "B.": ENTRY},
        "b": {"C.": clean},
    }


def test_the_judge_finds_its_answer_from_the_suites_own_prompt(paper: ModuleType) -> None:
    units = {"a": [paper.Unit("Mara left.", "same", False), paper.Unit("Zorb <b>.", "same", True)]}
    table = paper.judge_table(units)
    summary = as_data("Mara left. Zorb <b>.")
    prompt = sentence_prompt(summary, 1, "Zorb <b>.", JudgeSettings())
    assert paper.prompt_key(prompt) == (summary, as_data("Zorb <b>."))
    assert table[paper.prompt_key(prompt)] == units["a"][1].answer


def _reference(paper: ModuleType) -> Any:
    try:
        return paper.reference_env.ensure_reference_env()
    except paper.reference_env.PipInstallError as exc:
        pytest.skip(f"the reference env cannot be built here: {exc}")


@pytest.mark.parametrize("name", ["claude-2048-inc", "chatgpt-2048-hier"])
def test_the_suite_and_the_official_scorer_agree_on_the_released_verdicts(
    paper: ModuleType, shared_data: Path, tmp_path: Path, name: str
) -> None:
    data = shared_data / "booookscore_gpt4"
    if not data.is_dir():
        pytest.skip(f"{data} is not present on this machine")
    # Built only once the data is known to be there (seconds once built).
    report = paper.measure(paper.Released.load(data, name), _reference(paper), tmp_path)
    official = report.official["paper"]
    assert report.suite_parse_failure_rate == 0.0  # every recorded answer was read
    assert abs(report.suite_score - official) < 1, paper.render(report)
    assert report.unmatched == report.suite_sentences - report.kinds["same"] > 0
    assert f"{report.unmatched} are not" in paper.render(report)
    if report.paper is not None:
        assert math.isclose(official, report.paper, abs_tol=0.4), paper.render(report)
        assert math.isclose(report.suite_score, report.paper, abs_tol=0.4), paper.render(report)
