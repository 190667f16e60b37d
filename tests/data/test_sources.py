"""Pinned revisions of the published datasets (`data/sources.py`): every downloading loader
reads the pinned revision unless told another, every task that reads a published copy takes a
`revision` argument and records what it read in the log. `datasets.load_dataset` and the
LongFormFact download are replaced by fakes that record what they were asked: no network."""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model

from longform_evals.data import longformfact as longformfact_data
from longform_evals.data.booksum import load_booksum_complete_hf, load_booksum_hf
from longform_evals.data.longformfact import LoadReport
from longform_evals.data.narrativeqa import load_narrativeqa_hf
from longform_evals.data.quality import load_quality_hf
from longform_evals.data.sources import (
    DATA_SOURCE_KEY,
    DEFAULT_BRANCH,
    PINS,
    Pin,
    Published,
    content_sha256,
    data_source,
    local_source,
    pinned_revision,
    placeholder_pins,
    resolve_revision,
)
from longform_evals.data.squality import bundled_squality_fixture, load_squality_hf
from longform_evals.tasks import longformfact as longformfact_task
from longform_evals.tasks.longformfact import longformfact
from longform_evals.tasks.narrative import booksum, squality
from longform_evals.tasks.reading import narrativeqa, qmsum, quality

SRC = Path(__file__).resolve().parents[2] / "src" / "longform_evals"
COMMIT = "0123456789abcdef0123456789abcdef01234567"

# One valid row per published layout (fields the loaders do not read are left out).
QUALITY_ROW = {
    "article": "The ferry leaves at dawn. Ansel sells the tickets from a green hut by the pier.",
    "question": "Who sells the tickets?",
    "options": ["Ansel", "The captain", "Nobody", "A clerk"],
    "answer": 0,
    "hard": False,
}
NARRATIVEQA_ROW = {
    "document": {
        "id": "b1",
        "kind": "gutenberg",
        "text": "The miller kept the mill by the river for forty years.",
        "summary": {"text": "A miller keeps a mill.", "title": "The Mill"},
    },
    "question": {"text": "Who kept the mill?"},
    "answers": [{"text": "The miller."}, {"text": "A miller."}],
}
BOOKSUM_ROW = {
    "book_id": "Mill.chapter 1",
    "chapter": "The mill stood still.",
    "summary_text": "S.",
}
COMPLETE_ROW = {"bid": "mill", "text": "The mill stood still.", "summary": ["The mill stops."]}


def _squality_rows() -> list[dict[str, Any]]:
    lines = bundled_squality_fixture().read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


Call = tuple[tuple[Any, ...], str, str]


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Call]]:
    """A `datasets` module whose `load_dataset` records (positional args, split, revision) and
    answers with a valid row of the dataset asked for."""
    calls: list[Call] = []
    rows: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "emozilla/quality": lambda: [QUALITY_ROW],
        "deepmind/narrativeqa": lambda: [NARRATIVEQA_ROW],
        "kmfoda/booksum": lambda: [BOOKSUM_ROW],
        "ubaada/booksum-complete-cleaned": lambda: [COMPLETE_ROW],
        "pszemraj/SQuALITY-v1.3": _squality_rows,
    }

    def load_dataset(*args: Any, split: str, revision: str) -> list[dict[str, Any]]:
        calls.append((args, split, revision))
        return rows[args[0]]()

    fake = types.ModuleType("datasets")
    fake.load_dataset = load_dataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    yield calls


# --- the table ---


