"""A plan past one machine: two processes on one object store, a kill and a resume elsewhere,
a budget under concurrency, and what writing samples as they finish costs.

    python benchmarks/plan_at_scale.py [--latency 0.2] [--budget 4000] [--baseline REV]

Starts moto's S3 server (the dev extra's `moto[server]`) on 127.0.0.1 behind a byte-counting
relay, and runs `longform run` with scripted models (a latency per call, so that samples
overlap) in child processes, each with its own Inspect cache, as separate machines would:

1. a plan of 3 models x 3 task variants, by one process and then by two at once into one
   `s3://` store: wall time, cells run by each process, cells run twice;
2. one cell of 42 QuALITY questions killed (SIGKILL) once 3 have finished, resumed by another
   process with an empty cache: samples repeated (a finished sample is repeated unless the
   final log holds it with the killed run's uuid);
3. a token budget over that cell at max_samples 1, 5 and 20: tokens spent (Inspect's usage in
   the logs) against the budget and the largest single call;
4. bytes sent to the store for that cell with `log_buffer` 1 (every sample written as it
   finishes, the plans' default) against 10 and 100.

With `--baseline REV` the rows of 1, 2 and 3 are also run with the package as it was at git
revision REV (a worktree; local folders, since that code cannot write to a store), in the same
run. Prints one markdown table per part.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "src" / "longform_evals" / "data" / "reading" / "quality_fixture.jsonl"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "us-east-1",
}
READER = [
    {
        "pattern": r"(?s)Passage:.*?\n<(\d+)>.*Break point: <number>",
        "response": r"Break point: <\1>",
    },
    {"pattern": r"Shorten it to at most \d+ words\.", "response": "A short gist of this page."},
    {"pattern": r"Which pages would you like to read in full\?", "response": "[0]"},
]
SUMMARY = "Ines Calloway studies a frozen orchard. She finds a faulty sensor."


class StoreUnavailable(RuntimeError):
    """moto's server could not be started here."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_moto(port: int) -> subprocess.Popen[bytes]:
    """moto's S3 server on 127.0.0.1:``port``, once it accepts connections."""
    server = Path(sys.executable).parent / "moto_server"
    if not server.exists():
        raise StoreUnavailable("moto_server is not installed (pip install 'moto[server]' s3fs)")
    process = subprocess.Popen(
        [str(server), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StoreUnavailable(f"moto_server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise StoreUnavailable("moto_server did not start in 30 s")


class Relay:
    """A TCP relay in front of the store that counts the bytes clients send through it."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.sent = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self._listener.accept()
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, count: bool) -> None:
        try:
            while data := source.recv(65536):
                if count:
                    with self._lock:
                        self.sent += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)


def make_bucket(endpoint: str) -> str:
    import boto3

    name = f"bench-{uuid.uuid4().hex[:12]}"
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        region_name=CREDENTIALS["AWS_DEFAULT_REGION"],
    ).create_bucket(Bucket=name)
    return f"s3://{name}"


def reader_rules(letter: str) -> str:
    answer = {"pattern": r"Answer: \(X\)", "response": f"Answer: ({letter})"}
    return json.dumps({"rules": [*READER, answer], "default": SUMMARY})


def plan(
    log_dir: str,
    readers: list[tuple[str, str]],
    *,
    latency: float,
    book: bool,
    strategies: list[str],
    **settings: Any,
) -> str:
    tasks: list[dict[str, Any]] = [
        {"task": "quality", "args": {"data": str(DATA)}, "variants": {"strategy": strategies}}
    ]
    if book:
        tasks.append(
            {
                "task": "booookscore",
                "name": "book",
                "args": {"strategy": "hierarchical", "chunk_size": 512},
                "samples": ["the_frost_hold"],
            }
        )
    judge = json.dumps({"rules": [], "default": "No confusion."})
    return json.dumps(
        {
            "name": "bench",
            "log_dir": log_dir,
            "models": [
                {"model": f"scripted/{n}", "args": {"rules": reader_rules(x), "latency": latency}}
                for n, x in readers
            ],
            "judge": {"model": "scripted/judge", "mode": "sentence", "args": {"rules": judge}},
            "tasks": tasks,
            **settings,
        }
    )


def one_reader(store: str, latency: float, **settings: Any) -> str:
    """A plan of one cell: the scripted reader `alpha` on QuALITY with the whole article."""
    return plan(
        store, [("alpha", "B")], latency=latency, book=False, strategies=["full"], **settings
    )


class Runner:
    """Starts `longform run` processes, each as a machine of its own (its own cache)."""

    def __init__(self, work: Path, env: dict[str, str], source: Path | None = None) -> None:
        self.work, self.env, self.source = work, env, source
        self.cache = work
        """The Inspect cache of the process started last."""

    def start(self, plan_file: Path, *extra: str) -> subprocess.Popen[str]:
        cache = self.cache = self.work / f"cache-{uuid.uuid4().hex[:8]}"
        env = {**self.env, "INSPECT_CACHE_DIR": str(cache), "INSPECT_DISPLAY": "none"}
        if self.source is not None:  # the package as it was at the baseline revision
            env["PYTHONPATH"] = str(self.source / "src")
        command = [sys.executable, "-m", "longform_evals.cli", "run", str(plan_file), *extra]
        return subprocess.Popen(
            command,
            env=env,
            cwd=self.work,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def write(self, name: str, text: str) -> Path:
        path = self.work / name
        path.write_text(text, encoding="utf-8")
        return path


def log_headers(location: str) -> list[Any]:
    from inspect_ai.log import list_eval_logs, read_eval_log

    try:
        infos = list_eval_logs(location)
    except FileNotFoundError:
        return []
    return [read_eval_log(i, header_only=True) for i in infos]


def owners(store: str) -> list[int]:
    """Cells each process ran (workers included), read from the claims in the store: the
    owner of each cell's last claim, most first."""
    from longform_evals.log_store import list_names
    from longform_evals.runs.claims import Claims

    claims = Claims(store)
    counts: dict[int, int] = {}
    for cell in list_names(claims.root):
        found = claims.current(cell)
        claim = found[1] if found is not None else None
        if claim is not None:
            counts[claim.owner.pid] = counts.get(claim.owner.pid, 0) + 1
    return sorted(counts.values(), reverse=True)


def grid(
    runner: Runner, store: str, processes: int, latency: float, old: bool, max_tasks: int = 1
) -> dict[str, Any]:
    """Part 1: the 3 x 3 plan by ``processes`` processes at once."""
    readers = [("alpha", "B"), ("beta", "A"), ("gamma", "C")]
    # one sample at a time: a cell's time is its calls' latency, as with a real model, not
    # the few seconds an eval set takes to start and write its log
    text = plan(
        store,
        readers,
        latency=latency,
        book=True,
        strategies=["full", "read_agent_p"],
        max_samples=1,
        max_tasks=max_tasks,
    )
    plan_file = runner.write(f"grid-{uuid.uuid4().hex[:6]}.yaml", text)
    started = time.monotonic()
    children = [runner.start(plan_file) for _ in range(processes)]
    for child in children:
        child.communicate()
    wall = time.monotonic() - started
    headers = log_headers(store)
    cells: dict[tuple[str, str], int] = {}
    for h in headers:
        meta = (h.eval.metadata or {}).get("longform_plan") or {}
        key = (str(meta.get("variant")), h.eval.model)
        cells[key] = cells.get(key, 0) + 1
    per_process = owners(store) if not old else [len(cells)] * processes
    return {
        "wall": wall,
        "per_process": per_process,
        "twice": sum(1 for n in cells.values() if n > 1),
        "logs": len(headers),
        "codes": [c.returncode for c in children],
    }


def samples_in(store: str) -> dict[str, str]:
    from inspect_ai.log import list_eval_logs, read_eval_log_sample_summaries

    found: dict[str, str] = {}
    try:
        infos = list_eval_logs(store)
    except FileNotFoundError:
        return found
    for info in infos:
        try:
            for s in read_eval_log_sample_summaries(info.name):
                if s.uuid:
                    found[str(s.id)] = s.uuid
        except Exception:  # a log being written
            continue
    return found


def many_questions(folder: Path, copies: int = 7) -> Path:
    """The QuALITY fixture's articles repeated under new ids: a cell of 42 questions, enough
    that Inspect's default holds finished samples back (10 at a time) before writing them."""
    lines = DATA.read_text(encoding="utf-8").splitlines()
    out = folder / "quality_42.jsonl"
    records = []
    for copy in range(copies):
        for line in lines:
            record = json.loads(line)
            record["article_id"] = f"{record['article_id']}-{copy}"
            records.append(json.dumps(record))
    out.write_text("\n".join(records) + "\n", encoding="utf-8")
    return out


def calls_made(cache: Path) -> int:
    """Calls a process finished, as entries of its Inspect cache (a QuALITY sample is one)."""
    return sum(1 for p in (cache / "generate").rglob("*") if p.is_file()) if cache.exists() else 0


def kill_and_resume(runner: Runner, store: str, latency: float) -> dict[str, Any]:
    """Part 2: a cell of 42 questions killed once 3 have finished (3 calls in the killed
    process's cache), resumed by another process with an empty cache. Repeated: those of the 3
    or more finished samples that the final log does not hold from the killed run."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    text = one_reader(store, latency, max_samples=1)
    data = many_questions(runner.work)
    plan_file = runner.write(
        "resume.yaml", text.replace(json.dumps(str(DATA)), json.dumps(str(data)))
    )
    first = runner.start(plan_file)
    cache = runner.cache
    deadline = time.monotonic() + 300
    while calls_made(cache) < 3 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    time.sleep(latency / 2)  # the third sample is scored and handed to the log
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    finished = calls_made(cache)
    before = samples_in(store)
    second = runner.start(plan_file)
    second.communicate()
    final = [read_eval_log(i) for i in list_eval_logs(store)]
    done = [log for log in final if log.status == "success"]
    samples = done[0].samples or [] if done else []
    reused = sum(1 for s in samples if before.get(str(s.id)) == s.uuid)
    return {
        "finished_before_kill": finished,
        "in_store": len(before),
        "repeated": max(0, finished - reused),
        "final_samples": len(samples),
        "resumed_ok": second.returncode == 0,
    }


def spend(
    runner: Runner, store: str, budget: int, max_samples: int, latency: float
) -> dict[str, Any]:
    """Part 3: tokens spent under ``budget`` at ``max_samples``."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import list_eval_logs, read_eval_log

    text = one_reader(store, latency, max_samples=max_samples, budget={"tokens": budget})
    child = runner.start(runner.write(f"budget-{max_samples}.yaml", text))
    child.communicate()
    logs = [read_eval_log(i) for i in list_eval_logs(store)]
    spent = sum(
        u.input_tokens + u.output_tokens for log in logs for u in log.stats.model_usage.values()
    )
    calls = [
        e.output.usage.input_tokens + e.output.usage.output_tokens
        for log in logs
        for s in log.samples or []
        for e in s.events
        if isinstance(e, ModelEvent) and e.output.usage
    ]
    samples = [s for log in logs for s in log.samples or []]
    refused = sum(1 for s in samples if s.error and "budget exhausted" in s.error.message)
    return {
        "spent": spent,
        "largest_call": max(calls, default=0),
        "refused": refused,
        "scored": len(samples) - sum(1 for s in samples if s.error),
        "code": child.returncode,
    }


def upload_cost(
    runner: Runner, store: str, relay: Relay, log_buffer: int, latency: float
) -> dict[str, Any]:
    """Part 4: bytes sent to the store for one cell of 6 samples."""
    text = one_reader(store, latency, log_buffer=log_buffer, max_samples=1)
    plan_file = runner.write(f"buffer-{log_buffer}.yaml", text)
    start = relay.sent
    began = time.monotonic()
    runner.start(plan_file).communicate()
    wall = time.monotonic() - began
    size = 0
    import fsspec

    fs, _ = fsspec.core.url_to_fs(store)
    for path in fs.find(store.removeprefix("s3://")):
        if path.endswith(".eval"):
            size += fs.size(path)
    return {"sent": relay.sent - start, "log_size": size, "wall": wall}


@contextmanager
def baseline_tree(revision: str | None) -> Iterator[Path | None]:
    if revision is None:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="baseline-"))
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(folder), revision],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    try:
        yield folder
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(folder)], cwd=REPO, capture_output=True
        )


