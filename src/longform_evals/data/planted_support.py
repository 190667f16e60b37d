"""The planted faithfulness set (`data/faithfulness/planted_support.jsonl`).

Multi-document clusters written for this project, each with a clean summary whose sentences
the documents support and six planted sentences that they do not (see the folder's README).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from longform_evals.data.jsonl import DataError, jsonl_records

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

    Raises:
        DataError: naming the line and field of a malformed record.
    """
    source = Path(path) if path is not None else bundled_planted_support()
    clusters = []
    for line, record in jsonl_records(source):
        where = f"{source}:{line}"
        try:
            sentences = [dict(s) for s in record["sentences"]]
            n = len(sentences)
            planted = [
                PlantedSentence(str(p["kind"]), int(p["replaces"]), str(p["text"]), str(p["note"]))
                for p in record["planted"]
            ]
            cluster = PlantedCluster(
                id=str(record["id"]),
                split=str(record["split"]),
                genre=str(record["genre"]),
                title=str(record["title"]),
                documents=[str(d) for d in record["documents"]],
                sentences=[str(s["text"]) for s in sentences],
                supported_by=[[int(i) for i in s["supported_by"]] for s in sentences],
                planted=planted,
            )
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(f"{where}: malformed planted-support record ({err!r})") from err
        bad = [p.replaces for p in planted if not 0 <= p.replaces < n]
        if bad:
            raise DataError(f"{where}: planted sentences replace missing sentences {bad}")
        n_docs = len(cluster.documents)
        absent = sorted({i for row in cluster.supported_by for i in row if not 0 <= i < n_docs})
        if absent:
            raise DataError(
                f"{where}: field 'supported_by' names documents {absent} "
                f"(there are {n_docs}: 0..{n_docs - 1})"
            )
        clusters.append(cluster)
    return clusters
