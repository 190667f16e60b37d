"""Claims of a plan's cells in a local log folder: one owner per cell, take-over only of a
released, dead or silent claim, heartbeats that notice a take-over."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from longform_evals.log_store import create_exclusive, join, list_names, write_text
from longform_evals.runs.claims import Claim, Claims, Heartbeat, Owner, this_process

CELL = "quality-strategy=full--scripted-alpha-0123456789"


def _other(machine: str = "far/boot", pid: int = 4242) -> Owner:
    return Owner(f"{pid:032d}", machine.split("/")[0], machine, pid)


def _plant(claims: Claims, owner: Owner, age: float = 0.0, number: int = 0) -> None:
    claim = Claim(CELL, number, owner, time.time() - age)
    assert create_exclusive(join(claims.root, CELL, f"{number:06d}.claim"), claim.to_text())


def test_the_first_claim_wins_and_the_owner_keeps_it(tmp_path: Path) -> None:
    claims = Claims(str(tmp_path), timeout=60)
    claim, why = claims.try_claim(CELL)
    assert claim is not None and claim.generation == 0 and why == "never claimed"
    again, held = claims.try_claim(CELL)  # this very process holds it
    assert again is None and "held by" in held
    rival = Claims(str(tmp_path), timeout=60)
    rival.owner = _other()
    assert rival.try_claim(CELL)[0] is None


def test_a_released_claim_is_taken_with_the_next_number(tmp_path: Path) -> None:
    claims = Claims(str(tmp_path), timeout=60)
    claim, _ = claims.try_claim(CELL)
    assert claim is not None
    claims.release(claim, "error")
    rival = Claims(str(tmp_path), timeout=60)
    rival.owner = _other()
    taken, why = rival.try_claim(CELL)
    assert taken is not None and taken.generation == 1 and why == "released (error)"


def test_a_silent_claim_of_another_machine_is_taken_after_the_timeout(tmp_path: Path) -> None:
    claims = Claims(str(tmp_path), timeout=60)
    _plant(claims, _other(), age=30)
    assert claims.try_claim(CELL)[0] is None  # within the timeout: still held
    claims.timeout = 10
    taken, why = claims.try_claim(CELL)
    assert taken is not None and taken.generation == 1
    assert why.startswith("no heartbeat from far (pid 4242) for 30 s")


def test_a_dead_process_of_this_machine_is_recognised_at_once(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    claims = Claims(str(tmp_path), timeout=3600)
    _plant(claims, Owner("e" * 32, "here", this_process().machine, gone.pid))
    taken, why = claims.try_claim(CELL)
    assert taken is not None and f"process {gone.pid} on this machine is gone" in why
    # a live process of this machine (the test's own parent) keeps its claim
    live = Claims(str(tmp_path / "other"), timeout=3600)
    _plant(live, Owner("d" * 32, "here", this_process().machine, os.getppid()))
    assert live.try_claim(CELL)[0] is None


def test_an_unreadable_claim_file_is_taken_over(tmp_path: Path) -> None:
    claims = Claims(str(tmp_path), timeout=3600)
    write_text(join(claims.root, CELL, "000000.claim"), "{ not json")
    taken, why = claims.try_claim(CELL)
    assert taken is not None and taken.generation == 1 and "cannot be read" in why


def test_of_two_takers_one_wins(tmp_path: Path) -> None:
    first, second = Claims(str(tmp_path), timeout=1), Claims(str(tmp_path), timeout=1)
    second.owner = _other("near/boot", 7)
    _plant(first, _other(), age=100)
    found = first.current(CELL)
    a, _ = first.try_claim(CELL, found)
    b, why = second.try_claim(CELL, found)  # read the same stale claim, reached for number 1
    assert a is not None and b is None and why == "claimed by another process just now"
    assert list_names(join(first.root, CELL)) == ["000000.claim", "000001.claim"]


def test_the_heartbeat_refreshes_and_notices_a_take_over(tmp_path: Path) -> None:
    claims = Claims(str(tmp_path), timeout=1)
    claim, _ = claims.try_claim(CELL)
    assert claim is not None
    with Heartbeat(claims, claim) as beat:
        time.sleep(0.6)
        found = claims.current(CELL)
        assert found is not None and found[1] is not None
        assert found[1].heartbeat > claim.heartbeat  # refreshed
        _plant(claims, _other(), number=1)  # another process took it over
        time.sleep(0.6)
    assert beat.lost
