"""Long-document reading tasks (QuALITY, NarrativeQA, QMSum): one entry point and the fixtures.

The loaders live in :mod:`~longform_evals.data.quality`, :mod:`~longform_evals.data.narrativeqa`
and :mod:`~longform_evals.data.qmsum`; the sample schema they share is described in
:mod:`~longform_evals.data.reading_samples`. The small fixtures shipped in ``data/reading/``
(written for this project, see its README) are each in their dataset's own local format.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import Sample

from longform_evals.data.narrativeqa import load_narrativeqa
from longform_evals.data.qmsum import load_qmsum
from longform_evals.data.quality import load_quality

__all__ = ["READING_DATASETS", "ReadingDataset", "load_reading", "reading_fixture"]

ReadingDataset = Literal["quality", "narrativeqa", "qmsum"]
"""Names of the reading datasets, as in ``metadata["dataset"]``."""

READING_DATASETS: tuple[ReadingDataset, ...] = ("quality", "narrativeqa", "qmsum")


def _check_dataset(dataset: str) -> None:
    if dataset not in READING_DATASETS:
        raise ValueError(f"unknown reading dataset {dataset!r}; expected one of {READING_DATASETS}")


def reading_fixture(dataset: ReadingDataset) -> Path:
    """Path of the bundled fixture of ``dataset`` (``data/reading/<dataset>_fixture.jsonl``).

    Raises:
        ValueError: If ``dataset`` is unknown.
    """
    _check_dataset(dataset)
    folder = resources.files("longform_evals.data").joinpath("reading")
    return Path(str(folder.joinpath(f"{dataset}_fixture.jsonl")))


def load_reading(
    dataset: ReadingDataset, source: str | Path | None = None, **filters: Any
) -> list[Sample]:
    """Load a reading dataset from a local source with that dataset's loader.

    Args:
        dataset: ``"quality"``, ``"narrativeqa"`` or ``"qmsum"``.
        source: The local file or folder; the bundled fixture when None.
        **filters: Passed to the loader: ``hard_only`` (QuALITY), ``kind`` (NarrativeQA),
            ``query_types`` (QMSum).

    Returns:
        The samples.

    Raises:
        ValueError: If ``dataset`` is unknown or a filter value is invalid.
        TypeError: If a filter does not belong to the dataset's loader.
        DataError: On missing or malformed data.
    """
    _check_dataset(dataset)
    path = Path(source) if source is not None else reading_fixture(dataset)
    if dataset == "quality":
        return load_quality(path, **filters)
    if dataset == "narrativeqa":
        return load_narrativeqa(path, **filters)
    return load_qmsum(path, **filters)
