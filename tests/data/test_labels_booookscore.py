"""BooookScore human annotations: spans to sentences, relations, skips, scores, shared file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.booookscore import (
    FEW_SHOT_BOOKS,
    FEW_SHOT_REASON,
    human_booookscore,
    load_booookscore_annotations,
    locate_span,
    overlapping_sentences,
)
from longform_evals.data.labels.schema import METADATA_KEYS
from longform_evals.text.sentences import sentence_spans

SUMMARY = (
    "Mara keeps the lighthouse. Her brother Tom returns from the war.\n\n"
    "Tom was never at war. The storm breaks the lamp. Mara repairs the lamp."
)
SENTENCES = [
    "Mara keeps the lighthouse.",
    "Her brother Tom returns from the war.",
    "Tom was never at war.",
    "The storm breaks the lamp.",
    "Mara repairs the lamp.",
]


def single(span_id: str, span: str, *labels: str, questions: str = "Why?") -> dict[str, Any]:
    return {"id": span_id, "span": span, "questions": questions, "labels": list(labels)}


def relation(a: str, b: str, *labels: str, questions: str = "Which?") -> dict[str, Any]:
    return {
        "id_a": "ra",
        "id_b": "rb",
        "span_a": a,
        "span_b": b,
        "shared_questions": questions,
        "same": True,
        "shared_labels": list(labels),
    }


def book(
    summary: str = SUMMARY,
    singles: list[dict[str, Any]] | None = None,
    relations: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {"summary": summary, "singles": singles or [], "relations": relations or []}


def write(tmp_path: Path, books: dict[str, Any], name: str = "summary-gpt4-4096-hier.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(books, indent=2), encoding="utf-8")
    return path


def flags_of(path: Path, **options: Any) -> list[int | None]:
    [sample] = load_booookscore_annotations(path, **options).samples
    assert sample.metadata is not None
    flags: list[int | None] = sample.metadata["flags"]["annotators"]
    return flags


def test_schema_of_a_book(tmp_path: Path) -> None:
    rec = book(
        singles=[single("s1", "The storm breaks the lamp.", "causal omission", questions="Q1")],
        relations=[relation("returns from the war", "never at war", "inconsistency")],
    )
    path = write(tmp_path, {"keeper.epub": rec})
    labels = load_booookscore_annotations(path)
    assert (labels.kind, labels.format, labels.source) == ("coherence", "booookscore", str(path))
    assert labels.annotators == ["annotators"] and labels.skipped == []
    [sample] = labels.samples
    assert sample.id == "booookscore/gpt4-4096-hier/keeper.epub"
    assert isinstance(sample.input, str) and "keeper.epub" in sample.input
    meta = sample.metadata
    assert meta is not None and tuple(meta) == METADATA_KEYS
    assert meta["summary"] == SUMMARY and meta["summary_sentences"] == SENTENCES
    assert meta["unit"] == "sentence" and meta["group"] == "keeper.epub"
    assert meta["system"] == "gpt4-4096-hier" and meta["document"] is None
    # The relation flags only its later span's sentence (2); the single flags sentence 3.
    assert meta["flags"] == {"annotators": [0, 0, 1, 1, 0]}
    assert meta["unit_types"] == [[], [], ["inconsistency"], ["causal omission"], []]
    assert meta["unit_notes"] == [[], [], ["Which?"], ["Q1"], []]
    assert meta["summary_flags"] == {} and meta["human_scores"] == {}
    assert meta["source"] == f"{path}#keeper.epub"


def test_span_across_a_boundary_flags_both_sentences(tmp_path: Path) -> None:
    rec = book(singles=[single("s1", "the war.\n\nTom was", "discontinuity")])
    assert flags_of(write(tmp_path, {"b": rec})) == [0, 1, 1, 0, 0]


def test_relation_flags_the_later_span_whatever_its_key(tmp_path: Path) -> None:
    # span_a is the later one here: still its sentence is flagged, not span_b's.
    rec = book(relations=[relation("Mara repairs", "Mara keeps", "duplication")])
    assert flags_of(write(tmp_path, {"b": rec})) == [0, 0, 0, 0, 1]
    same = book(relations=[relation("storm", "the lamp", "duplication")])
    assert flags_of(write(tmp_path, {"b": same})) == [0, 0, 0, 1, 0]


def test_types_and_notes_are_merged_once_per_sentence(tmp_path: Path) -> None:
    rec = book(
        singles=[
            single("s1", "Mara keeps", "entity omission", questions="Who is Mara?"),
            single("s2", "lighthouse", "entity omission", "salience", questions="Who is Mara?"),
        ]
    )
    [sample] = load_booookscore_annotations(write(tmp_path, {"b": rec})).samples
    assert sample.metadata is not None
    assert sample.metadata["unit_types"][0] == ["entity omission", "salience"]
    assert sample.metadata["unit_notes"][0] == ["Who is Mara?"]


def test_whitespace_and_case_insensitive_fallback(tmp_path: Path) -> None:
    rec = book(singles=[single("s1", "  the  STORM breaks\nthe lamp ")])
    assert flags_of(write(tmp_path, {"b": rec})) == [0, 0, 0, 1, 0]


def test_ambiguous_span_takes_the_first_whole_word_occurrence(tmp_path: Path) -> None:
    # "the lamp" occurs in sentences 3 and 4: the first is taken.
    path = write(tmp_path, {"b": book(singles=[single("s1", "the lamp")])})
    assert flags_of(path) == [0, 0, 0, 1, 0]
    # "Tom" as a word first occurs in sentence 1, not inside "Tomorrow" before it.
    text = "Tomorrow comes. Tom leaves."
    assert flags_of(write(tmp_path, {"b": book(text, singles=[single("s1", "Tom")])})) == [0, 1]
    assert locate_span("Their cat. The dog.", "The") == (11, 14)
    assert locate_span("Their cat.", "The") == (0, 3)  # no whole word: any occurrence


def test_missing_span_leaves_the_summary_out_and_counts_it(tmp_path: Path) -> None:
    books = {
        "a.epub": book(singles=[single("gone", "A whale sings."), single("s2", "Mara")]),
        "b.epub": book(relations=[relation("Mara keeps", "a storm of frogs")]),
        "c.epub": book(singles=[single("s3", "Mara")]),
    }
    path = write(tmp_path, books)
    labels = load_booookscore_annotations(path)
    assert [s.id for s in labels.samples] == ["booookscore/gpt4-4096-hier/c.epub"]
    wheres = [(s.where, s.reason.split(":")[0]) for s in labels.skipped]
    assert wheres == [
        (f"{path}#a.epub span gone", "span not in the summary"),
        (f"{path}#a.epub", "summary left out"),
        (f"{path}#b.epub span rb", "span not in the summary"),
        (f"{path}#b.epub", "summary left out"),
    ]
    with pytest.raises(DataError, match=r"#a\.epub: span gone: span not in the summary"):
        load_booookscore_annotations(path, on_missing_span="error")
    with pytest.raises(ValueError, match="on_missing_span"):
        load_booookscore_annotations(path, on_missing_span="drop")  # type: ignore[arg-type]


def test_blank_span_is_a_missing_span(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.epub": book(singles=[single("s1", "  ")])})
    labels = load_booookscore_annotations(path)
    assert labels.samples == [] and labels.skipped[0].reason == "blank span"


def test_few_shot_books_are_excluded_and_listed(tmp_path: Path) -> None:
    books = {name: book() for name in (*FEW_SHOT_BOOKS, "other.epub")}
    path = write(tmp_path, books)
    labels = load_booookscore_annotations(path)
    assert [s.metadata["group"] for s in labels.samples if s.metadata] == ["other.epub"]
    assert [(s.where, s.reason) for s in labels.skipped] == [
        (f"{path}#{name}", FEW_SHOT_REASON) for name in FEW_SHOT_BOOKS
    ]
    assert len(load_booookscore_annotations(path, exclude_books=()).samples) == 3


def test_folder_reads_every_summary_file_with_its_system(tmp_path: Path) -> None:
    write(tmp_path, {"b.epub": book()}, "summary-gpt4-4096-hier.json")
    write(tmp_path, {"b.epub": book()}, "summary-gpt4-4096-inc.json")
    (tmp_path / "notes.json").write_text("{}", encoding="utf-8")
    labels = load_booookscore_annotations(tmp_path)
    assert [s.id for s in labels.samples] == [
        "booookscore/gpt4-4096-hier/b.epub",
        "booookscore/gpt4-4096-inc/b.epub",
    ]


@pytest.mark.parametrize(
    ("record", "needle"),
    [
        ({"summary": 3, "singles": [], "relations": []}, "field 'summary' must be a string"),
        ({"summary": "S.", "relations": []}, "missing field 'singles'"),
        ({"summary": "S.", "singles": {}, "relations": []}, "'singles' must be a list"),
        ({"summary": "S.", "singles": [{"id": "s", "span": "S.", "labels": [5]}]}, "'labels' must"),
        ({"summary": "S.", "singles": [{"id": "s", "span": None}]}, "'span' must be a string"),
        ("text", "expected an object"),
        # span ids that name no span (before: accepted, and skipped spans reported as "nan")
        *(
            pytest.param(
                {"summary": "S.", "singles": [single(bad, "S.")]},  # type: ignore[arg-type]
                "span id must be",
                marks=pytest.mark.fault("typed_ids", "clear error"),
            )
            for bad in (float("nan"), float("inf"), 1.5, ["s"])
        ),
    ],
)
def test_malformed_books_name_file_and_book(tmp_path: Path, record: Any, needle: str) -> None:
    path = write(tmp_path, {"ok.epub": book(), "bad.epub": record})
    with pytest.raises(DataError) as info:
        load_booookscore_annotations(path)
    assert f"{path}#bad.epub" in str(info.value) and needle in str(info.value)


def test_human_booookscore_and_paper_counting(tmp_path: Path) -> None:
    rec = book(
        singles=[single("s1", "the war.\n\nTom was"), single("s2", "Mara repairs the lamp.")]
    )
    [sample] = load_booookscore_annotations(write(tmp_path, {"b": rec})).samples
    # Flags [0, 1, 1, 0, 1]: three flagged sentences, two runs of them.
    assert human_booookscore(sample) == pytest.approx(2 / 5)
    assert human_booookscore(sample, paper_counting=True) == pytest.approx(3 / 5)
    clean = load_booookscore_annotations(write(tmp_path, {"b": book()})).samples[0]
    assert human_booookscore(clean) == 1.0


# Sentences that never split inside and never contain each other.
_WORDS = st.sampled_from(["ships", "lamps", "tides", "gulls", "ropes", "keels", "masts"])
_SENTENCE = st.lists(_WORDS, min_size=1, max_size=4).map(lambda w: "A " + " ".join(w) + ".")


@given(st.lists(_SENTENCE, min_size=1, max_size=6, unique=True), st.data())
def test_span_mapping_invariants(sentences: list[str], data: st.DataObject) -> None:
    text = " ".join(sentences)
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == sentences
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    piece = text[start:end]
    found = locate_span(text, piece)
    if not piece.strip():
        assert found is None
        return
    assert found is not None
    a, b = found
    assert text[a:b] == piece.strip()  # an exact substring is found exactly
    hit = overlapping_sentences(spans, a, b)
    assert hit and hit == list(range(hit[0], hit[-1] + 1))  # at least one, contiguous
    # With its case and whitespace changed, the fallback still finds it.
    loose = locate_span(text, "  " + piece.strip().upper().replace(" ", "\n "))
    assert loose is not None and overlapping_sentences(spans, *loose)
    # A whole sentence maps to itself (sentences are distinct and none holds another).
    i = data.draw(st.integers(0, len(sentences) - 1))
    whole = locate_span(text, sentences[i])
    assert whole is not None and overlapping_sentences(spans, *whole) == [i]


def test_shared_booookscore_file(shared_data: Path) -> None:
    path = shared_data / "human_labels" / "booookscore" / "summary-gpt4-4096-hier.json"
    labels = load_booookscore_annotations(path)
    assert len(labels.samples) == 98
    assert [s.reason for s in labels.skipped] == [FEW_SHOT_REASON, FEW_SHOT_REASON]
    metas = [s.metadata for s in labels.samples if s.metadata is not None]
    sentences = sum(len(m["summary_sentences"]) for m in metas)
    flagged = sum(sum(m["flags"]["annotators"]) for m in metas)
    # NLTK's sentences, as the judge is asked about them (3,335 with the rules of before).
    assert (sentences, flagged) == (3336, 354)
    # Pooled over sentences, 1 - 354/3336 = 0.894: the paper's human score of 89.4.
    assert 1 - flagged / sentences == pytest.approx(0.894, abs=5e-4)
    mean = sum(human_booookscore(s) for s in labels.samples) / len(labels.samples)
    assert mean == pytest.approx(0.892, abs=5e-4)
    assert all(m["system"] == "gpt4-4096-hier" for m in metas)
    kept = load_booookscore_annotations(path, exclude_books=(), on_missing_span="error")
    assert len(kept.samples) == 100 and kept.skipped == []
