"""Kill a hierarchical-merging run half-way, retry it, and count the model calls of both runs.

    python benchmarks/resume_after_kill.py --model gguf/smollm2-135m \
        [--book the_frost_hold] [--chunk-size 512] [--kill-after 8] [--log-dir DIR]

Runs `inspect eval tasks/booookscore.py` on one bundled book in a child process with a fresh
Inspect cache, kills the child (SIGKILL, no clean-up) once `--kill-after` model calls have
finished, then runs `inspect eval-retry` on the log it left. The summarizer caches every
call by default (`-T cache=true`), so the retried sample reads the killed run's calls back
and makes only the rest. The script prints the calls of each run and how many were repeated
(a call is repeated when the retry had to make it again instead of reading it): 0 is the
expected figure. `-M key=value` passes model arguments, `-T key=value` task arguments (e.g.
`-T strategy=incremental`); the scripted test model needs a
latency to be killable half-way (`--model scripted/x -M latency=0.3 -M rules=rules.json`).
"""

from __future__ import annotations

import argparse
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

REPO = Path(__file__).resolve().parent.parent
TASK_FILE = "tasks/booookscore.py"


def _complete(entry: Path) -> bool:
    try:
        with entry.open("rb") as f:
            pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError):
        return False
    return True


def cache_entries(cache_dir: Path) -> tuple[int, int]:
    """(complete, cut off) entries of an Inspect cache folder (one file per call).

    Inspect writes an entry in place, so a run killed while writing one leaves a file that does
    not load: that call did not finish, and the retry has to make it (it is not a repeat).
    """
    files = [p for p in (cache_dir / "generate").rglob("*") if p.is_file()]
    complete = sum(1 for p in files if _complete(p))
    return complete, len(files) - complete


def cached_calls(cache_dir: Path) -> int:
    """Complete calls stored in an Inspect cache folder."""
    return cache_entries(cache_dir)[0]


def inspect_command() -> list[str]:
    """The `inspect` command of the running interpreter's environment."""
    return [str(Path(sys.executable).with_name("inspect"))]


def run_until_killed(command: list[str], env: dict[str, str], cache_dir: Path, calls: int) -> int:
    """Start the eval, SIGKILL it once `calls` calls are cached; return the calls it made.

    Raises:
        RuntimeError: If the eval ends by itself before reaching `calls` calls.
    """
    child = subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    while cached_calls(cache_dir) < calls:
        if child.poll() is not None:
            output = child.stdout.read().decode(errors="replace") if child.stdout else ""
            raise RuntimeError(
                f"the run ended (exit {child.returncode}) after {cached_calls(cache_dir)} "
                f"calls, before --kill-after={calls}; use a smaller value\n{output[-2000:]}"
            )
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    return cached_calls(cache_dir)


def model_events(log: EvalLog) -> tuple[int, int]:
    """(calls read from the cache, calls made) over the log's samples."""
    read = made = 0
    for sample in log.samples or []:
        for event in sample.events:
            if event.event == "model":
                if event.cache == "read":
                    read += 1
                else:
                    made += 1
    return read, made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gguf/smollm2-135m")
    parser.add_argument("-M", dest="model_args", action="append", default=[])
    parser.add_argument("-T", dest="task_args", action="append", default=[])
    parser.add_argument("--book", default="the_frost_hold")
    parser.add_argument("--chunk-size", type=int, default=512)
    parser.add_argument("--kill-after", type=int, default=8)
    parser.add_argument("--log-dir", default=None)
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="resume-after-kill-"))
    cache_dir = work / "inspect-cache"
    log_dir = Path(args.log_dir) if args.log_dir else work / "logs"
    env = {**os.environ, "INSPECT_CACHE_DIR": str(cache_dir), "INSPECT_DISPLAY": "plain"}
    eval_args = [
        "eval",
        TASK_FILE,
        "--model",
        args.model,
        "--sample-id",
        args.book,
        "-T",
        f"chunk_size={args.chunk_size}",
        "--log-dir",
        str(log_dir),
    ]
    for pair in args.model_args:
        eval_args += ["-M", pair]
    for pair in args.task_args:
        eval_args += ["-T", pair]

    started = time.perf_counter()
    killed_calls = run_until_killed(inspect_command() + eval_args, env, cache_dir, args.kill_after)
    killed_at = time.perf_counter() - started
    cut_off = cache_entries(cache_dir)[1]
    [killed_log] = list_eval_logs(str(log_dir))
    status = read_eval_log(killed_log, header_only=True).status

    retry = subprocess.run(
        [*inspect_command(), "eval-retry", killed_log.name, "--log-dir", str(log_dir)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if retry.returncode != 0:
        print(retry.stdout[-2000:], retry.stderr[-2000:], file=sys.stderr)
        return 1
    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    retried = next(log for log in logs if log.status == "success")
    read, made = model_events(retried)
    [sample] = retried.samples or []
    summarizer_calls = int(sample.metadata["summary_stats"]["calls"])
    judged = (sample.scores or {}).get("booookscore")
    judge_calls = (
        int(judged.value["judge_calls"]) if judged and isinstance(judged.value, dict) else 0
    )
    repeated = killed_calls - read

    print(f"book {args.book}, chunks of {args.chunk_size} tokens, model {args.model}")
    print(
        f"killed run: {killed_calls} calls finished, killed after {killed_at:.1f} s "
        f"(log left with status '{status}'; {cut_off} cache entries cut off by the kill)"
    )
    print(
        f"retried run: {read} calls read from the cache, {made - judge_calls} summarizer "
        f"calls and {judge_calls} judge calls made"
    )
    print(
        f"summarizer calls of the sample: {summarizer_calls} "
        f"(= {killed_calls} before the kill + {made - judge_calls} after)"
    )
    print(f"calls repeated: {repeated}")
    print(f"logs: {log_dir}")
    return 0 if repeated == 0 and read + made - judge_calls == summarizer_calls else 1


if __name__ == "__main__":
    sys.exit(main())