@dataclass
class Bench:
    """What every part needs: the runners (now, and the baseline's when asked), the store."""

    runner: Runner
    old: Runner | None
    endpoint: str
    relay: Relay
    work: Path
    latency: float

    def store(self, name: str) -> str:
        return f"{make_bucket(self.endpoint)}/{name}"


def part_grid(bench: Bench) -> None:
    print("## 1. A 3 x 3 plan, one process against two sharing the store\n")
    print("| code | processes | store | wall s | cells run per process | cells run twice | logs |")
    print("|---|---|---|---|---|---|---|")
    rows: list[tuple[str, int, str, dict[str, Any]]] = []
    if bench.old is not None:
        for n in (1, 2):
            folder = str(bench.work / f"old-grid-{n}")
            rows.append(
                ("before", n, "local folder", grid(bench.old, folder, n, bench.latency, True))
            )
    local = grid(bench.runner, str(bench.work / "grid-local"), 1, bench.latency, False)
    rows.append(("now", 1, "local folder", local))
    for n in (1, 2):
        rows.append(
            ("now", n, "s3://", grid(bench.runner, bench.store("grid"), n, bench.latency, False))
        )
    tasks = grid(bench.runner, bench.store("grid"), 1, bench.latency, False, max_tasks=3)
    rows.append(("now", 1, "s3://, max_tasks 3", tasks))
    one = next(r for c, n, w, r in rows if c == "now" and n == 1 and w == "s3://")
    two = next(r for c, n, w, r in rows if c == "now" and n == 2)
    for code, n, where, r in rows:
        runs = ", ".join(map(str, r["per_process"]))
        print(f"| {code} | {n} | {where} | {r['wall']:.1f} | {runs} | {r['twice']} | {r['logs']} |")
    print(f"\ntwo processes take {two['wall'] / one['wall']:.2f}x the wall time of one\n")


