"""Where logs live: a local folder or a folder of an object store (``s3://``, ``gs://``,
``az://``, ``file://``), the locations Inspect's log API takes.

Every command that reads or writes a log folder names it as a string and goes through here or
through Inspect's own functions (``list_eval_logs``, ``read_eval_log``), never through
``Path()``, which turns ``s3://bucket/runs`` into a local folder named ``s3:``. Files beside
the logs (the leaderboard's pages, a plan's claims and budget grants) are read and written with
fsspec, the library Inspect's log API uses for the same locations, with the same credentials
(for S3: the usual AWS variables, ``AWS_ENDPOINT_URL`` for a store other than AWS).
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

__all__ = [
    "StoreError",
    "check_readable",
    "check_writable",
    "check_writable_file",
    "create_exclusive",
    "exists",
    "is_below",
    "is_url",
    "join",
    "list_names",
    "local_form",
    "read_text",
    "relative_to",
    "remove",
    "resolve",
    "write_bytes",
    "write_text",
]


class StoreError(OSError):
    """A log location that cannot be reached, read or written; the message names it."""


def is_url(location: str) -> bool:
    """Whether ``location`` names a remote store (``scheme://...``), not a local path.

    ``file://`` URLs and Windows drive letters (``C:\\``) are local."""
    scheme = urlparse(location).scheme
    return len(scheme) > 1 and scheme != "file" and "://" in location


def resolve(location: str, base: Path | None = None) -> str:
    """``location`` made absolute: a store URL unchanged, a ``file://`` URL as its path, ``~``
    expanded, a relative path taken from ``base`` (the working directory when None).

    Raises:
        StoreError: For ``~name`` of an unknown user or a loop of symbolic links.
    """
    if is_url(location):
        stripped = location.rstrip("/")
        return stripped if not stripped.endswith(":") else location
    if location.startswith("file://"):
        parsed = urlparse(location)
        # file://~/x: the `~` lands in the host part
        location = parsed.netloc + parsed.path if parsed.netloc.startswith("~") else parsed.path
    try:
        path = Path(location).expanduser()
        if not path.is_absolute():
            path = (base or Path.cwd()) / path
        return str(path.resolve())
    except RuntimeError as e:  # `~nobody` (no such user) or a symbolic link loop
        raise StoreError(f"cannot resolve {location}: {e}") from e


def local_form(location: str) -> str:
    """``location`` with a ``file://`` URL (as Inspect lists local logs) turned into its path;
    other locations unchanged."""
    if location.startswith("file://"):
        return urlparse(location).path
    return location


def is_below(location: str, folder: str) -> bool:
    """Whether ``location`` is ``folder`` or inside it (``file://`` URLs and paths alike)."""
    inner, outer = local_form(location).rstrip("/"), local_form(folder).rstrip("/")
    return inner == outer or inner.startswith(outer + "/")


def join(location: str, *parts: str) -> str:
    """``location`` with ``parts`` appended (``/`` in a store, the OS separator locally)."""
    if is_url(location):
        return posixpath.join(location.rstrip("/"), *parts)
    return os.path.join(location, *parts)


def relative_to(location: str, folder: str) -> str:
    """The part of ``location`` below ``folder`` (with ``/``), or its last name when it is not
    below it."""
    inner, outer = local_form(location).rstrip("/"), local_form(folder).rstrip("/")
    if is_url(inner) != is_url(outer):
        return posixpath.basename(inner)
    if not is_url(inner):
        inner, outer = str(Path(inner).resolve()), str(Path(outer).resolve())
        inner, outer = inner.replace(os.sep, "/"), outer.replace(os.sep, "/")
    if inner.startswith(outer + "/"):
        return inner[len(outer) + 1 :]
    return posixpath.basename(inner)


def _fs(location: str) -> tuple[Any, str]:
    """The fsspec file system of ``location`` and the path within it."""
    import fsspec

    try:
        found: tuple[Any, str] = fsspec.core.url_to_fs(location)
        return found
    except (ImportError, ValueError) as e:
        # An unknown scheme, or one whose package is missing (s3fs, gcsfs, adlfs).
        raise StoreError(f"cannot open {location}: {_gist(e)}") from e


def _gist(e: BaseException) -> str:
    """One line of an error, short enough for a message."""
    text = " ".join(str(e).split()) or type(e).__name__
    return f"{type(e).__name__}: {text[:240]}"


def exists(location: str) -> bool:
    """Whether a file or folder is at ``location``."""
    fs, path = _fs(location)
    try:
        return bool(fs.exists(path))
    except FileNotFoundError:
        return False
    except Exception as e:  # credentials, network, permissions: say which location
        raise StoreError(f"cannot reach {location}: {_gist(e)}") from e


def list_names(location: str) -> list[str]:
    """The names directly inside the folder ``location`` (none when it does not exist)."""
    fs, path = _fs(location)
    try:
        entries = fs.ls(path, detail=False, refresh=True) if is_url(location) else fs.ls(path)
    except FileNotFoundError:
        return []
    except Exception as e:
        raise StoreError(f"cannot list {location}: {_gist(e)}") from e
    names = [posixpath.basename(str(e).rstrip("/")) for e in entries]
    return sorted(n for n in names if n)


_REPLACED_TRIES = 3
"""Reads of a store object that another process replaces while it is read (s3fs's
`FileExpired`, an `OSError` with `EBUSY`: the object changed between opening and reading)."""


def read_text(location: str) -> str | None:
    """The text of the file at ``location``; None when there is none. An object replaced
    while it was read (another process rewrote it whole: a claim's heartbeat) is read again,
    so the reader sees one whole version, the newer."""
    fs, path = _fs(location)
    for attempt in range(_REPLACED_TRIES):
        try:
            with fs.open(path, "rb") as f:
                data: bytes = f.read()
            return data.decode("utf-8")
        except FileNotFoundError:
            return None
        except IsADirectoryError as e:
            raise StoreError(f"{location} is a folder, not a file") from e
        except OSError as e:
            if e.errno != errno.EBUSY or attempt == _REPLACED_TRIES - 1:
                raise StoreError(f"cannot read {location}: {_gist(e)}") from e
            fs.invalidate_cache(path)
        except Exception as e:
            raise StoreError(f"cannot read {location}: {_gist(e)}") from e
    raise AssertionError("unreachable: the last try returns or raises")


def write_text(location: str, text: str) -> None:
    """Write ``text`` to ``location`` (:func:`write_bytes`)."""
    write_bytes(location, text.encode("utf-8"))


def write_bytes(location: str, data: bytes) -> None:
    """Write ``data`` to ``location``, replacing what is there (parent folders made). A
    reader never sees half a file: a store's object appears whole, a local file is written
    beside and renamed."""
    if not is_url(location):
        target = Path(location)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(data)
            os.replace(temporary, target)
        except OSError as e:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            blocked = next((p for p in target.parents if p.is_file()), None)
            if blocked is not None:
                raise StoreError(f"cannot write {location}: {blocked} is a file") from e
            raise StoreError(f"cannot write {location}: {_gist(e)}") from e
        return
    fs, path = _fs(location)
    try:
        fs.pipe_file(path, data)
    except Exception as e:
        raise StoreError(f"cannot write {location}: {_gist(e)}") from e


def create_exclusive(location: str, text: str) -> bool:
    """Write ``text`` to ``location`` only if nothing is there yet, atomically; True when this
    call created it, False when the file existed.

    Locally this is ``O_CREAT | O_EXCL``; in S3 a conditional write (``If-None-Match: *``),
    which AWS and S3-compatible stores honour; other stores through fsspec's exclusive create
    (``mode="create"``), atomic where the store supports it (GCS's generation match, Azure's
    ``overwrite=False``).
    """
    data = text.encode("utf-8")
    if not is_url(location):
        return _create_local(Path(location), data)
    fs, path = _fs(location)
    try:
        fs.pipe_file(path, data, mode="create")
    except FileExistsError:
        return False
    except Exception as e:
        raise StoreError(f"cannot write {location}: {_gist(e)}") from e
    fs.invalidate_cache(posixpath.dirname(path))
    return True


def _create_local(path: Path, data: bytes) -> bool:
    """Locally: the file is written whole under a temporary name and then linked to its name
    (a link fails where a file exists), so no reader ever sees it half written; where the file
    system has no hard links, an ``O_EXCL`` create and a write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        temporary.write_bytes(data)
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError:  # no hard links here
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                return False
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        return True
    except OSError as e:
        raise StoreError(f"cannot write {path}: {_gist(e)}") from e
    finally:
        temporary.unlink(missing_ok=True)


def remove(location: str) -> None:
    """Delete the file at ``location`` (nothing when it is gone already)."""
    fs, path = _fs(location)
    try:
        fs.rm_file(path)
    except FileNotFoundError:
        return
    except Exception as e:
        raise StoreError(f"cannot delete {location}: {_gist(e)}") from e


def check_writable(location: str) -> None:
    """Make sure files can be written into the folder ``location``: locally its nearest
    existing folder must take a small file (made and deleted there; no folder is created); in a
    store a small file is written and deleted (the bucket exists, the credentials allow it).

    Raises:
        StoreError: One line naming the location and what went wrong.
    """
    if not is_url(location):
        _check_local_folder(Path(location))
        return
    probe = join(location, f".longform-probe-{uuid.uuid4().hex}")
    try:
        write_text(probe, "probe")
        remove(probe)
    except StoreError as e:
        raise StoreError(f"the log folder {location} cannot be written: {e}") from e


def check_writable_file(location: str) -> None:
    """Make sure a file can be written at ``location`` (replacing a regular file there): not
    a folder, a device, a pipe or a broken link, in a folder that can be written or made.

    Raises:
        StoreError: One line naming the location and what went wrong.
    """
    if is_url(location):
        check_writable(posixpath.dirname(location.rstrip("/")))
        return
    path = Path(location)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except (OSError, ValueError) as e:  # a loop, a name too long, a NUL, a file as a folder
        raise _local_error(path, e) from e
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device or a pipe)"
        raise StoreError(f"{location} is {kind}; name a file to write")
    if mode is None and os.path.lexists(path):
        raise StoreError(f"{location} is a broken or looping symbolic link")
    _check_local_folder(path.parent)


def _local_error(path: Path, e: BaseException) -> StoreError:
    blocked = next((p for p in path.parents if p.is_file()), None)
    if blocked is not None:
        return StoreError(f"{blocked} is a file, not a folder (in the way of {path})")
    if getattr(e, "errno", None) == errno.ENAMETOOLONG:
        return StoreError(f"cannot use {path}: a name is over {_NAME_MAX} bytes")
    reason = getattr(e, "strerror", None) or _gist(e)
    return StoreError(f"cannot use {path}: {reason}")


def _check_local_folder(folder: Path) -> None:
    """A local folder that exists and is writable, or can be made under one that is: the
    nearest existing folder is probed with a file made and deleted there (permissions alone
    do not tell, for root or in ``/proc`` or on a read-only mount)."""
    try:
        existing = folder
        missing: list[str] = []
        while not existing.exists() and existing != existing.parent:
            if os.path.lexists(existing):
                raise StoreError(f"{existing} is a broken or looping symbolic link")
            missing.append(existing.name)
            existing = existing.parent
        if not existing.is_dir():
            name = "" if existing == folder else f" (in the way of {folder})"
            raise StoreError(f"{existing} is a file, not a folder{name}")
    except StoreError:
        raise
    except (OSError, ValueError) as e:
        raise _local_error(folder, e) from e
    too_long = [n for n in missing if len(os.fsencode(n)) > _NAME_MAX]
    if too_long:
        raise StoreError(f"cannot make {folder}: a name is over {_NAME_MAX} bytes")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise StoreError(f"the folder {existing} cannot be written (no permission)")
    _probe_folder(existing, folder)


_NAME_MAX = 255
"""The longest file name (in bytes) of the usual file systems."""


def _probe_folder(existing: Path, folder: Path) -> None:
    probe = existing / f".longform-probe-{uuid.uuid4().hex}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as e:
        made = "" if existing == folder else f" (to make {folder})"
        reason = e.strerror or _gist(e)
        if e.errno == errno.ENOENT:  # /proc and the like: a folder that takes no new files
            reason = f"it takes no new files ({reason})"
        raise StoreError(f"the folder {existing} cannot be written{made}: {reason}") from e
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def check_readable(location: str) -> None:
    """Make sure the folder ``location`` exists and can be listed.

    Raises:
        StoreError: One line naming the location and what went wrong.
    """
    if not is_url(location):
        if Path(location).is_file():
            raise StoreError(f"{location} is a file, not a log folder")
        if not Path(location).is_dir():
            raise StoreError(f"no such log folder: {location}")
        return
    fs, inner = _fs(location)
    bucket = inner.split("/", 1)[0]
    try:
        fs.ls(bucket, detail=False, refresh=True)
    except FileNotFoundError as e:
        raise StoreError(f"no such bucket or container: {bucket} (in {location})") from e
    except Exception as e:
        raise StoreError(f"cannot reach {location}: {_gist(e)}") from e
