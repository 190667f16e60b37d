"""Any file in a plan's store — a claim, a heartbeat, a grant — written wrong by anyone: one
line naming it, never a crash and never a silent wait; and the options and plan values that
would otherwise be taken as no limit or crash later."""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import longform_evals
from longform_evals.cli.group import main
from longform_evals.log_store import join, write_text
from longform_evals.runs.budget import BUDGET_FOLDER, GrantBook, Spend
from longform_evals.runs.claims import Claim, Claims, Owner, this_process
from longform_evals.runs.plan_file import PlanError, parse_plan
from longform_evals.runs.store_records import _said

QUALITY = (
    Path(longform_evals.__file__).resolve().parent / "data" / "reading" / "quality_fixture.jsonl"
)
CELL = "quality-strategy=full--scripted-alpha-0123456789"


@pytest.fixture(autouse=True)
def _forget_said() -> None:
    _said.clear()


def _claim_text(**changes: object) -> str:
    owner = {"id": "a" * 32, "host": "far", "machine": "far/boot", "pid": 4242}
    data: dict[str, object] = {
        "cell": CELL,
        "generation": 0,
        "owner": owner,
        "heartbeat": time.time(),
        "released": None,
    }
    for key, value in changes.items():
        if key == "pid":
            owner["pid"] = value
        else:
            data[key] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    "raw",
    [
        _claim_text(heartbeat="HB").replace('"HB"', "NaN"),
        _claim_text(heartbeat="HB").replace('"HB"', "Infinity"),
        _claim_text(heartbeat="HB").replace('"HB"', "1e400"),
        _claim_text(heartbeat="HB").replace('"HB"', "-Infinity"),
        _claim_text(pid="abc"),
        _claim_text(pid=10**30),
        _claim_text(pid=True),
        _claim_text(pid=-1),
        _claim_text(heartbeat="soon"),
        _claim_text(extra=1),
        "",
        "[]",
        "null",
        '{"owner": 1}',
    ],
)
def test_a_claim_no_process_can_renew_is_said_once_and_taken_over(
    tmp_path: Path, raw: str, caplog: pytest.LogCaptureFixture
) -> None:
    claims = Claims(str(tmp_path), timeout=3600)
    location = join(claims.root, CELL, "000000.claim")
    write_text(location, raw)
    with caplog.at_level(logging.WARNING):
        taken, why = claims.try_claim(CELL)
        claims.current(CELL)  # read again (a poll): not said again
    assert taken is not None and taken.generation == 1, why
    said = [r.getMessage() for r in caplog.records if location in r.getMessage()]
    assert len(said) == 1 and said[0].count("\n") == 0


def test_a_heartbeat_from_the_future_is_stale_past_the_timeout(tmp_path: Path) -> None:
    claims = Claims(str(tmp_path), timeout=60)
    owner = Owner("b" * 32, "far", "far/boot", 4242)
    ahead = Claim(CELL, 0, owner, time.time() + 86_400)
    write_text(join(claims.root, CELL, "000000.claim"), ahead.to_text())
    taken, why = claims.try_claim(CELL)
    assert taken is not None and "ahead of this machine's clock" in why
    near = Claims(str(tmp_path / "near"), timeout=60)  # ahead within the timeout: held
    soon = Claim(CELL, 0, owner, time.time() + 30)
    write_text(join(near.root, CELL, "000000.claim"), soon.to_text())
    assert near.try_claim(CELL)[0] is None


