"""The checks every loader makes on the files and folders it is given, before reading them.

A path handed to a loader may be anything a file system holds: a missing name, a folder where
a file is expected (or a folder called ``chapter.txt`` inside a folder of books), a link that
points nowhere or at itself, a named pipe (opening one waits for a writer for ever), a device,
a file nobody may read, an empty file. Each is a :class:`DataError` naming the path and what
it is, decided with :func:`os.stat` before anything is opened, instead of a raw ``OSError``
from deep inside a loader, a hang, or a silent "0 records". Links that reach a file or folder
are followed as usual.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Literal

__all__ = [
    "DataError",
    "check_file",
    "check_folder",
    "csv_table",
    "folder_files",
    "folder_names",
    "open_binary",
    "read_bytes",
    "source_kind",
]


class DataError(ValueError):
    """A data file is missing, empty or malformed; the message names it."""


def _why_unreachable(path: Path, exc: OSError) -> str:
    """What a path that cannot be stat'ed is, in words."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link that loops (it never reaches a file or folder)"
    if exc.errno == errno.ENAMETOOLONG:
        return "a name too long for the file system"
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        if os.path.islink(path):
            return f"a broken symbolic link (its target {os.readlink(path)!r} does not exist)"
        return "not found (no such file or folder)"
    if isinstance(exc, PermissionError):
        return "cannot be reached (permission denied on a folder above it)"
    return f"cannot be read ({exc.strerror or exc})"


def _stat(path: Path, what: str) -> os.stat_result:
    try:
        return os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL character in the name
        why = _why_unreachable(path, exc) if isinstance(exc, OSError) else "not a valid name"
        raise DataError(f"{path}: {why}; expected a {what}") from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_file(path: str | Path, what: str = "data file", *, allow_empty: bool = False) -> Path:
    """``path`` if it is a regular file that can be read (and, unless ``allow_empty``, is not
    empty); links are followed.

    Raises:
        DataError: naming the path and what it is instead (missing, a broken or looping link,
            a folder, a named pipe, a socket or device, unreadable, empty) and what was wanted.
    """
    path = Path(path)
    info = _stat(path, what)
    if not stat.S_ISREG(info.st_mode):
        raise DataError(f"{path}: is {_kind(info.st_mode)}, not a file; expected a {what}")
    if not os.access(path, os.R_OK):
        raise DataError(f"{path}: cannot be read (permission denied)")
    if info.st_size == 0 and not allow_empty:
        raise DataError(f"{path}: file is empty; expected a {what}")
    return path


def check_folder(path: str | Path, what: str = "data folder") -> Path:
    """``path`` if it is a folder whose entries can be listed (links followed).

    Raises:
        DataError: naming the path and what it is instead.
    """
    path = Path(path)
    info = _stat(path, what)
    if not stat.S_ISDIR(info.st_mode):
        raise DataError(f"{path}: is {_kind(info.st_mode)}, not a folder; expected a {what}")
    if not os.access(path, os.R_OK | os.X_OK):
        raise DataError(f"{path}: folder cannot be read (permission denied)")
    return path


def source_kind(path: str | Path, what: str = "data") -> Literal["file", "folder"]:
    """Whether ``path`` is a readable regular file or a readable folder.

    Raises:
        DataError: for anything else (see :func:`check_file`), naming ``what`` was expected.
    """
    info = _stat(Path(path), what)
    if stat.S_ISDIR(info.st_mode):
        check_folder(path, what)
        return "folder"
    check_file(path, what)
    return "file"


def folder_names(folder: Path, what: str = "data folder") -> list[str]:
    """The names in ``folder`` (checked with :func:`check_folder`), sorted, dot files aside.

    Raises:
        DataError: If it is no folder, or listing it fails.
    """
    check_folder(folder, what)
    try:
        names = os.listdir(folder)
    except OSError as exc:
        raise DataError(f"{folder}: folder cannot be listed ({exc.strerror or exc})") from None
    return sorted(name for name in names if not name.startswith("."))


def folder_files(folder: Path, suffix: str, what: str, *, prefix: str = "") -> list[Path]:
    """The entries of ``folder`` whose names start with ``prefix`` and end in ``suffix`` (dot
    files aside), sorted by name, each checked with :func:`check_file`: an entry named like
    them that is no readable, non-empty file (a subfolder ``x.txt``, a broken link) is
    refused by name, not skipped.

    Raises:
        DataError: when the folder cannot be listed, an entry is not such a file, or there is
            none (``what`` names them: ``.jsonl files``).
    """
    files = [
        check_file(folder / name, what.removesuffix("s"))
        for name in folder_names(folder, f"folder of {what}")
        if name.startswith(prefix) and name.endswith(suffix)
    ]
    if not files:
        raise DataError(f"{folder}: folder holds no {what}")
    return files


def _read_failed(path: Path, exc: OSError) -> DataError:
    if isinstance(exc, PermissionError):
        return DataError(f"{path}: cannot be read (permission denied)")
    return DataError(f"{path}: cannot be read ({exc.strerror or exc})")


def read_bytes(path: Path, what: str = "data file", *, allow_empty: bool = False) -> bytes:
    """The bytes of the file ``path``, checked first with :func:`check_file`.

    Raises:
        DataError: If it is no readable file (or is empty), or reading it fails.
    """
    check_file(path, what, allow_empty=allow_empty)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _read_failed(path, exc) from None


@contextmanager
def open_binary(path: Path, what: str = "data file") -> Iterator[BinaryIO]:
    """The file ``path`` opened for reading bytes, checked first with :func:`check_file`.

    Raises:
        DataError: If it is no readable, non-empty file, or opening or reading it fails.
    """
    check_file(path, what)
    try:
        with open(path, "rb") as handle:
            yield handle
    except OSError as exc:
        raise _read_failed(path, exc) from None


def csv_table(
    text: str, path: Path, max_cell: int
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the rows (with their first line number) of a CSV text.

    Cells may hold up to ``max_cell`` characters (the csv module's own limit, 131,072, would
    refuse a long summary as "not valid CSV"). A header naming a column twice is refused:
    a row read into a mapping would keep the last cell of that name without a word.

    Raises:
        DataError: naming ``path`` and the line: invalid CSV, a cell over ``max_cell``
            characters, a column named twice.
    """
    previous = csv.field_size_limit()
    csv.field_size_limit(max(max_cell, 1))
    try:
        reader = csv.reader(io.StringIO(text))
        rows: list[tuple[int, list[str]]] = []
        header = [h.strip() for h in next(reader, [])]
        _check_header(header, path)
        last = reader.line_num
        for values in reader:
            rows.append((last + 1, values))
            last = reader.line_num
    except csv.Error as exc:
        line = reader.line_num
        if "field larger than field limit" in str(exc):
            raise DataError(
                f"{path}:{line}: a cell is longer than {max_cell:,} characters, the limit for "
                "one text (LONGFORM_MAX_TEXT_CHARS sets it)"
            ) from None
        raise DataError(f"{path}:{line}: not valid CSV ({exc})") from None
    finally:
        csv.field_size_limit(previous)
    return header, rows


def _check_header(header: list[str], path: Path) -> None:
    seen: set[str] = set()
    for column in header:
        if column in seen:
            raise DataError(
                f"{path}:1: column {column!r} is named twice in the header; a row would keep "
                "only one of its cells"
            )
        seen.add(column)
