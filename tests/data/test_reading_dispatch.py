"""The reading-data entry point and the contract of the bundled fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from longform_evals.data.reading import READING_DATASETS, load_reading, reading_fixture

SCHEMA_KEYS = {
    "dataset",
    "doc_id",
    "title",
    "document",
    "doc_kind",
    "doc_words",
    "doc_questions",
    "question",
    "references",
}
EXTRAS = {
    "quality": {"hard", "gold_index"},
    "narrativeqa": {"story_kind"},
    "qmsum": {"query_type", "relevant_text_span"},
}


@pytest.mark.parametrize("dataset", READING_DATASETS)
def test_fixtures_load_through_the_dispatcher(dataset: str) -> None:
    path = reading_fixture(dataset)  # type: ignore[arg-type]
    assert path.is_file() and path.parent.name == "reading"
    samples = load_reading(dataset)  # type: ignore[arg-type]
    assert samples
    assert [s.id for s in samples] == [s.id for s in load_reading(dataset, path)]  # type: ignore[arg-type]
    for sample in samples:
        assert sample.metadata is not None
        assert set(sample.metadata) == SCHEMA_KEYS | EXTRAS[dataset]
        assert sample.metadata["dataset"] == dataset


def test_filters_pass_through() -> None:
    assert len(load_reading("quality", hard_only=True)) == 2
    assert len(load_reading("narrativeqa", kind="movie")) == 2
    assert len(load_reading("qmsum", query_types=("specific",))) == 2
    with pytest.raises(TypeError):
        load_reading("qmsum", hard_only=True)


def test_unknown_dataset() -> None:
    with pytest.raises(ValueError, match="unknown reading dataset"):
        load_reading("squality")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown reading dataset"):
        reading_fixture("booksum")  # type: ignore[arg-type]


def test_fixture_folder_is_documented() -> None:
    readme = reading_fixture("quality").parent / "README.md"
    text = readme.read_text(encoding="utf-8")
    for dataset in READING_DATASETS:
        assert f"{dataset}_fixture.jsonl" in text


def test_fixture_sizes_match_their_contract() -> None:
    """Other tests rely on these shapes: keep them when editing the fixtures."""
    quality = [json.loads(line) for line in reading_fixture("quality").open(encoding="utf-8")]
    assert len(quality) == 2
    for article in quality:
        assert 400 <= len(article["article"].split()) <= 700
        assert len(article["article"].split("\n\n")) >= 4
        assert len(article["questions"]) == 3
        assert sum(q["difficult"] for q in article["questions"]) == 1
    qmsum = json.loads(reading_fixture("qmsum").read_text(encoding="utf-8"))
    assert len(qmsum["meeting_transcripts"]) == 40
    assert (len(qmsum["general_query_list"]), len(qmsum["specific_query_list"])) == (1, 2)


def test_package_data_ships_the_fixtures() -> None:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not running from a source checkout")
    text = pyproject.read_text(encoding="utf-8")
    assert '"data/**/*.jsonl"' in text and '"data/**/*.md"' in text