@pytest.mark.parametrize("name", ["².claim", "abc.claim", "1e3.claim", "٣.claim", " 1.claim"])
def test_a_file_named_like_no_claim_is_said_and_ignored(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    claims = Claims(str(tmp_path), timeout=3600)
    write_text(join(claims.root, CELL, name), _claim_text())
    with caplog.at_level(logging.WARNING):
        taken, why = claims.try_claim(CELL)
    assert taken is not None and taken.generation == 0 and why == "never claimed"
    assert any(name in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)


def test_a_zombie_of_this_machine_is_dead(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.time() + 30
    while time.time() < deadline:  # exited, not yet reaped: a zombie
        with open(f"/proc/{child.pid}/stat", encoding="utf-8") as f:
            if f.read().split(") ")[1].startswith("Z"):
                break
        time.sleep(0.05)
    try:
        os.kill(child.pid, 0)  # the zombie still answers a signal test
        claims = Claims(str(tmp_path), timeout=3600)
        owner = Owner("c" * 32, "here", this_process().machine, child.pid)
        write_text(
            join(claims.root, CELL, "000000.claim"), Claim(CELL, 0, owner, time.time()).to_text()
        )
        taken, why = claims.try_claim(CELL)
        assert taken is not None and f"process {child.pid} on this machine is gone" in why
    finally:
        child.wait()


@given(st.text(max_size=40) | st.binary(max_size=40).map(lambda b: b.decode("latin-1")))
def test_any_claim_file_content_is_read_or_said(content: str) -> None:
    from longform_evals.runs.claims import _claim

    found = _claim("x/000000.claim", CELL, 0, content)
    assert isinstance(found, Claim) or found.problem


@pytest.mark.parametrize(
    ("name", "content"),
    [("000000.grant", ""), ("000000.grant", '{"tokens": NaN, "money": 0}'),
     ("000000.grant", '{"tokens": -5, "money": 0}'), ("000000.grant", "{}")],
)  # fmt: skip
def test_an_unreadable_grant_is_said_and_spends_what_is_left(
    tmp_path: Path, name: str, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    folder = join(str(tmp_path), *BUDGET_FOLDER.split("/"))
    write_text(join(folder, name), content)
    book = GrantBook(str(tmp_path), Spend(1000.0, math.inf))
    with caplog.at_level(logging.WARNING):
        assert book.take(Spend(10.0, 0.0)) is None
        book.take(Spend(10.0, 0.0))
    said = [r.getMessage() for r in caplog.records if name in r.getMessage()]
    assert len(said) == 1 and "remove it" in said[0]


@pytest.mark.parametrize("name", ["abc.grant", "².grant", "x.used", "0001.grant.tmp"])
def test_a_budget_file_named_otherwise_is_ignored(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    folder = join(str(tmp_path), *BUDGET_FOLDER.split("/"))
    write_text(join(folder, name), '{"tokens": 999999, "money": 0}')
    book = GrantBook(str(tmp_path), Spend(1000.0, math.inf))
    with caplog.at_level(logging.WARNING):
        grant = book.take(Spend(10.0, 0.0))
    assert grant is not None and grant.tokens == 50.0
    assert name.endswith(".tmp") or any(name in r.getMessage() for r in caplog.records)


def _plan(tmp_path: Path, **extra: object) -> dict[str, object]:
    return {
        "models": ["scripted/a"],
        "judge": "scripted/judge",
        "tasks": [{"task": "quality", "args": {"data": str(QUALITY)}, "limit": 1}],
        "log_dir": str(tmp_path / "logs"),
        **extra,
    }


@pytest.mark.parametrize("budget", [{}, {"tokens": None}, [], "lots", 0])
def test_an_empty_or_wrong_budget_is_refused(tmp_path: Path, budget: object) -> None:
    with pytest.raises(PlanError, match="budget"):
        parse_plan(_plan(tmp_path, budget=budget), tmp_path / "plan.yaml")


@pytest.mark.parametrize(
    "log_dir", ["s3://", "s3:///logs", "s3://bucket/logs?versionId=1", "s3://bucket/logs#x"]
)
def test_a_store_url_without_bucket_or_with_a_query_is_refused(
    tmp_path: Path, log_dir: str
) -> None:
    with pytest.raises(PlanError, match="no store folder"):
        parse_plan(_plan(tmp_path, log_dir=log_dir), tmp_path / "plan.yaml")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0.5", "1e9"])
def test_a_claim_timeout_that_is_no_time_is_refused(tmp_path: Path, value: str) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(json.dumps(_plan(tmp_path)), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(plan), "--dry-run", "--claim-timeout", value])
    assert result.exit_code == 2 and "--claim-timeout" in result.output


def test_a_variant_no_sample_can_run_is_refused_at_load_not_in_the_estimate(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.yaml"
    args = {"data": str(QUALITY), "strategy": "read_agent_p"}
    tasks = [{"task": "quality", "args": args, "variants": {"max_words": [600, 100]}}]
    plan.write_text(json.dumps(_plan(tmp_path, tasks=tasks)), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(plan), "--dry-run"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "max_words=100" in result.output and "min_words" in result.output, result.output
