"""The published datasets the suite downloads, and the revision of each it reads: one table.

A dataset on the Hugging Face Hub (or a file in a GitHub repository) changes under its name
when its owner pushes; a number measured on it can only be repeated on the same revision. Every
loader that downloads asks :func:`resolve_revision` which revision to read, so the pin is said
once, here; a task that reads a published copy takes a ``revision`` argument defaulting to the
pin, and records what it read in its metadata (:func:`hub_source`, under
:data:`DATA_SOURCE_KEY`), which Inspect writes into the log's ``eval.metadata``.

Placeholders. A pin should be a commit hash (40 hex digits). The hashes of these datasets could
not be looked up when the table was written (no network), so **every pin below is the branch
name ``main``, a placeholder**: it reads whatever the branch holds on the day, exactly as a
loader without a pin did. :func:`placeholder_pins` lists them, and the descriptor
(``eval.yaml``) marks them. To pin one, replace its ``"main"`` with the commit hash shown on
the dataset's page (Hugging Face: "Files and versions", the latest commit; GitHub: the commit
of ``main``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Literal

__all__ = [
    "DATA_SOURCE_KEY",
    "DEFAULT_BRANCH",
    "PINS",
    "Pin",
    "Published",
    "content_sha256",
    "data_source",
    "hub_source",
    "local_source",
    "pinned_revision",
    "placeholder_pins",
    "resolve_revision",
]

DATA_SOURCE_KEY = "data_source"
"""The task metadata key saying where a task's samples came from (and at which revision)."""

DEFAULT_BRANCH = "main"
"""The revision read for a dataset the table does not know (the Hub's and GitHub's default)."""

_COMMIT = re.compile(r"[0-9a-f]{40}")

Host = Literal["huggingface", "github"]


@dataclass(frozen=True)
class Pin:
    """The revision the suite reads of one published dataset.

    Attributes:
        revision: A commit hash, or a branch or tag name standing in for one.
        host: Where the dataset lives: the Hugging Face Hub, or a GitHub repository.
    """

    revision: str
    host: Host = "huggingface"

    @property
    def is_commit(self) -> bool:
        """Whether the revision is a commit hash (a branch name moves; a commit does not)."""
        return bool(_COMMIT.fullmatch(self.revision))


PINS: dict[str, Pin] = {
    "deepmind/narrativeqa": Pin(DEFAULT_BRANCH),
    "emozilla/quality": Pin(DEFAULT_BRANCH),
    "tasksource/QuALITY": Pin(DEFAULT_BRANCH),
    "kmfoda/booksum": Pin(DEFAULT_BRANCH),
    "ubaada/booksum-complete-cleaned": Pin(DEFAULT_BRANCH),
    "pszemraj/SQuALITY-v1.3": Pin(DEFAULT_BRANCH),
    "meetdavidwan/longformfact": Pin(DEFAULT_BRANCH, host="github"),
}
"""Dataset id (Hub id, or GitHub ``owner/repository``) -> the revision read. Every entry is a
placeholder at present (see the module docstring)."""


@dataclass(frozen=True)
class Published:
    """The published copy a task reads when it is given no data.

    Attributes:
        dataset: The dataset id (a key of :data:`PINS`).
        split: The split read by default.
        config: The configuration read, where the dataset has several.
    """

    dataset: str
    split: str | None = None
    config: str | None = None

    @property
    def pin(self) -> Pin:
        """Its pinned revision (:data:`DEFAULT_BRANCH` for a dataset the table lacks)."""
        return PINS.get(self.dataset, Pin(DEFAULT_BRANCH))


def pinned_revision(dataset_id: str) -> str:
    """The revision the table pins for ``dataset_id``; :data:`DEFAULT_BRANCH` when it has none
    (a dataset the user names, in the layout of one the suite knows)."""
    pin = PINS.get(dataset_id)
    return pin.revision if pin is not None else DEFAULT_BRANCH


def resolve_revision(dataset_id: str, revision: str | None) -> str:
    """``revision`` when given, else the pinned one.

    Raises:
        ValueError: If ``revision`` is blank.
    """
    if revision is None:
        return pinned_revision(dataset_id)
    if not revision.strip():
        raise ValueError(f"revision of {dataset_id} must not be blank")
    return revision


def placeholder_pins() -> list[str]:
    """The dataset ids whose pin is not a commit hash yet."""
    return [dataset_id for dataset_id, pin in PINS.items() if not pin.is_commit]


def hub_source(
    dataset_id: str, revision: str | None, split: str | None = None, config: str | None = None
) -> dict[str, Any]:
    """What a task records of a published copy it read: id, revision (and whether it is a
    commit, which alone makes the run repeatable), split and config."""
    read = resolve_revision(dataset_id, revision)
    source: dict[str, Any] = {
        "dataset": dataset_id,
        "revision": read,
        "revision_is_commit": Pin(read).is_commit,
    }
    if split is not None:
        source["split"] = split
    if config is not None:
        source["config"] = config
    return source


def local_source(path: str) -> dict[str, Any]:
    """What a task records of local data: the path it was given, the file or folder name, and
    the sha256 of its bytes (a folder's: of its files' names and digests, in name order), so a
    figure names exactly what it was measured on. Nothing is hashed where nothing is found
    (the loader then says what is wrong)."""
    source: dict[str, Any] = {"path": path, "name": PurePath(path).name}
    digest = content_sha256(path)
    if digest is not None:
        source["sha256"] = digest
    return source


def content_sha256(path: str | Path) -> str | None:
    """The sha256 of a file's bytes (as `sha256sum` prints it), or of a folder: the digest of
    one line `<relative path>\\0<file sha256>` per file, in path order, hidden files left out;
    None where ``path`` is neither."""
    root = Path(path)
    if root.is_file():
        return _file_sha256(root)
    if not root.is_dir():
        return None
    digest = hashlib.sha256()
    for file in sorted(root.rglob("*")):
        rel = file.relative_to(root)
        if file.is_file() and not any(part.startswith(".") for part in rel.parts):
            digest.update(f"{rel.as_posix()}\0{_file_sha256(file)}\n".encode())
    return digest.hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_source(
    data: str | None, published: Published, revision: str, split: str | None = None
) -> dict[str, Any]:
    """What a task reading ``data`` (else ``published`` at ``revision``) records of its
    source; ``split`` replaces the published copy's default split.

    A task's ``revision`` argument defaults to the pin, so a revision other than the pin was
    asked for; with local data it would be silently unused, and is refused instead.

    Raises:
        ValueError: If ``data`` is given with a revision other than the pinned one.
    """
    if data is None:
        chosen = split if split is not None else published.split
        return hub_source(published.dataset, revision, chosen, published.config)
    if revision != published.pin.revision:
        raise ValueError(
            f"revision={revision!r} applies to the published {published.dataset} only; "
            "it is not used with local data (drop one of data and revision)"
        )
    return local_source(data)
