"""LongSciVerify: reviewer CSVs and articles in the published shape, conventions, shared files."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.labels.longsciverify import (
    SYSTEM_COLUMNS,
    load_longsciverify,
    longsciverify_sentences,
    match_article_id,
)
from longform_evals.data.labels.schema import METADATA_KEYS

ARTICLES = [
    {
        "article_id": "0806.4325",
        "article_text": ["the lattice is stable .", "we compute its phases ."],
        "abstract_text": ["<S> a lattice . </S>"],
        "labels": None,
        "section_names": ["introduction"],
        "sections": [["the lattice is stable ."]],
    },
    {
        "article_id": "astro-ph0210644",
        "article_text": ["lensing is common .", "we count the lenses ."],
        "abstract_text": ["<S> lenses . </S>"],
        "labels": None,
        "section_names": ["introduction"],
        "sections": [["lensing is common ."]],
    },
]
SUMMARIES = {
    "gencomparesumabs": "the lattice is stable. we compute phases. the phases differ. more text.",
    "dancersum": "we study a lattice . it is stable . it has phases .",
    "section_conditional": (
        "introduction:    the lattice is stable .\n\n methods:    we heat it .\n\n"
        " results:    it melts ."
    ),
}
TWO_SENTENCES = "introduction:    the lattice is stable .\n\n results:    it melts ."


def row(csv_id: str, ratings: dict[str, str] | None = None, **cells: str) -> dict[str, str]:
    out = {"id": csv_id, **SUMMARIES}
    for k in (1, 2, 3):
        out |= {f"model_{k}_coherence": str(k), f"model_{k}_fluency": str(4 - k)}
        out |= {f"model_{k}_sent_{j}_factuality": "1" for j in (1, 2, 3)}
    out |= ratings or {}
    out |= cells
    return out


def csv_text(rows: list[dict[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_set(
    folder: Path,
    reviewers: list[list[dict[str, str]]] | None = None,
    articles: list[dict[str, Any]] | None = None,
) -> Path:
    folder.mkdir(exist_ok=True)
    default = [row("806.4325"), row("astro-ph0210644 ")]
    for n, rows in enumerate(reviewers or [default, default, default], start=1):
        data = b"\xef\xbb\xbf" + csv_text(rows).encode("utf-8")
        (folder / f"arxiv_reviewer_{n}.csv").write_bytes(data)
    (folder / "arxiv_test.json").write_text(json.dumps(articles or ARTICLES), encoding="utf-8")
    return folder


def by_id(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        str(s.id): s.metadata for s in load_longsciverify(folder).samples if s.metadata is not None
    }


def test_schema_and_conventions(tmp_path: Path) -> None:
    ratings = {"model_1_sent_1_factuality": "0", "model_1_sent_3_factuality": "1"}
    first = [row("806.4325", ratings), row("astro-ph0210644 ")]
    folder = write_set(tmp_path / "lsv", [first, [row("806.4325"), row("astro-ph0210644")]])
    labels = load_longsciverify(folder)
    assert (labels.kind, labels.format) == ("faithfulness", "longsciverify")
    assert labels.annotators == ["reviewer_1", "reviewer_2"] and labels.skipped == []
    assert [s.id for s in labels.samples][:3] == [
        f"longsciverify/0806.4325/{system}" for system in SYSTEM_COLUMNS
    ]
    meta = by_id(folder)["longsciverify/0806.4325/gencomparesumabs"]
    assert tuple(meta) == METADATA_KEYS
    assert meta["summary_sentences"] == [
        "the lattice is stable.",
        "we compute phases.",
        "the phases differ.",
        "more text.",
    ]
    # 1 = factual in the files; flags are 1 = unfaithful; sentence 4 is not rated.
    assert meta["flags"] == {"reviewer_1": [1, 0, 0, None], "reviewer_2": [0, 0, 0, None]}
    assert meta["unit"] == "sentence" and meta["group"] == "0806.4325"
    assert meta["system"] == "gencomparesumabs" and meta["summary_flags"] == {}
    assert meta["document"] == "the lattice is stable .\nwe compute its phases ."
    assert meta["human_scores"] == {
        "reviewer_1/coherence_rank": 1.0,
        "reviewer_1/fluency_rank": 3.0,
        "reviewer_2/coherence_rank": 1.0,
        "reviewer_2/fluency_rank": 3.0,
    }
    assert meta["unit_types"] == [[]] * 4 and meta["unit_notes"] == [[]] * 4
    assert meta["source"] == f"{folder / 'arxiv_reviewer_1.csv'}:2"


def test_section_summaries_split_per_line(tmp_path: Path) -> None:
    meta = by_id(write_set(tmp_path / "lsv"))["longsciverify/0806.4325/section_conditional"]
    assert meta["summary_sentences"] == [
        "introduction:    the lattice is stable .",
        "methods:    we heat it .",
        "results:    it melts .",
    ]
    assert longsciverify_sentences("brans - klein ( bkt ) . we show it ! ok ? yes") == [
        "brans - klein ( bkt ) .",
        "we show it !",
        "ok ?",
        "yes",
    ]


@pytest.mark.fault("agreement_inputs", "counted")
@pytest.mark.parametrize("wordless", ["...", " . . ", "\u2014"])
def test_a_summary_without_words_is_counted_not_judged(tmp_path: Path, wordless: str) -> None:
    """Before: judge_agreement with kind=faithfulness raised on such a summary."""
    rows = [row("806.4325", dancersum=wordless), row("astro-ph0210644")]
    folder = write_set(tmp_path / "lsv", [rows, rows, rows])
    labels = load_longsciverify(folder)
    skipped = [s for s in labels.skipped if "summary without words" in s.reason]
    assert len(skipped) == 1 and "column dancersum" in skipped[0].reason
    ids = {str(s.id) for s in labels.samples}
    assert "longsciverify/0806.4325/dancersum" not in ids
    assert "longsciverify/0806.4325/gencomparesumabs" in ids


def test_rating_beyond_the_last_sentence_is_dropped_and_counted(tmp_path: Path) -> None:
    rows = [row("806.4325", section_conditional=TWO_SENTENCES), row("astro-ph0210644")]
    folder = write_set(tmp_path / "lsv", [rows, rows, rows])
    labels = load_longsciverify(folder)
    # The section summary has two sentences, but every reviewer rated a third one.
    dropped = [s for s in labels.skipped if "rating dropped" in s.reason]
    assert len(dropped) == 3  # one per reviewer
    assert dropped[0].where == f"{folder / 'arxiv_reviewer_1.csv'}:2 (806.4325)"
    assert "model_3_sent_3_factuality rates sentence 3" in dropped[0].reason
    meta = by_id(folder)["longsciverify/0806.4325/section_conditional"]
    assert meta["flags"]["reviewer_1"] == [0, 0]


def test_empty_cells_are_none_and_listed(tmp_path: Path) -> None:
    rows = [row("806.4325", {"model_2_sent_2_factuality": "", "model_1_fluency": ""})]
    folder = write_set(tmp_path / "lsv", [rows], ARTICLES[:1])
    labels = load_longsciverify(folder)
    empty = [s for s in labels.skipped if s.reason.startswith("empty cell")]
    where = f"{folder / 'arxiv_reviewer_1.csv'}:2 (806.4325)"
    assert [(s.where, s.reason) for s in empty] == [
        (where, "empty cell model_1_fluency: not rated"),
        (where, "empty cell model_2_sent_2_factuality: not rated"),
    ]
    metas = by_id(folder)
    assert metas["longsciverify/0806.4325/dancersum"]["flags"]["reviewer_1"] == [0, None, 0]
    assert (
        "reviewer_1/fluency_rank"
        not in metas["longsciverify/0806.4325/gencomparesumabs"]["human_scores"]
    )


def test_a_file_loads_its_subset_from_its_folder(tmp_path: Path) -> None:
    folder = write_set(tmp_path / "lsv")
    for name in ("arxiv_reviewer_2.csv", "arxiv_test.json"):
        assert len(load_longsciverify(folder / name).samples) == 6
    with pytest.raises(DataError, match="no pubmed_reviewer"):
        load_longsciverify(folder, subset="pubmed")


def test_ids_are_matched_numerically_only_when_needed() -> None:
    ids = ["0806.4325", "1007.1070", "astro-ph0210644"]
    assert match_article_id("806.4325", ids) == ["0806.4325"]
    assert match_article_id("1007.107", ids) == ["1007.1070"]
    assert match_article_id(" astro-ph0210644 ", ids) == ["astro-ph0210644"]
    assert match_article_id("astro-ph021064", ids) == []
    assert match_article_id("1007.10700", ["1007.107", "1007.1070"]) == ["1007.107", "1007.1070"]


@pytest.mark.parametrize(
    ("cells", "needle"),
    [
        ({"model_1_sent_1_factuality": "2"}, "model_1_sent_1_factuality = '2', expected 0, 1"),
        ({"model_1_sent_1_factuality": "yes"}, "expected 0, 1 or empty"),
        ({"model_3_coherence": "4"}, "model_3_coherence = '4', expected a rank 1..3"),
        ({"id": "9999.0001"}, "id '9999.0001' matches no article of arxiv_test.json"),
        ({"id": " "}, "empty 'id'"),
    ],
)
def test_bad_cells_name_file_and_line(tmp_path: Path, cells: dict[str, str], needle: str) -> None:
    folder = write_set(tmp_path / "lsv", [[row("806.4325"), row("astro-ph0210644", cells)]])
    with pytest.raises(DataError) as info:
        load_longsciverify(folder)
    # The second row starts after the header and the first row's lines (cells hold newlines).
    line = csv_text([row("806.4325")]).count("\n") + 1
    assert re.search(rf"arxiv_reviewer_1\.csv:{line}\b", str(info.value))
    assert needle in str(info.value)


def test_missing_columns_and_missing_articles_file(tmp_path: Path) -> None:
    folder = write_set(tmp_path / "lsv")
    path = folder / "arxiv_reviewer_1.csv"
    path.write_text("id,gencomparesumabs\n806.4325,s.\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"reviewer_1\.csv: not a LongSciVerify reviewer file"):
        load_longsciverify(folder)
    folder = write_set(tmp_path / "lsv2")
    (folder / "arxiv_test.json").unlink()
    with pytest.raises(DataError, match=r"arxiv_test\.json: no such file"):
        load_longsciverify(folder)


def test_shared_longsciverify(shared_data: Path) -> None:
    folder = shared_data / "human_labels" / "longsciverify"
    labels = load_longsciverify(folder)
    assert len(labels.samples) == 45
    assert labels.annotators == ["reviewer_1", "reviewer_2", "reviewer_3"]
    # Two empty cells, the same in each reviewer's file; no rating beyond a summary's end.
    assert len(labels.skipped) == 6
    assert all(s.reason.startswith("empty cell model_") for s in labels.skipped)
    metas = [s.metadata for s in labels.samples if s.metadata is not None]
    unfaithful = {}
    for reviewer in labels.annotators:
        rated = [v for m in metas for v in m["flags"][reviewer] if v is not None]
        assert len(rated) == 133
        unfaithful[reviewer] = sum(rated)
    assert unfaithful == {"reviewer_1": 67, "reviewer_2": 94, "reviewer_3": 89}
    groups = {m["group"] for m in metas}
    assert {"0806.4325", "1007.1070", "0711.2299"} <= groups and len(groups) == 15
    assert all(m["document"] and len(m["human_scores"]) == 6 for m in metas)


def test_shared_articles_chunk_along_their_own_sentences(shared_data: Path) -> None:
    """The articles' own sentences, one per line and read line by line, keep the judge's
    `words:400` units near 400 words (joined with spaces, with the rule-based splitter of
    before, 64 of 231 ran over 400 and one to 1,443). Only a single sentence longer than the
    limit may exceed it."""
    from longform_evals.text.documents import chunk_documents

    labels = load_longsciverify(shared_data / "human_labels" / "longsciverify")
    documents = {m["group"]: m["document"] for s in labels.samples if (m := s.metadata)}
    for document in documents.values():
        assert len(document.splitlines()) > 20  # the article's sentences, one per line
        longest_line = max(len(line.split()) for line in document.splitlines())
        for chunk in chunk_documents([document], "words:400"):
            assert len(chunk.text.split()) <= max(400, longest_line)
