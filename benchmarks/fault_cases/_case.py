"""What a generated fault case is, and the rules that name how it ended.

A class module (a sibling of this file) defines ``CLASS`` (its row name), ``DESCRIPTION`` and
``cases() -> list[Case]``; ``cases()`` must return the same list, in the same order, on every
call (seeded generators only), because a worker process rebuilds it and runs case *i*.

A case's ``run`` does the case in an empty scratch folder and returns how it ended:

* ``error``: a bad input refused with a clear message that names what was wrong;
* ``counted``: a bad answer or item accepted and counted (unreadable, skipped, with its reason);
* ``loaded``: a valid (if unusual) input accepted and read right;
* ``silent``: a bad input accepted or misread, an unclear or wrong refusal, a valid input
  refused or misread.

An exception escaping ``run`` (a traceback, a raw OS error, ``MemoryError``) is a ``crash``, as
is a worker that dies (a segfault); a case with no ending within its ``timeout`` is a ``hang``.
Cases run against any revision of the package (``--baseline``), so they use entry points that
exist before and after the work: loaders, parsers, scorers' helpers and the ``longform`` command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ENDINGS = ("error", "counted", "loaded", "silent")
OUTCOMES = (*ENDINGS, "crash", "hang")


@dataclass(frozen=True)
class Case:
    """One generated input and what to do with it."""

    name: str
    run: Callable[[Path], str]
    timeout: float = 60.0


def names_all(message: str, needles: Sequence[str]) -> bool:
    low = message.casefold()
    return all(str(n).casefold() in low for n in needles)


def refused(exc: BaseException, *needles: str) -> str:
    """How an exception a case caught ended: ``error`` when it is the package's (or click's)
    own error and its message names every needle, ``silent`` when it is unclear; an exception
    from elsewhere (a raw OS error, a KeyError) is re-raised, a crash."""
    module = type(exc).__module__
    own = module.startswith(("longform_evals", "click"))
    if not own and type(exc) is not ValueError:
        raise exc
    return "error" if names_all(str(exc), needles) else "silent"


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def cli(
    args: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
    stdin: str | None = None,
) -> CliResult:
    """Run ``longform ARGS`` with this interpreter (and the package on its PYTHONPATH)."""
    full = dict(os.environ)
    full.update(env or {})
    full.setdefault("INSPECT_DISPLAY", "none")
    done = subprocess.run(
        [sys.executable, "-m", "longform_evals.cli", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def cli_refused(result: CliResult, *needles: str) -> str:
    """How a command given a bad input ended: a traceback is a crash (raised), exit 0 is
    silent, a non-zero exit whose message names every needle is a clear error."""
    if "Traceback (most recent call last)" in result.output:
        last = result.output.strip().splitlines()[-1:]
        raise RuntimeError(f"traceback: {last[0] if last else ''}")
    if result.returncode == 0:
        return "silent"
    return "error" if names_all(result.output, needles) else "silent"


def cli_loaded(result: CliResult) -> str:
    """How a command given a valid input ended: exit 0 is loaded, a traceback a crash."""
    if "Traceback (most recent call last)" in result.output:
        last = result.output.strip().splitlines()[-1:]
        raise RuntimeError(f"traceback: {last[0] if last else ''}")
    return "loaded" if result.returncode == 0 else "silent"
