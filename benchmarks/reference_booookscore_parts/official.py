"""The official side: one measured run of driver.py in the reference env per scoring or
summarizing run, read back as a Run."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import reference_env

from .common import OFFICIAL_FILES, STRATEGIES, Endpoint, Options, Run, Usage
from .verdicts import official_verdicts

# The official package's run, a script for the reference env's interpreter.
DRIVER = Path(__file__).resolve().with_name("driver.py")
# `ReferenceEnv.run` takes a snippet or a module: the snippet runs the script by path, with
# CONFIG and OUT as sys.argv[1:] and the run's cwd first on sys.path (as `python -c` sets it).
RUN_DRIVER = f"import runpy; runpy.run_path({str(DRIVER)!r}, run_name='__main__')"


def official_run(
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    work: Path,
    settings: Mapping[str, Any],
    prompts: Mapping[str, Path] | None = None,
    timeout: float = 1800,
) -> dict[str, Any]:
    """One run of driver.py in `work` (its cwd, where `prompts/` is laid out as the
    package opens it); returns what it wrote."""
    work.mkdir(parents=True, exist_ok=True)
    for role, path in (prompts or {}).items():
        if "/" in role:  # Summarizer opens prompts/get_summaries_*/... relative to its cwd
            target = work / "prompts" / OFFICIAL_FILES[role][0]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    key = work / "key.txt"  # APIClient wants a key file; the local server asks no key
    key.write_text("local")
    config = {
        "base_url": endpoint.base_url,
        "model": endpoint.alias,
        "key_path": str(key),
        "temperature": 0.0,
        "max_attempts": 3,
        "max_sleeps": 50,
        "batch_size": 10,
        **settings,
    }
    (work / "config.json").write_text(json.dumps(config))
    start = time.perf_counter()
    try:
        env.run(
            RUN_DRIVER,
            args=[str(work / "config.json"), str(work / "out.json")],
            cwd=work,
            timeout=timeout,
        )
    except (subprocess.TimeoutExpired, reference_env.ReferenceEnvError) as exc:
        # A run cut short or crashed still reports the calls it made.
        log = work / "calls.jsonl"
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []
        why = (
            f"stopped after {timeout:.0f} s"
            if isinstance(exc, subprocess.TimeoutExpired)
            else str(exc)[-600:]
        )
        return {
            "calls": calls,
            "requested_temperatures": {},
            "sleeps": [],
            "verdicts": [],
            "seconds": time.perf_counter() - start,
            "error": why,
        }
    result: dict[str, Any] = json.loads((work / "out.json").read_text())
    return result


def run_official_scorer(
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    options: Options,
    template: Path,
    summary_id: str,
    summary: str,
    v2: bool,
    work: Path,
) -> Run:
    out = official_run(
        env,
        endpoint,
        work,
        {
            "mode": "score",
            "v2": v2,
            "template": str(template),
            "book": summary_id,
            "summary": summary,
            "batch_size": options.batch_size,
            "max_attempts": options.max_attempts,
        },
    )
    return official_scoring_run(out, v2)


def official_scoring_run(out: Mapping[str, Any], v2: bool) -> Run:
    """The Run of what the driver wrote for a scoring run."""
    return Run(
        name="official v2 (batched)" if v2 else "official v1 (per sentence)",
        seconds=out.get("seconds", math.nan),
        usage=Usage.of_official(out["calls"]),
        booookscore=out.get("booookscore", math.nan),
        verdicts=official_verdicts(out),
        notes={
            "requested_temperatures": out["requested_temperatures"],
            "sleeps_skipped_s": sum(out["sleeps"]),
            "guards": dict(Counter(out.get("guards", []))),
        },
        error=out["error"],
    )


def run_official_summarizer(
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    options: Options,
    prompts: Mapping[str, Path],
    text: str,
    strategy: str,
    work: Path,
) -> Run:
    out = official_run(
        env,
        endpoint,
        work,
        {
            "mode": "summarize",
            "method": STRATEGIES[strategy],
            "book": options.book,
            "text": text,
            "chunk_size": options.chunk_size,
            "context_window": options.context_window,
            "max_summary_tokens": options.max_summary_tokens,
        },
        prompts,
    )
    return Run(
        name=f"official {strategy}",
        seconds=out.get("seconds", math.nan),
        usage=Usage.of_official(out["calls"]),
        summary=out.get("summary", ""),
        notes={
            "requested_temperatures": out["requested_temperatures"],
            "sleeps_skipped_s": sum(out["sleeps"]),
            "guards": dict(Counter(out.get("guards", []))),
            "chunks": out.get("chunks"),
            "steps": out.get("steps"),
        },
        error=out["error"],
    )
