"""Who runs which cell of a plan, decided through the log store itself.

Several ``longform run`` processes, on one machine or many, share a plan by sharing its log
folder. Before running a cell a process *claims* it: it creates the cell's next claim file
with an exclusive write (``O_EXCL`` locally, ``If-None-Match: *`` in S3), so of two processes
reaching for one cell exactly one succeeds. Claim files are numbered: the highest number is the
cell's current claim. While the cell runs, its owner rewrites its claim every few seconds (the
heartbeat). A claim is free to take over, by creating the next number, when

- its owner released it (the cell finished, or failed and may be tried again),
- its owner ran on this machine and its process is gone (a kill, a crash), or
- its heartbeat is older than the timeout (a machine that died, or lost the store): the
  clocks of the machines are assumed to agree to well within the timeout, as NTP keeps them.

A process whose claim was taken over while it still ran (its heartbeat could not reach the
store for longer than the timeout) notices at its next heartbeat and says so; both runs then
write logs into the cell's folder, and the leaderboard shows the newer finished one.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import psutil

from longform_evals.log_store import StoreError, create_exclusive, join, list_names, read_text
from longform_evals.log_store import write_text as store_write
from longform_evals.runs.store_records import (
    MAX_PID,
    BadFile,
    Field,
    finite,
    numbered,
    parse_record,
    record,
    say_once,
    text,
    text_or_none,
    whole,
)

__all__ = [
    "CLAIMS_FOLDER",
    "DEFAULT_TIMEOUT",
    "Claim",
    "Claims",
    "Heartbeat",
    "Owner",
    "this_process",
]

logger = logging.getLogger(__name__)

CLAIMS_FOLDER = ".longform/claims"
"""Where a plan's claims live, below its log folder (one folder per cell)."""
DEFAULT_TIMEOUT = 600.0
"""Seconds without a heartbeat after which a cell's claim is taken over."""
_SUFFIX = ".claim"


@dataclass(frozen=True)
class Owner:
    """A process that claims cells: a unique id, and where it runs."""

    id: str
    host: str
    machine: str
    """The host name and the kernel's boot id: one value per machine and boot."""
    pid: int


@cache
def this_process() -> Owner:
    """The owner this process claims cells as."""
    host = socket.gethostname()
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="utf-8").strip()
    except OSError:  # not Linux: the host name alone names the machine
        boot = ""
    return Owner(uuid.uuid4().hex, host, f"{host}/{boot}", os.getpid())


@dataclass(frozen=True)
class Claim:
    """One claim file of a cell."""

    cell: str
    generation: int
    owner: Owner
    heartbeat: float
    """When its owner last wrote it (seconds since the epoch, the owner's clock)."""
    released: str | None = None
    """Why its owner let it go (``success``, ``error``, ...); None while it holds it."""

    def to_text(self) -> str:
        return json.dumps(asdict(self), indent=1)


OWNER_FIELDS = {
    "id": Field(text),
    "host": Field(text),
    "machine": Field(text),
    "pid": Field(whole(1, MAX_PID)),
}
_CLAIM = {
    "cell": Field(text),
    "generation": Field(whole(0, 10**18)),
    "owner": Field(record(OWNER_FIELDS)),
    "heartbeat": Field(finite(0.0, 1e11)),
    "released": Field(text_or_none, optional=True),
}
_TAKE_OVER = "the cell's claim is taken over (a claim no process can renew)"


