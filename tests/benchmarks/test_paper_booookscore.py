"""benchmarks/paper_booookscore.py: GPT-4's released verdicts, in both of the BooookScore
repository's formats (by sentence, and a list of spans), reach the suite's scorer as answers it
reads, each occurrence of a repeated sentence its own; a sentence two splitters would cut
differently is counted apart; and on the shared data the suite's sentences are the official
package's and its BooookScore (repeated sentences once, the default) equals the official
`get_score`, which gives back the paper's 78.6."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import load_benchmark_script
from longform_evals.judges.coherence.demonstrations import numbered_lines
from longform_evals.judges.coherence.paper import JudgeSettings, sentence_prompt
from longform_evals.judges.coherence.parse import parse_judgement
from longform_evals.judges.injection import as_data

ENTRY = {"questions": "Who is Zorb?", "types": ["entity omission", "event omission"]}
OTHER = {"questions": "Why again?", "types": ["duplication"]}
CLEAN = {"questions": None, "types": None}


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
    units = paper.suite_units(summary, punkt, [None, ENTRY, None, None])
    assert [(u.sentence, u.kind, u.flagged, u.punkt) for u in units] == [
        ("Ames met J.B. Zorb at noon.", "joins", True, (0, 1)),
        ("He ran.", "same", False, (2,)),
        ("Zorb came.", "same", False, (3,)),
    ]
    assert units[0].types == ("entity omission", "event omission")
    assert "met J.B. |Zorb at noon." in units[0].where  # where punkt cuts and the suite does not


def test_both_released_formats_are_read_by_sentence(paper: ModuleType) -> None:
    assert paper.listed_entries({"B.": ENTRY}) == {"B.": [ENTRY]}
    spans = [{"span": "B.", **ENTRY}, {"span": "C.", **OTHER}, {"span": "B.", **OTHER}]
    assert paper.listed_entries(spans) == {"B.": [ENTRY, OTHER], "C.": [OTHER]}
    assert paper.listed_entries(None) == {}
    with pytest.raises(ValueError, match=r"x\[0\]: expected an object with a span"):
        paper.listed_entries([{"questions": "?", "types": []}], "x")
    with pytest.raises(ValueError, match="x: expected an object, a list of spans or null"):
        paper.listed_entries("B.", "x")  # type: ignore[arg-type]


def test_each_occurrence_gets_its_verdict(paper: ModuleType) -> None:
    punkt = ["A.", "B.", "A.", "B.", "A."]
    # A list says how many occurrences were flagged, not which: the last ones, in list order.
    listed = {"A.": [ENTRY, OTHER], "B.": [ENTRY, OTHER, OTHER]}
    assert paper.occurrence_entries(punkt, listed, per_occurrence=True) == [
        None,
        OTHER,  # B. is listed more times than punkt has it: its last entries are kept
        ENTRY,
        OTHER,
        OTHER,
    ]
    # A dict keeps one verdict per text: every occurrence has it.
    assert paper.occurrence_entries(punkt, {"B.": [ENTRY]}, per_occurrence=False) == [
        None,
        ENTRY,
        None,
        ENTRY,
        None,
    ]


def test_the_official_file_holds_every_punkt_sentence_its_last_verdict(paper: ModuleType) -> None:
    # get_annot writes each occurrence under its text: a repeat's last verdict stays.
    assert paper.written_annotation(["A.", "B.", "A."], [ENTRY, None, None]) == {
        "A.": CLEAN,
        "B.": CLEAN,
    }
    released = paper.Released(
        "x",
        {"a": "A. B. A.", "b": "C.", "c": "D. D."},
        {"a": {"B.": ENTRY}, "b": None, "c": [{"span": "D.", **OTHER}]},
    )
    splits = {"a": ["A.", "B.", "A."], "b": ["C."], "c": ["D.", "D."]}
    assert paper.official_annotations(splits, released, ["a", "b", "c"]) == {
        "a": {"A.": CLEAN, "B.": ENTRY},
        "b": {"C.": CLEAN},
        "c": {"D.": OTHER},
    }
    assert released.mismatched("c", splits["c"]) == (1, 0)
    assert released.mismatched("a", splits["a"]) == (0, 0)


def test_the_judge_finds_each_occurrences_answer_from_the_suites_own_prompt(
    paper: ModuleType,
) -> None:
    # One sentence twice with two verdicts: the numbered prompt names each by its place.
    units = {
        "a": [
            paper.Unit("Zorb <b>.", "same", False),
            paper.Unit("Mara left.", "same", False),
            paper.Unit("Zorb <b>.", "same", True, ("Who?",), ("entity omission",)),
        ]
    }
    table = paper.judge_table(units)
    summary = numbered_lines([as_data(u.sentence) for u in units["a"]])
    settings = JudgeSettings(layout="numbered")
    answers = []
    for i, unit in enumerate(units["a"]):
        key = paper.prompt_key(sentence_prompt(summary, i, unit.sentence, settings))
        assert key == (summary, i + 1)
        answers.append(table[key])
    assert answers == [u.answer for u in units["a"]]
    assert answers[0] != answers[2]


def test_the_released_list_of_spans_is_read(paper: ModuleType, shared_data: Path) -> None:
    data = shared_data / "booookscore_gpt4"
    if not (data / "annotations-llama2-2048-hier.json").is_file():
        pytest.skip(f"{data} has no llama2-2048-hier annotations on this machine")
    released = paper.Released.load(data, "llama2-2048-hier")
    books = released.books()
    formats = {b: released.format(b) for b in books}
    assert set(formats.values()) == {"list", "null"}
    listed = {b: released.listed(b) for b in books}
    entries = [e for by_text in listed.values() for es in by_text.values() for e in es]
    assert entries and all(set(e) == {"questions", "types"} and e["types"] for e in entries)
    # Sentences listed more than once, some with two different verdicts.
    repeated = [es for by_text in listed.values() for es in by_text.values() if len(es) > 1]
    assert repeated and any(len({str(e) for e in es}) > 1 for es in repeated)
    book = next(b for b in books if formats[b] == "list")
    text = released.summaries[book]
    punkt = [s for s in listed[book] if s in text]  # found in the summary, in no order
    assert paper.occurrence_entries(punkt, listed[book], True) != [None] * len(punkt)


def _reference(paper: ModuleType) -> Any:
    try:
        return paper.reference_env.ensure_reference_env()
    except paper.reference_env.PipInstallError as exc:
        pytest.skip(f"the reference env cannot be built here: {exc}")


# The suite under both rules where repeats matter, its default alone where they hardly do.
_RULES = {"claude-2048-inc": ("once",), "chatgpt-2048-hier": ("once",)}


@pytest.mark.parametrize("name", ["claude-2048-inc", "chatgpt-2048-hier", "llama2-2048-hier"])
def test_the_suite_and_the_official_scorer_agree_on_the_released_verdicts(
    paper: ModuleType, shared_data: Path, tmp_path: Path, name: str
) -> None:
    data = shared_data / "booookscore_gpt4"
    if not (data / f"annotations-{name}.json").is_file():
        pytest.skip(f"{data} has no {name} annotations on this machine")
    # Built only once the data is known to be there (seconds once built).
    rules = _RULES.get(name, paper.RULES)
    report = paper.measure(
        paper.Released.load(data, name), _reference(paper), tmp_path, rules=rules
    )
    official = report.official["paper"]
    shown = paper.render(report)
    assert report.suite_parse_failure_rate == 0.0  # every recorded answer was read
    # One splitter on both sides (NLTK's Punkt): every judged sentence is an official one, and
    # counting repeats once is the official get_score, to the last digit.
    assert report.unmatched == 0 and report.suite_sentences == report.punkt_sentences, shown
    assert "0 are not" in shown
    assert math.isclose(report.suite_score, official, abs_tol=1e-9), shown
    assert f"{report.suite_score:.2f}" == f"{official:.2f}"
    if "each" in report.suite:
        assert report.punkt_repeats > 0 and "repeated_sentences=each" in shown
        # Counting every occurrence moves the figure away from the official one.
        each = report.suite["each"]
        assert abs(each.score - official) > abs(report.suite_score - official), shown
        assert each.counted == report.suite_sentences > report.suite["once"].counted
    if report.paper is not None:
        assert math.isclose(official, report.paper, abs_tol=0.4), shown
        assert math.isclose(report.suite_score, report.paper, abs_tol=0.4), shown