def part_resume(bench: Bench) -> None:
    print("## 2. A cell of 42 samples killed after 3, resumed in another process (empty cache)\n")
    print(
        "| code | store | finished before the kill | in the store at the kill "
        "| repeated after the resume | in the final log |"
    )
    print("|---|---|---|---|---|---|")
    runs = [("now", "s3://", bench.runner, bench.store("resume"))]
    if bench.old is not None:
        runs.insert(0, ("before", "local folder", bench.old, str(bench.work / "old-resume")))
    for code, where, runner, store in runs:
        k = kill_and_resume(runner, store, bench.latency)
        print(
            f"| {code} | {where} | {k['finished_before_kill']} | {k['in_store']} "
            f"| {k['repeated']} | {k['final_samples']} |"
        )
    print()


def part_budget(bench: Bench, budget: int) -> None:
    print(f"## 3. A budget of {budget:,} tokens over 6 QuALITY questions\n")
    print("| code | max_samples | spent | over budget | largest call | scored | refused | exit |")
    print("|---|---|---|---|---|---|---|---|")
    for code, runner in (("before", bench.old), ("now", bench.runner)):
        if runner is None:
            continue
        for m in (1, 5, 20):
            where = str(bench.work / f"old-budget-{m}") if code == "before" else bench.store("b")
            s = spend(runner, where, budget, m, bench.latency)
            print(
                f"| {code} | {m} | {s['spent']:,} | {max(0, s['spent'] - budget):,} "
                f"| {s['largest_call']:,} | {s['scored']} | {s['refused']} | {s['code']} |"
            )