def _claim(location: str, cell: str, generation: int, content: str | None) -> Claim | BadFile:
    """A claim read back from its file (:mod:`longform_evals.runs.store_records`)."""
    data = parse_record(location, content, _CLAIM)
    if isinstance(data, BadFile):
        return data
    owner = Owner(**data["owner"])
    return Claim(cell, generation, owner, float(data["heartbeat"]), data.get("released"))


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this machine still runs: a zombie (killed, not yet reaped
    by its parent) does not."""
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False
    except (psutil.AccessDenied, OverflowError, ValueError):  # another user's process
        return True


class Claims:
    """The claims of a plan's cells, kept in ``<log_dir>/.longform/claims/<cell>/``."""

    def __init__(self, log_dir: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.root = join(log_dir, *CLAIMS_FOLDER.split("/"))
        self.timeout = timeout
        self.owner = this_process()

    def _file(self, cell: str, generation: int) -> str:
        return join(self.root, cell, f"{generation:06d}{_SUFFIX}")

    def current(self, cell: str) -> tuple[int, Claim | None] | None:
        """The cell's current claim: its number and the claim (None when its file cannot be
        read as a claim: said once, naming the file); None when the cell was never claimed.
        Files in the cell's folder named otherwise are said once and left alone."""
        folder = join(self.root, cell)
        numbers, strays = numbered(list_names(folder), _SUFFIX)
        for name in strays:
            say_once(
                BadFile(join(folder, name), "is no claim file (its name is not a number)"),
                "it is ignored; remove it",
            )
        if not numbers:
            return None
        number = max(numbers)
        location = self._file(cell, number)
        found = _claim(location, cell, number, read_text(location))
        if isinstance(found, BadFile):
            say_once(found, _TAKE_OVER)
            return number, None
        return number, found

    def free(self, claim: Claim | None, now: float | None = None) -> str | None:
        """Why ``claim`` may be taken over, or None while its owner holds it."""
        if claim is None:
            return "its claim file cannot be read"
        if claim.released:
            return f"released ({claim.released})"
        if claim.owner.id == self.owner.id:
            return None
        if claim.owner.machine == self.owner.machine and not _alive(claim.owner.pid):
            return f"its process {claim.owner.pid} on this machine is gone"
        age = (time.time() if now is None else now) - claim.heartbeat
        if -age > self.timeout:
            return (
                f"its heartbeat from {claim.owner.host} (pid {claim.owner.pid}) is dated "
                f"{-age:.0f} s ahead of this machine's clock, more than the {self.timeout:.0f} s "
                "timeout: taken as stale (check the machines' clocks)"
            )
        if age > self.timeout:
            return (
                f"no heartbeat from {claim.owner.host} (pid {claim.owner.pid}) for {age:.0f} s, "
                f"more than the {self.timeout:.0f} s timeout"
            )
        return None

    def try_claim(
        self, cell: str, found: tuple[int, Claim | None] | bool | None = False
    ) -> tuple[Claim | None, str]:
        """Claim ``cell`` for this process: (the claim, why it was free) or (None, who holds
        it). Of several processes trying at once, one gets it. ``found``: the cell's current
        claim as :meth:`current` just read it (False: read it here)."""
        if found is False:
            found = self.current(cell)
        assert found is None or isinstance(found, tuple)
        number = 0
        why = "never claimed"
        if found is not None:
            number, held = found
            reason = self.free(held)
            if reason is None:
                assert held is not None
                return None, f"held by {held.owner.host} (pid {held.owner.pid})"
            number, why = number + 1, reason
        claim = Claim(cell, number, self.owner, time.time())
        if create_exclusive(self._file(cell, number), claim.to_text()):
            return claim, why
        return None, "claimed by another process just now"

    def beat(self, claim: Claim) -> bool:
        """Refresh ``claim``'s heartbeat; False when another process has taken it over."""
        found = self.current(claim.cell)
        if found is None or found[0] != claim.generation:
            return False
        fresh = Claim(claim.cell, claim.generation, claim.owner, time.time())
        store_write(self._file(claim.cell, claim.generation), fresh.to_text())
        return True

    def release(self, claim: Claim, outcome: str) -> None:
        """Let ``claim`` go with ``outcome`` (``success``, ``error``, ...), unless it was taken
        over meanwhile."""
        found = self.current(claim.cell)
        if found is None or found[0] != claim.generation:
            return
        done = Claim(claim.cell, claim.generation, claim.owner, time.time(), outcome)
        store_write(self._file(claim.cell, claim.generation), done.to_text())


class Heartbeat:
    """Refreshes a claim in a background thread while its cell runs (``with Heartbeat(...)``);
    ``lost`` is set when another process took the cell over."""

    def __init__(self, claims: Claims, claim: Claim) -> None:
        self.claims, self.claim = claims, claim
        self.interval = min(60.0, max(0.2, claims.timeout / 5))
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="longform-heartbeat", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if not self.claims.beat(self.claim):
                    self.lost = True
                    logger.warning(
                        "longform run: cell %s was taken over by another process (this "
                        "process's heartbeat did not reach the store for %.0f s); both runs "
                        "write logs into its folder",
                        self.claim.cell,
                        self.claims.timeout,
                    )
                    return
            except StoreError as e:  # a blip: the next beat tries again
                logger.warning("longform run: heartbeat of cell %s failed: %s", self.claim.cell, e)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
