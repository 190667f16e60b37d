"""`log_store`: locations named as strings, local or in a store, never `Path()` on a URL."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.log_store import (
    StoreError,
    check_readable,
    check_writable,
    check_writable_file,
    create_exclusive,
    is_below,
    is_url,
    join,
    list_names,
    read_text,
    relative_to,
    resolve,
    write_text,
)


@pytest.mark.parametrize(
    ("location", "remote"),
    [
        ("s3://bucket/runs", True),
        ("gs://b/x", True),
        ("az://container/x", True),
        ("file:///tmp/x", False),
        ("/tmp/x", False),
        ("logs/x", False),
        ("C:\\logs\\x", False),
        ("~/logs", False),
    ],
)
def test_what_is_a_store_url(location: str, remote: bool) -> None:
    assert is_url(location) is remote


def test_resolve_keeps_urls_and_makes_paths_absolute(tmp_path: Path) -> None:
    assert resolve("s3://bucket/runs/", tmp_path) == "s3://bucket/runs"
    assert resolve("s3://bucket", tmp_path) == "s3://bucket"
    assert resolve("logs/a", tmp_path) == str(tmp_path / "logs" / "a")
    assert resolve(f"file://{tmp_path}/x", Path("/elsewhere")) == str(tmp_path / "x")
    assert resolve("~/x", tmp_path) == str(Path.home() / "x")  # not a folder named `~`


def test_join_and_relative_paths() -> None:
    assert join("s3://b/runs", "cells", "c") == "s3://b/runs/cells/c"
    assert join("s3://b/runs/", "x") == "s3://b/runs/x"
    assert relative_to("s3://b/runs/cells/c/x.eval", "s3://b/runs") == "cells/c/x.eval"
    assert relative_to("file:///tmp/runs/c/x.eval", "/tmp/runs") == "c/x.eval"
    assert relative_to("s3://b/other/x.eval", "s3://b/runs") == "x.eval"
    assert is_below("file:///tmp/runs/c/x.eval", "/tmp/runs/c")
    assert not is_below("/tmp/runs/cc/x.eval", "/tmp/runs/c")


@given(st.lists(st.from_regex(r"[a-z0-9_.=-]{1,12}", fullmatch=True), min_size=1, max_size=4))
def test_joined_store_parts_come_back_relative(parts: list[str]) -> None:
    location = join("s3://bucket/runs", *parts)
    assert relative_to(location, "s3://bucket/runs") == "/".join(parts)


def test_local_files_round_trip_and_exclusive_creation(tmp_path: Path) -> None:
    target = join(str(tmp_path), "a", "b.txt")
    assert read_text(target) is None
    write_text(target, "one")
    assert read_text(target) == "one"
    write_text(target, "two")  # replaced whole
    assert read_text(target) == "two"
    assert list_names(str(tmp_path / "a")) == ["b.txt"]
    assert list_names(str(tmp_path / "absent")) == []
    claim = join(str(tmp_path), "claims", "000000.claim")
    assert create_exclusive(claim, "mine")
    assert not create_exclusive(claim, "yours")
    assert read_text(claim) == "mine"


def test_of_many_racing_creators_exactly_one_wins(tmp_path: Path) -> None:
    target = str(tmp_path / "race" / "000000.claim")
    wins: list[bool] = []
    barrier = threading.Barrier(8)

    def contend(i: int) -> None:
        barrier.wait()
        wins.append(create_exclusive(target, str(i)))

    threads = [threading.Thread(target=contend, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 7 + [True]


def test_unusable_locations_are_one_line_naming_them(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(StoreError, match="is a file, not a folder"):
        check_writable(str(a_file))
    with pytest.raises(StoreError, match="no such log folder"):
        check_readable(str(tmp_path / "absent"))
    with pytest.raises(StoreError, match=r"cannot write .*file/x"):
        write_text(str(a_file / "x"), "y")
    with pytest.raises(StoreError, match="cannot open nosuch://x"):
        check_writable("nosuch://x")
    check_writable(str(tmp_path / "new"))  # a folder that does not exist yet can be made
    assert list_names(str(tmp_path / "new")) == []  # and the probe is gone


def _layout(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    return {k: str(tmp_path / k) for k in ("file", "folder", "broken", "loop")}


@pytest.mark.parametrize(
    ("folder", "message"),
    [
        ("{file}", "is a file, not a folder"),
        ("{file}/deeper/logs", "file is a file, not a folder (in the way of"),
        ("{broken}/logs", "broken is a broken or looping symbolic link"),
        ("{loop}/logs", "loop is a broken or looping symbolic link"),
        ("{folder}/" + "n" * 256, "a name is over 255 bytes"),
        ("/proc/longform-49", "the folder /proc cannot be written (to make /proc/longform-49)"),
        ("/proc/self/longform-49/x", "cannot be written"),
    ],
)
def test_a_folder_that_cannot_be_written_is_one_line_naming_it(
    tmp_path: Path, folder: str, message: str
) -> None:
    """Permissions alone do not tell (root, /proc): the nearest folder is probed."""
    if folder.startswith("/proc") and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    location = folder.format(**_layout(tmp_path))
    with pytest.raises(StoreError) as error:
        check_writable(location)
    assert message in str(error.value) and "\n" not in str(error.value), str(error.value)
    assert not [p for p in tmp_path.rglob(".longform-probe-*")]  # no probe left behind


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("{folder}", "folder is a folder; name a file to write"),
        ("{file}/x.xml", "file is a file, not a folder (in the way of"),
        ("{broken}", "broken is a broken or looping symbolic link"),
        ("{loop}", "cannot use"),
        ("/dev/null", "is not a regular file (a device or a pipe)"),
        ("/proc/x.png", "the folder /proc cannot be written"),
    ],
)
def test_a_file_that_cannot_be_written_is_one_line_naming_it(
    tmp_path: Path, target: str, message: str
) -> None:
    if target == "/dev/null" and not Path(target).exists():
        pytest.skip("no /dev/null here")
    if target.startswith("/proc") and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    with pytest.raises(StoreError) as error:
        check_writable_file(target.format(**_layout(tmp_path)))
    assert message in str(error.value), str(error.value)


def test_writable_places_pass_and_keep_nothing(tmp_path: Path) -> None:
    paths = _layout(tmp_path)
    check_writable_file(paths["file"])  # a regular file is replaced
    check_writable_file(str(tmp_path / "new" / "deeper" / "x.xml"))
    check_writable(str(tmp_path / "new" / "deeper"))
    assert sorted(os.listdir(tmp_path)) == ["broken", "file", "folder", "loop"]


def test_tilde_in_paths_and_file_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve("~/logs") == str((tmp_path / "logs").resolve())
    assert resolve("file://~/logs") == str((tmp_path / "logs").resolve())
    assert resolve("s3://bucket/~/logs") == "s3://bucket/~/logs"
    with pytest.raises(StoreError, match="cannot resolve ~no-such-user-49/x"):
        resolve("~no-such-user-49/x")


def test_an_object_replaced_while_read_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """s3fs raises `FileExpired` (EBUSY) when another process replaced the object between
    opening and reading it (a claim's heartbeat): the read is made again, up to a limit."""
    import errno

    from fsspec.implementations.memory import MemoryFileSystem

    from longform_evals import log_store

    class Replaced(MemoryFileSystem):
        expiries = 0

        def _open(self, path: str, mode: str = "rb", **kwargs: object) -> object:
            if Replaced.expiries:
                Replaced.expiries -= 1
                raise OSError(errno.EBUSY, f"The remote file {path} no longer exists.")
            return super()._open(path, mode, **kwargs)

    fs = Replaced()
    fs.pipe("/bucket/cell/000001.claim", b'{"heartbeat": 2}')
    monkeypatch.setattr(log_store, "_fs", lambda location: (fs, "/bucket/cell/000001.claim"))
    Replaced.expiries = 2
    assert log_store.read_text("s3://bucket/cell/000001.claim") == '{"heartbeat": 2}'
    Replaced.expiries = 5  # replaced at every read: a clear error, not a wrong answer
    with pytest.raises(log_store.StoreError, match=r"cannot read s3://bucket/cell/000001\.claim"):
        log_store.read_text("s3://bucket/cell/000001.claim")