def part_upload(bench: Bench) -> None:
    print("\n## 4. Bytes sent to the store for one cell of 6 samples\n")
    print("| log_buffer | bytes sent | final log bytes | ratio | wall s |")
    print("|---|---|---|---|---|")
    for b in (1, 10, 100):
        u = upload_cost(bench.runner, bench.store("buffer"), bench.relay, b, bench.latency)
        ratio = u["sent"] / max(1, u["log_size"])
        print(f"| {b} | {u['sent']:,} | {u['log_size']:,} | {ratio:.1f}x | {u['wall']:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per scripted call")
    parser.add_argument("--budget", type=int, default=2000, help="tokens of part 3's budget")
    parser.add_argument("--baseline", default=None, help="git revision to compare with")
    args = parser.parse_args()

    port = free_port()
    moto = start_moto(port)
    relay = Relay(port)
    endpoint = f"http://127.0.0.1:{relay.port}"
    env = {**os.environ, **CREDENTIALS, "AWS_ENDPOINT_URL": endpoint}
    os.environ.update(CREDENTIALS, AWS_ENDPOINT_URL=endpoint)
    work = Path(tempfile.mkdtemp(prefix="plan-at-scale-"))
    try:
        with baseline_tree(args.baseline) as old_tree:
            old = Runner(work, env, old_tree) if old_tree else None
            bench = Bench(Runner(work, env), old, endpoint, relay, work, args.latency)
            part_grid(bench)
            part_resume(bench)
            part_budget(bench, args.budget)
            part_upload(bench)
    finally:
        moto.terminate()
        moto.wait()


if __name__ == "__main__":
    main()