def _dataset_constants() -> dict[str, str]:
    """Every `*_HF_DATASET` / `*_REPOSITORY` string constant of the data modules."""
    found: dict[str, str] = {}
    for path in sorted((SRC / "data").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.endswith(
                        ("_HF_DATASET", "_REPOSITORY")
                    ):
                        found[f"{path.stem}.{target.id}"] = node.value.value
    return found


def test_every_published_dataset_the_loaders_name_is_pinned() -> None:
    constants = _dataset_constants()
    assert len(constants) >= 6, constants
    missing = {name: value for name, value in constants.items() if value not in PINS}
    assert not missing, f"add these to PINS in data/sources.py: {missing}"
    assert "tasksource/QuALITY" in PINS  # the other QuALITY layout load_quality_hf reads


def test_a_pin_is_a_commit_only_when_it_is_a_full_hash() -> None:
    assert Pin(COMMIT).is_commit
    assert not Pin(DEFAULT_BRANCH).is_commit
    assert not Pin(COMMIT[:12]).is_commit and not Pin(COMMIT.upper()).is_commit


def test_placeholders_are_the_pins_without_a_commit() -> None:
    # Every pin is a branch name until someone online records the hashes (data/sources.py).
    assert placeholder_pins() == [d for d, pin in PINS.items() if not pin.is_commit]
    assert set(placeholder_pins()) == set(PINS)


def test_revisions_resolve_to_the_pin_unless_given() -> None:
    assert resolve_revision("emozilla/quality", None) == PINS["emozilla/quality"].revision
    assert resolve_revision("emozilla/quality", COMMIT) == COMMIT
    assert pinned_revision("someone/else") == DEFAULT_BRANCH  # a dataset the table lacks
    with pytest.raises(ValueError, match="must not be blank"):
        resolve_revision("emozilla/quality", " ")


def test_local_data_refuses_a_revision_it_would_not_use() -> None:
    published = Published("emozilla/quality", "validation")
    missing = {"path": "q.jsonl", "name": "q.jsonl"}  # nothing there: nothing hashed
    assert data_source("q.jsonl", published, published.pin.revision) == missing
    with pytest.raises(ValueError, match="applies to the published emozilla/quality only"):
        data_source("q.jsonl", published, COMMIT)
    assert Published("someone/else").pin == Pin(DEFAULT_BRANCH)


# --- the loaders ---

LOADERS: dict[str, tuple[Callable[..., list[Sample]], tuple[Any, ...], str]] = {
    "quality": (load_quality_hf, ("emozilla/quality",), "validation"),
    "narrativeqa": (load_narrativeqa_hf, ("deepmind/narrativeqa",), "test"),
    "booksum": (load_booksum_hf, ("kmfoda/booksum",), "test"),
    "booksum_complete": (
        load_booksum_complete_hf,
        ("ubaada/booksum-complete-cleaned", "chapters"),
        "test",
    ),
    "squality": (load_squality_hf, ("pszemraj/SQuALITY-v1.3",), "validation"),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_each_hub_loader_reads_the_pinned_revision_or_the_one_given(
    name: str, fake_hub: list[Call]
) -> None:
    load, args, split = LOADERS[name]
    assert load()
    assert load(revision=COMMIT)
    assert fake_hub == [(args, split, pinned_revision(args[0])), (args, split, COMMIT)]


def test_longformfact_downloads_the_revision_into_its_own_folder(tmp_path: Path) -> None:
    published = tmp_path / "published"
    for revision in (DEFAULT_BRANCH, "v2"):
        (published / revision).mkdir(parents=True)
        record = {
            "documents": ["The mill stood by the river."],
            "summary": f"The mill stood by the river ({revision}).",
            "faithfulness": 1,
        }
        (published / revision / "qmsum.jsonl").write_text(
            json.dumps(record) + "\n", encoding="utf-8"
        )
    template = published.as_uri() + "/{revision}/{subset}.jsonl"
    cache = tmp_path / "cache"
    load = longformfact_data.load_longformfact_remote
    [pinned] = load(["qmsum"], cache, url_template=template)
    [other] = load(["qmsum"], cache, url_template=template, revision="v2")
    assert pinned.metadata and pinned.metadata["summary"].endswith("(main).")
    assert other.metadata and other.metadata["summary"].endswith("(v2).")
    assert (cache / "main" / "qmsum.jsonl").is_file() and (cache / "v2" / "qmsum.jsonl").is_file()


# --- the tasks ---

TASKS: dict[str, tuple[Callable[..., Task], str, str]] = {
    "quality": (quality, "emozilla/quality", "validation"),
    "narrativeqa": (narrativeqa, "deepmind/narrativeqa", "test"),
    "booksum": (booksum, "kmfoda/booksum", "test"),
    "squality": (squality, "pszemraj/SQuALITY-v1.3", "validation"),
}


@pytest.mark.parametrize("name", sorted(TASKS))
@pytest.mark.parametrize("revision", [None, COMMIT])
def test_a_hub_task_passes_its_revision_down_and_records_it(
    name: str, revision: str | None, fake_hub: list[Call]
) -> None:
    factory, dataset_id, split = TASKS[name]
    task = factory() if revision is None else factory(revision=revision)
    read = revision or pinned_revision(dataset_id)
    assert [call[2] for call in fake_hub] == [read]
    assert task.metadata == {
        DATA_SOURCE_KEY: {
            "dataset": dataset_id,
            "revision": read,
            "revision_is_commit": revision is not None,
            "split": split,
        }
    }


def test_longformfact_task_passes_its_revision_down_and_records_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str | None] = []

    def remote(
        subsets: Any, on_mismatch: str, revision: str | None
    ) -> tuple[list[Sample], LoadReport]:
        asked.append(revision)
        sample = Sample(id="r", input="?", metadata={"summary": "A mill.", "documents": ["x"]})
        return [sample], LoadReport(loaded={"qmsum": 1})

    monkeypatch.setattr(longformfact_task, "load_longformfact_remote_with_report", remote)
    task = longformfact(revision=COMMIT)
    assert asked == [COMMIT]
    assert task.metadata == {
        DATA_SOURCE_KEY: {
            "dataset": "meetdavidwan/longformfact",
            "revision": COMMIT,
            "revision_is_commit": True,
        },
        "records": {
            "loaded": 1,
            "loaded_by_subset": {"qmsum": 1},
            "skipped": 0,
            "skipped_records": [],
        },
    }


def test_a_task_on_local_data_records_its_path_and_digest() -> None:
    fixture = SRC / "data" / "reading" / "qmsum_fixture.jsonl"
    recorded = {
        "path": str(fixture),
        "name": "qmsum_fixture.jsonl",
        "sha256": hashlib.sha256(fixture.read_bytes()).hexdigest(),
    }
    assert qmsum(data=str(fixture)).metadata == {DATA_SOURCE_KEY: recorded}
    with pytest.raises(ValueError, match="not used with local data"):
        quality(data=str(SRC / "data" / "reading" / "quality_fixture.jsonl"), revision=COMMIT)


def test_the_revision_read_is_in_the_log(fake_hub: list[Call], tmp_path: Path) -> None:
    model = get_model("scripted/revision", rules=[{"default": "Answer: (A)"}], memoize=False)
    [log] = inspect_eval(
        quality(strategy="full", revision=COMMIT, cache=False),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.eval.metadata is not None
    assert log.eval.metadata[DATA_SOURCE_KEY]["revision"] == COMMIT
    assert log.eval.task_args["revision"] == COMMIT


def test_local_data_is_named_by_its_bytes(tmp_path: Path) -> None:
    file = tmp_path / "items.jsonl"
    file.write_bytes(b'{"id": 1}\n')
    recorded = local_source(str(file))
    assert recorded["name"] == "items.jsonl"
    assert recorded["sha256"] == hashlib.sha256(b'{"id": 1}\n').hexdigest()
    folder = tmp_path / "books"
    (folder / "a").mkdir(parents=True)
    (folder / "a" / "one.txt").write_text("one", encoding="utf-8")
    (folder / "two.txt").write_text("two", encoding="utf-8")
    before = content_sha256(str(folder))
    (folder / "two.txt").write_text("two!", encoding="utf-8")  # a byte changes: another digest
    assert before is not None and content_sha256(str(folder)) not in (None, before)
    (folder / "two.txt").write_text("two", encoding="utf-8")
    assert content_sha256(str(folder)) == before  # the same bytes: the same digest
