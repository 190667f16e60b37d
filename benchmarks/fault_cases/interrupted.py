"""Runs interrupted by a real signal and retried, and model files changed under their check.

Interrupted: a judged run (the evaluated model writes, a judge of the package reads through
``grader_model``) is killed with SIGKILL or SIGTERM while its second sample is being judged,
then ``inspect eval-retry`` finishes it. Each case varies the signal, how the judge is chosen
(the unbound ``grader`` role falling back to the evaluated model, the role bound to the same
model, a judge named by the scorer) and how many samples ran before. ``loaded``: every sample
of the final log keeps its own output; ``silent``: one has another text (the judge's answer).

Model files: a model file checked once, then one byte changed at a seeded offset with size and
mtime restored; the next load must refuse it (``error``), not load it (``silent``).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

from fault_cases._case import Case

CLASS = "interrupted"
DESCRIPTION = (
    "runs killed (SIGKILL/SIGTERM) while judging, then retried; model files changed with "
    "size and mtime restored"
)

TASK = textwrap.dedent(
    """
    import os
    from pathlib import Path

    import anyio
    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Score, Target, mean, scorer
    from inspect_ai.model import get_model
    from inspect_ai.solver import TaskState, generate

    from longform_evals.models.grader import grader_model

    FLAGS = Path(os.environ["FLAGS"])
    JUDGE = os.environ.get("JUDGE") or None
    RULES = os.environ["RULES"]


    @scorer(metrics=[mean()])
    def judged():
        async def score(state: TaskState, target: Target) -> Score:
            judge = grader_model(get_model(JUDGE, rules=RULES) if JUDGE else None)
            answer = await judge.generate("Judge this text: " + state.output.completion)
            done = len(list(FLAGS.glob("scored-*")))
            if done == int(os.environ["BEFORE"]) and not (FLAGS / "blocked").exists():
                (FLAGS / "blocked").write_text(str(state.sample_id))
                await anyio.sleep(3600)  # this sample waits here for the signal
            (FLAGS / f"scored-{state.sample_id}").touch()
            return Score(value=1.0, answer=answer.completion)

        return score


    @task
    def interrupted(samples: int = 2):
        names = [f"s{i}" for i in range(samples)]
        dataset = [Sample(id=name, input=f"Summarize: {name}") for name in names]
        return Task(dataset=dataset, solver=generate(), scorer=judged())
    """
)

RULES = {
    "rules": [{"pattern": r"Summarize: (\w+)", "response": r"The summary of \1."}],
    "default": "Yes, partially",
}


def _inspect(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def killed_and_retried(
    folder: Path, sig: signal.Signals, *, judge: str = "", bind: bool = False, before: int = 1
) -> dict[str, str]:
    """Run the judged task, send ``sig`` while sample ``before`` is judged, retry the log;
    return each sample's output in the final log."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    (folder / "task.py").write_text(TASK, encoding="utf-8")
    (folder / "rules.json").write_text(json.dumps(RULES), encoding="utf-8")
    flags = folder / "flags"
    flags.mkdir()
    env = {**os.environ, "FLAGS": str(flags), "JUDGE": judge, "BEFORE": str(before)}
    env["RULES"] = str(folder / "rules.json")
    env["INSPECT_DISPLAY"] = "none"
    model = ["--model", "scripted/x", "-M", f"rules={folder / 'rules.json'}"]
    if bind:
        role = {"model": "scripted/x", "model_args": {"rules": str(folder / "rules.json")}}
        model += ["--model-role", f"grader={json.dumps(role)}"]
    args = ["eval", "task.py", *model, "-T", f"samples={before + 1}", "--max-samples", "1"]
    run = _inspect([*args, "--log-buffer", "100", "--log-dir", "logs"], folder, env)
    deadline = time.monotonic() + 120
    while not (flags / "blocked").exists():
        if run.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the run never reached its judge: {run.communicate()[0][-300:]}")
        time.sleep(0.2)
    os.killpg(run.pid, sig)
    run.communicate(timeout=60)
    [killed] = list_eval_logs(str(folder / "logs"))
    retry = _inspect(["eval-retry", killed.name, "--log-dir", "retried"], folder, env)
    out = retry.communicate(timeout=180)[0]
    if retry.returncode != 0:
        raise RuntimeError(f"eval-retry failed: {out[-300:]}")
    finals = [read_eval_log(info) for info in list_eval_logs(str(folder))]
    final = next(log for log in finals if log.status == "success")
    return {str(s.id): s.output.completion for s in final.samples or []}


def _interrupted(sig: signal.Signals, judge: str, bind: bool, before: int, folder: Path) -> str:
    outputs = killed_and_retried(folder, sig, judge=judge, bind=bind, before=before)
    expected = {f"s{i}": f"The summary of s{i}." for i in range(before + 1)}
    return "loaded" if outputs == expected else "silent"


def _model_file(offset_share: float, folder: Path) -> str:
    from longform_evals.models.gguf_files import ModelFileError, verify_file

    content = b"GGUF" + random.Random(7).randbytes(24 << 20)  # wider than a sampled check
    path = folder / "m.gguf"
    path.write_bytes(content)
    digest = hashlib.sha256(content).hexdigest()
    verify_file(path, digest)  # a first, good check
    stat = path.stat()
    data = bytearray(content)
    data[int(offset_share * (len(data) - 1))] ^= 0x5A
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    try:
        verify_file(path, digest)
    except ModelFileError:
        return "error"
    return "silent"


def cases() -> list[Case]:
    found: list[Case] = []
    setups = [("unbound", "", False), ("bound", "", True), ("named", "scripted/x", False)]
    for sig in (signal.SIGKILL, signal.SIGTERM):
        for label, judge, bind in setups:
            for before in (1, 2):
                name = f"{sig.name}-{label}-after-{before}"
                run = partial(_interrupted, sig, judge, bind, before)
                found.append(Case(name, run, timeout=300))
    shares = random.Random(49).sample(range(1, 1000), 10)
    for share in sorted(shares):
        name = f"model-file-byte-at-{share / 1000:.3f}"
        found.append(Case(name, partial(_model_file, share / 1000)))
    return found
