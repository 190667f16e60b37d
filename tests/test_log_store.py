"""`log_store`: locations named as strings, local or in a store, never `Path()` on a URL."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longform_evals.log_store import (
    StoreError,
    check_readable,
    check_writable,
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
