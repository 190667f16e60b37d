"""The planted faithfulness set (`data/faithfulness/planted_support.jsonl`).

Multi-document clusters written for this project, each with a clean summary whose sentences
the documents support and six planted sentences that they do not (see the folder's README).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from longform_evals.data.files import check_file
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import DataError, jsonl_records, require_text
from longform_evals.data.reading_samples import require_mapping

PLANTED_KINDS: tuple[str, ...] = (
    "contradiction_number",
    "contradiction_entity",
    "contradiction_relation",
    "unsupported_addition",
    "unsupported_claim",
    "subtle",
)


@dataclass(frozen=True)
class PlantedSentence:
    kind: str
    replaces: int
    text: str
    note: str


@dataclass(frozen=True)
class PlantedCluster:
    id: str
    split: str
    genre: str
    title: str
    documents: list[str]
    sentences: list[str]
    supported_by: list[list[int]]
    planted: list[PlantedSentence]


def bundled_planted_support() -> Path:
    """Path of the packaged planted set."""
    return Path(
        str(resources.files("longform_evals.data").joinpath("faithfulness/planted_support.jsonl"))
    )


def load_planted_support(path: str | Path | None = None) -> list[PlantedCluster]:
    """Read the planted set (the packaged one by default).

    Every field has its type: texts are strings with words, indices whole numbers (not
    ``1.5``, ``true`` or ``Infinity``), kinds one of :data:`PLANTED_KINDS`.

    Raises:
        DataError: naming the file (missing, a folder, empty) or the line and field of a
            malformed record.
    """
    source = Path(path) if path is not None else bundled_planted_support()
    check_file(source, "planted-support JSONL file")
    ids = SampleIds()
    clusters = []
    for line, record in jsonl_records(source):
        cluster = _cluster(record, f"{source}:{line}")
        ids.add(cluster.id, f"{source}:{line}", "cluster id")
        clusters.append(cluster)
    if not clusters:
        raise DataError(f"{source} holds no planted-support records")
    return clusters


def _list(record: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = record.get(key)
    if not isinstance(value, list) or not value:
        raise DataError(f"{where}: field {key!r} must be a non-empty list, not {value!r}")
    return value


def _index(value: Any, where: str, size: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{where}: must be a whole number naming one of the {what}, not {value!r}")
    if not 0 <= value < size:
        raise DataError(f"{where}: {value} names no {what[:-1]} (there are {size}: 0..{size - 1})")
    return value


def _cluster(record: Mapping[str, Any], where: str) -> PlantedCluster:
    documents = [
        require_text({"document": d}, "document", f"{where}: documents[{i}]")
        for i, d in enumerate(_list(record, "documents", where))
    ]
    raw_sentences = [
        require_mapping(s, f"{where}: sentences[{i}]")
        for i, s in enumerate(_list(record, "sentences", where))
    ]
    sentences, supported_by = [], []
    for i, sentence in enumerate(raw_sentences):
        at = f"{where}: sentences[{i}]"
        sentences.append(require_text(sentence, "text", at))
        supported_by.append(
            [
                _index(d, f"{at}.supported_by[{j}]", len(documents), "documents")
                for j, d in enumerate(_list(sentence, "supported_by", at))
            ]
        )
    planted = []
    for i, raw in enumerate(_list(record, "planted", where)):
        at = f"{where}: planted[{i}]"
        item = require_mapping(raw, at)
        kind = require_text(item, "kind", at)
        if kind not in PLANTED_KINDS:
            raise DataError(f"{at}: kind {kind!r} is not one of {', '.join(PLANTED_KINDS)}")
        replaces = _index(item.get("replaces"), f"{at}.replaces", len(sentences), "sentences")
        planted.append(
            PlantedSentence(kind, replaces, require_text(item, "text", at), _note(item, at))
        )
    return PlantedCluster(
        id=require_text(record, "id", where, integers=True),
        split=require_text(record, "split", where),
        genre=require_text(record, "genre", where),
        title=require_text(record, "title", where),
        documents=documents,
        sentences=sentences,
        supported_by=supported_by,
        planted=planted,
    )


def _note(item: Mapping[str, Any], where: str) -> str:
    note = item.get("note", "")
    if not isinstance(note, str):
        raise DataError(f"{where}: field 'note' must be a string, not {note!r}")
    return note
