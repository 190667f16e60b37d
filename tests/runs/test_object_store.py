"""Plans past one machine, against a real S3 server on 127.0.0.1 (moto's server mode):
`longform run` writes into `s3://`, the leaderboard reads from there, two processes share one
plan and run each cell once, a killed cell resumes in another process with an empty Inspect
cache without repeating a finished sample, a dead process's cell is taken over after the
claim timeout, and a budget holds with samples running concurrently.

Scripted models throughout; skips where moto or s3fs is not installed.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from inspect_ai.event import ModelEvent
from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_sample_summaries

from longform_evals.cli import main
from longform_evals.log_store import create_exclusive, join, list_names, read_text
from longform_evals.models.spend_gate import DEFAULT_OUTPUT_CAP, INPUT_MARGIN, MESSAGE_OVERHEAD
from longform_evals.runs.claims import Claim, Owner
from longform_evals.text.tokens import count_tokens
from object_store import S3Server, bucket, s3_server  # noqa: F401  (fixtures)
from plans import plan_text

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def start_run(plan: Path, cache: Path, *extra: str) -> subprocess.Popen[str]:
    """`longform run PLAN` in a process of its own, with its own Inspect cache (a machine)."""
    env = {**os.environ, "INSPECT_CACHE_DIR": str(cache)}
    return subprocess.Popen(
        [sys.executable, "-m", "longform_evals.cli", "run", str(plan), "--display", "none", *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def largest_call(logs: list[Any]) -> int:
    """The most tokens one model call of ``logs`` used."""
    return max(
        e.output.usage.input_tokens + e.output.usage.output_tokens
        for log in logs
        for s in log.samples or []
        for e in s.events
        if isinstance(e, ModelEvent) and e.output.usage
    )


def largest_reservation(logs: list[Any]) -> int:
    """The most one model call of ``logs`` reserved (`spend_gate.call_cost`: its prompt with
    the margin and its output cap)."""
    return max(
        math.ceil(sum(count_tokens(m.text) for m in e.input) * INPUT_MARGIN)
        + MESSAGE_OVERHEAD * len(e.input)
        + (e.config.max_tokens or DEFAULT_OUTPUT_CAP)
        for log in logs
        for s in log.samples or []
        for e in s.events
        if isinstance(e, ModelEvent)
    )


def largest_refused(logs: list[Any]) -> int:
    """The most a call the budget refused in ``logs`` would have reserved (its message)."""
    said = (s.error.message for log in logs for s in log.samples or [] if s.error)
    found = (re.search(r"up to ([\d,]+) tokens", message) for message in said)
    return max((int(m.group(1).replace(",", "")) for m in found if m), default=0)


def one_cell_plan(folder: Path, store: str, **settings: Any) -> Path:
    """A plan of one cell (the scripted reader `alpha` on QuALITY's fixture, `full`) into
    ``store``, written into ``folder``."""
    plan = folder / "plan.yaml"
    text = plan_text(store, readers=(("alpha", "B"),), book=False, strategies=("full",), **settings)
    plan.write_text(text, encoding="utf-8")
    return plan


def store_logs(location: str) -> list[Any]:
    return [read_eval_log(i, header_only=True) for i in list_eval_logs(location)]


def test_a_plan_runs_into_s3_and_the_leaderboard_reads_it_there(
    bucket: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    store = f"{bucket}/runs/trio"
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text(store, strategies=("full",)), encoding="utf-8")
    result = run_cli("run", str(plan))
    assert result.exit_code == 0, result.output
    # nothing local: the old code wrote into a folder literally named `s3:` beside the plan
    assert not any(p.name.startswith("s3") for p in tmp_path.rglob("*"))
    logs = store_logs(store)
    assert len(logs) == 4 and all(log.status == "success" for log in logs)
    assert all((log.location or "").startswith(f"{store}/cells/") for log in logs)

    board = f"{bucket}/boards/trio"
    result = run_cli("leaderboard", store, "--out", board)
    assert result.exit_code == 0, result.output
    assert set(list_names(board)) == {
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.html",
    }
    rows = json.loads(read_text(join(board, "leaderboard.json")) or "")["rows"]
    assert sorted((r["model"], r["variant"]) for r in rows) == sorted(
        (m, v)
        for m in ("scripted/alpha", "scripted/beta")
        for v in ("quality[strategy=full]", "booookscore-hier512")
    )
    page = read_text(join(board, "leaderboard.html")) or ""
    assert "cells/quality-strategy%3Dfull---scripted-alpha" in page  # links to the cell's log

    # a log file in the store is read where a log file is taken
    book = next(log for log in logs if "booookscore" in log.eval.task).location
    assert book is not None
    out = run_cli("plot-positions", book)
    assert out.exit_code == 1 and "not a positional_bias log" in out.output
    card = run_cli("judge-card", "--from-log", book, "--out", str(tmp_path / "cards"))
    assert card.exit_code == 1 and "cannot read" not in card.output, card.output
    missing = f"{store}/no-such.eval"
    for command in (["plot-positions", missing], ["judge-card", "--from-log", missing]):
        out = run_cli(*command)
        assert out.exit_code == 1 and f"no log file at {missing}" in out.output


def test_the_log_dir_option_overrides_the_plan(
    bucket: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text(tmp_path / "local", book=False, strategies=("full",)), "utf-8")
    store = f"{bucket}/elsewhere"
    result = run_cli("run", str(plan), "--log-dir", store)
    assert result.exit_code == 0, result.output
    assert len(store_logs(store)) == 2 and not (tmp_path / "local").exists()


def test_an_unreachable_store_is_one_line_before_any_call(
    s3_server: S3Server,  # noqa: F811
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text("s3://no-such-bucket-here/runs", book=False), encoding="utf-8")
    result = run_cli("run", str(plan))
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "s3://no-such-bucket-here/runs" in lines[0] and "cannot be written" in lines[0]
    board = run_cli("leaderboard", "s3://no-such-bucket-here/runs")
    assert board.exit_code == 1 and "no-such-bucket-here" in board.output
    assert len([line for line in board.output.splitlines() if line.strip()]) == 1


def _ran(output: str) -> list[str]:
    """The cells a process ran (its "ran here: <outcome> <cell>" lines)."""
    lines = [line for line in output.splitlines() if line.startswith("ran here:")]
    return [line.split(None, 3)[3] for line in lines]


def test_two_processes_share_one_plan_and_run_each_cell_once(
    bucket: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = f"{bucket}/runs/shared"
    plan = tmp_path / "plan.yaml"
    readers = (("alpha", "B"), ("beta", "A"), ("gamma", "C"))
    plan.write_text(
        plan_text(store, readers=readers, latency=0.05, max_samples=3), encoding="utf-8"
    )
    first = start_run(plan, tmp_path / "cache-1")
    second = start_run(plan, tmp_path / "cache-2")
    outputs = [p.communicate(timeout=300)[0] for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outputs
    ran = [_ran(out) for out in outputs]
    assert all(ran), outputs  # both processes did part of the work
    everything = ran[0] + ran[1]
    assert len(everything) == len(set(everything)) == 9  # 3 models x 3 variants, once each
    logs = store_logs(store)
    assert len(logs) == 9 and all(log.status == "success" for log in logs)
    result = run_cli("leaderboard", store, "--out", str(tmp_path / "board"))
    assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "board" / "leaderboard.json").read_text("utf-8"))["rows"]
    assert len(rows) == 9


def _samples_in_store(store: str) -> dict[str, str]:
    """Sample id -> uuid of the samples written to the cell's log so far."""
    found: dict[str, str] = {}
    for info in list_eval_logs(store):
        try:
            for summary in read_eval_log_sample_summaries(info.name):
                if summary.uuid and summary.completed is not False:
                    found[str(summary.id)] = summary.uuid
        except Exception:  # the log is being written: try again
            continue
    return found


def test_a_killed_cell_resumes_elsewhere_without_repeating_finished_samples(
    bucket: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = f"{bucket}/runs/resume"
    plan = one_cell_plan(tmp_path, store, latency=1.0)
    first = start_run(plan, tmp_path / "cache-first")
    deadline = time.monotonic() + 120
    finished: dict[str, str] = {}
    while len(finished) < 2:
        assert first.poll() is None, first.communicate()[0]
        assert time.monotonic() < deadline
        time.sleep(0.2)
        finished = _samples_in_store(store)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    finished = _samples_in_store(store)
    assert 2 <= len(finished) < 6
    # another "machine": an empty Inspect cache; it takes the dead process's cell at once
    second = start_run(plan, tmp_path / "cache-second")
    output = second.communicate(timeout=300)[0]
    assert second.returncode == 0, output
    assert "is gone" in output  # the claim of the killed process, recognised
    logs = [read_eval_log(i) for i in list_eval_logs(store)]
    [log] = [log for log in logs if log.status == "success"]
    assert log.samples and len(log.samples) == 6
    repeated = [
        s.id for s in log.samples if str(s.id) in finished and s.uuid != finished[str(s.id)]
    ]
    assert repeated == []  # every sample finished before the kill was reused from the store


def test_a_dead_machines_cell_is_taken_over_after_the_timeout(
    bucket: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    store = f"{bucket}/runs/takeover"
    plan = one_cell_plan(tmp_path, store)
    dry = run_cli("run", str(plan), "--dry-run")
    assert dry.exit_code == 0
    from longform_evals.runs.cells import plan_cells
    from longform_evals.runs.plan_file import read_plan
    from longform_evals.runs.run_plan import build_plan

    read = read_plan(plan)
    [cell] = plan_cells(read, build_plan(read))
    elsewhere = Owner("0" * 32, "other-host", "other-host/boot", 4242)
    claim = Claim(cell.key, 0, elsewhere, time.time())
    claims = join(store, ".longform", "claims", cell.key)
    assert create_exclusive(join(claims, "000000.claim"), claim.to_text())
    # alive (a fresh heartbeat): not taken, and without waiting the process stops
    held = run_cli("run", str(plan), "--no-wait", "--claim-timeout", "30")
    assert held.exit_code == 1 and "held by other processes" in held.output
    assert store_logs(store) == []
    # silent past the timeout: taken over
    time.sleep(2.5)
    taken = run_cli("run", str(plan), "--claim-timeout", "2")
    assert taken.exit_code == 0, taken.output
    assert "no heartbeat from other-host (pid 4242)" in taken.output
    assert sorted(list_names(claims)) == ["000000.claim", "000001.claim"]


@pytest.mark.parametrize("max_samples", [1, 5, 20])
def test_the_budget_holds_at_any_concurrency(
    bucket: str,  # noqa: F811
    tmp_path: Path,
    max_samples: int,
) -> None:
    store = f"{bucket}/runs/budget-{max_samples}"
    budget = 2000
    plan = one_cell_plan(tmp_path, store, latency=0.3, max_samples=max_samples, budget=budget)
    result = run_cli("run", str(plan))
    assert result.exit_code == 1, result.output  # refused samples: the cell is partial
    assert "refused by the plan's budget" in result.output
    logs = [read_eval_log(i) for i in list_eval_logs(store)]
    spent = sum(
        u.input_tokens + u.output_tokens for log in logs for u in log.stats.model_usage.values()
    )
    # at most one call past it (the process holding the overdraft); the other stops with less
    # room left in its grants than the call it refused reserves
    shortfall = max(largest_reservation(logs), largest_refused(logs))
    assert budget - shortfall < spent < budget + largest_call(logs), spent
    assert list_names(f"{store}/.longform/budget").count("overdraft") <= 1
    samples = [s for log in logs for s in log.samples or []]
    refused = [s for s in samples if s.error and "budget exhausted" in s.error.message]
    assert refused and len(samples) == 6


def _documented_store_block() -> list[str]:
    """The commands of docs/leaderboard.md's "On several machines" section, in order."""
    text = (REPO / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    section = text.split("## On several machines", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_documented_store_commands(
    bucket: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The documented lines as written, but for the bucket (a fresh one) and the plan (scripted
    models in place of the GGUF ones): the run line on two "machines" at once (two processes,
    each with its own Inspect cache), then the leaderboard line."""
    run_line, board_line = _documented_store_block()
    assert run_line.startswith("longform run plans/local-trio.yaml --log-dir s3://my-bucket/")
    plan = tmp_path / "plans" / "local-trio.yaml"
    plan.parent.mkdir()
    plan.write_text(plan_text("unused", strategies=("full",)), encoding="utf-8")

    def words(line: str) -> list[str]:
        line = line.replace("s3://my-bucket", bucket)
        return [sys.executable, "-m", "longform_evals.cli", *shlex.split(line)[1:]]

    env = {**os.environ, "INSPECT_DISPLAY": "none"}
    machines = [
        subprocess.Popen(
            words(run_line),
            cwd=tmp_path,
            env={**env, "INSPECT_CACHE_DIR": str(tmp_path / f"cache-{i}")},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(2)
    ]
    outputs = [m.communicate(timeout=300)[0] for m in machines]
    assert [m.returncode for m in machines] == [0, 0], outputs
    ran = _ran(outputs[0]) + _ran(outputs[1])
    assert len(ran) == len(set(ran)) == 4
    board = subprocess.run(words(board_line), cwd=tmp_path, env=env, capture_output=True, text=True)
    assert board.returncode == 0, board.stderr
    assert "leaderboard.html" in list_names(f"{bucket}/boards/local-trio")


def test_one_budget_holds_across_two_processes(
    bucket: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Two processes, each running cells concurrently, draw on one budget kept in the store:
    together they spend no more than it and one call."""
    store = f"{bucket}/runs/shared-budget"
    plan = tmp_path / "plan.yaml"
    budget = 5000
    readers = (("alpha", "B"), ("beta", "A"), ("gamma", "C"), ("delta", "D"))
    plan.write_text(
        plan_text(
            store,
            readers=readers,
            book=False,
            strategies=("full",),
            latency=0.2,
            max_samples=6,
            budget=budget,
        ),
        encoding="utf-8",
    )
    runs = [start_run(plan, tmp_path / f"cache-{i}") for i in range(2)]
    outputs = [p.communicate(timeout=300)[0] for p in runs]
    assert [p.returncode for p in runs] == [1, 1], outputs  # refused samples: partial cells
    # (which process spends how much is a race: under load one may start after the other has
    # met the budget; the grants in the store bound them together either way)
    logs = [read_eval_log(i) for i in list_eval_logs(store)]
    spent = sum(
        u.input_tokens + u.output_tokens for log in logs for u in log.stats.model_usage.values()
    )
    # at most one call past it (the process holding the overdraft); the other stops with less
    # room left in its grants than the call it refused reserves
    shortfall = max(largest_reservation(logs), largest_refused(logs))
    assert budget - shortfall < spent < budget + largest_call(logs), spent
    assert list_names(f"{store}/.longform/budget").count("overdraft") <= 1
    grants = [n for n in list_names(f"{store}/.longform/budget") if n.endswith(".grant")]
    used = [n for n in list_names(f"{store}/.longform/budget") if n.endswith(".used")]
    assert grants and len(used) == len(grants)  # every grant closed with what it spent
