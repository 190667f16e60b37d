"""Every judge and strategy through Inspect's OpenAI-compatible provider against `longform
serve` (llama.cpp's HTTP server on 127.0.0.1), with the smallest packaged model (slow).

The answers of a 135M model say nothing about summaries; what is checked is the path: each
task finishes, the judges' settings reach the server (temperature, token cap, log-probabilities)
and they read log-probabilities over HTTP (not a fallback to words), an uncalibrated judge is
announced, and the `openai` provider, refusing log-probabilities or dropping the temperature,
stops the run with one short error naming the fix.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model

from helpers import environment, needs_smollm2

pytestmark = [pytest.mark.slow, needs_smollm2]

REPO = Path(__file__).resolve().parents[2]
SERVICE = "longform"
MODEL = "smollm2-135m"
SERVED = f"openai-api/{SERVICE}/{MODEL}"
BOOOKSCORE = "longform_evals/booookscore"
FIXTURES = REPO / "src" / "longform_evals" / "data" / "reading"
SUMMARY = (
    "Mara, a lighthouse keeper, finds a drowned sailor on the rocks after a storm. She hides "
    "his logbook from the harbour master. The logbook names a ship that sank forty years ago. "
    "Mara sails to the wreck with her brother and finds the ship's bell."
)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A server of the smallest packaged model on a free port; its base URL."""
    from longform_evals.models.serve import ServedModel, ServeSettings

    with (
        ServedModel(ServeSettings(MODEL, port=0, n_ctx=8192)) as served,
        environment({"LONGFORM_BASE_URL": served.base_url, "LONGFORM_API_KEY": "local"}),
    ):
        yield served.base_url


@pytest.fixture
def summaries(tmp_path: Path) -> Path:
    path = tmp_path / "summaries.jsonl"
    path.write_text(json.dumps({"id": "keeper", "summary": SUMMARY}) + "\n", encoding="utf-8")
    return path


def _run(task: str, tmp_path: Path, model: str = SERVED, **args: Any) -> EvalLog:
    [log] = inspect_eval(
        task,
        model=get_model(model, memoize=False),
        task_args=args,
        log_dir=str(tmp_path / "logs"),
        limit=1,
        display="none",
    )
    return log


def _model_events(log: EvalLog) -> list[Any]:
    assert log.samples
    return [e for s in log.samples for e in s.events if e.event == "model"]


def _requests(log: EvalLog) -> list[dict[str, Any]]:
    """The requests Inspect recorded for the log's model calls (what reached the server)."""
    return [e.call.request for e in _model_events(log) if e.call is not None]


def _warnings(log: EvalLog) -> list[str]:
    assert log.samples
    return [
        e.message.message
        for s in log.samples
        for e in s.events
        if e.event == "logger" and e.message.level == "warning"
    ]


@pytest.mark.parametrize("mode", ["probe", "sentence", "batched"])
def test_booookscore_judges_over_http(
    server: str, summaries: Path, tmp_path: Path, mode: str
) -> None:
    log = _run(
        BOOOKSCORE,
        tmp_path,
        score_only=True,
        data=str(summaries),
        judge_mode=mode,
        judge_cache=False,
    )
    assert log.status == "success", log.error
    assert log.samples
    [score] = [s for name, s in log.samples[0].scores.items() if name == "booookscore"]  # type: ignore[union-attr]
    assert isinstance(score.value, dict) and score.value["judge_calls"] > 0
    metadata = score.metadata or {}
    assert metadata["mode"] == mode
    # What reached the server: the judge's temperature and token cap, as the call path checks.
    requests = _requests(log)
    assert requests and all(r["temperature"] == 0.0 and r["max_tokens"] for r in requests)
    if mode == "probe":
        assert all(r["logprobs"] is True for r in requests)
        # Read from log-probabilities over HTTP, never from the words: no fallback.
        assert metadata["answers_read_from"].get("logprobs", 0) > 0, metadata["answers_read_from"]
        assert "text" not in metadata["answers_read_from"]
        assert all(e.output.choices[0].logprobs for e in _model_events(log))
        # The packaged name, served: the packaged model's (missing) calibration, announced.
        assert metadata["calibration"].startswith("uncalibrated")
        assert any("has no calibration" in w for w in _warnings(log))


def test_faithfulness_judge_reads_p_yes_over_http(
    server: str, tmp_path: Path, shared_data: Path
) -> None:
    log = _run(
        "longform_evals/longformfact",
        tmp_path,
        data_dir=str(shared_data / "longformfact" / "metric_benchmark"),
        subsets="multinews",
        ranking="lexical",
    )
    assert log.status == "success", log.error
    events = _model_events(log)
    assert events and all(e.output.choices[0].logprobs for e in events)
    assert log.samples
    score = log.samples[0].scores["faithfulness"]  # type: ignore[index]
    assert isinstance(score.value, dict) and score.value["judge_calls"] > 0


def test_read_agent_and_raters_over_http(server: str, tmp_path: Path) -> None:
    quality = _run(
        "longform_evals/quality",
        tmp_path,
        data=str(FIXTURES / "quality_fixture.jsonl"),
        strategy="read_agent_p",
        max_pages=1,
    )
    assert quality.status == "success", quality.error
    assert len(_model_events(quality)) >= 3  # pagination, gists, look-up, answer
    narrative = _run(
        "longform_evals/narrativeqa",
        tmp_path,
        data=str(FIXTURES / "narrativeqa_fixture.jsonl"),
        strategy="full",
    )
    assert narrative.status == "success", narrative.error
    assert narrative.samples
    rated = narrative.samples[0].scores["llm_raters"]  # type: ignore[index]
    assert isinstance(rated.value, dict) and "lr1" in rated.value


def test_the_openai_provider_stops_a_judge_with_one_short_error_naming_the_fix(
    server: str, summaries: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    args = {"score_only": True, "data": str(summaries), "judge_mode": "probe"}
    # The Responses API: the server refuses log-probabilities (HTTP 400).
    refused = _run(BOOOKSCORE, tmp_path, model=f"openai/{MODEL}", judge_cache=False, **args)
    assert refused.status == "error" and refused.error is not None
    message = refused.error.message
    assert "LogprobsRefusedError" in message and "openai-api/<service>/<model>" in message
    assert "responses_api" not in message and len(message) < 600, message
    # Chat completions, but the unknown name is taken for a reasoning model: no temperature.
    [dropped] = inspect_eval(
        BOOOKSCORE,
        model=get_model(f"openai/{MODEL}", responses_api=False, memoize=False),
        task_args={**args, "judge_cache": False},
        log_dir=str(tmp_path / "dropped"),
        display="none",
    )
    assert dropped.status == "error" and dropped.error is not None
    message = dropped.error.message
    assert "JudgeSettingsError" in message and "temperature=0.0 asked" in message
    assert "openai-api/<service>/<model>" in message and len(message) < 600, message
    assert len(_model_events(dropped)) < 186  # the probe judge's other calls were cancelled


def test_auto_mode_through_the_openai_provider_says_it_changed_the_method(
    server: str, summaries: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    # The packaged model through the Responses API, which refuses log-probabilities: not the
    # probe method its name calls for, but the paper's sentence method, said and recorded.
    log = _run(BOOOKSCORE, tmp_path, model=f"openai/{MODEL}", score_only=True, data=str(summaries))
    assert log.status == "success", log.error
    assert log.samples
    metadata = log.samples[0].scores["booookscore"].metadata or {}  # type: ignore[index]
    assert metadata["mode"] == "sentence" and "no log-probabilities" in metadata["mode_note"]
    assert sum("auto mode asks the judge" in w for w in _warnings(log)) == 1


def _documented_serve_block() -> list[str]:
    """The commands of docs/running.md's "Served and API models" section, in order."""
    text = (REPO / "docs" / "running.md").read_text(encoding="utf-8")
    section = text.split("## Served and API models", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_documented_serve_commands(tmp_path: Path) -> None:
    """The documented lines, run as written but for the model (the smallest packaged one) and
    the port (a free one): the server in the background, its variables, then Inspect."""
    serve, export, evaluate = _documented_serve_block()
    assert serve.startswith("longform serve ") and export.startswith("export ")
    bin_dir = Path(sys.executable).parent
    argv = shlex.split(serve.replace("qwen2.5-coder-1.5b", MODEL).replace("8080", "0"))
    proc = subprocess.Popen(
        [str(bin_dir / argv[0]), *argv[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+/v1)", first)
        assert url, first
        env = dict(os.environ)
        for assignment in shlex.split(export)[1:]:
            key, _, value = assignment.partition("=")
            env[key] = value.replace("http://127.0.0.1:8080/v1", url.group(1))
        (tmp_path / "tasks").symlink_to(REPO / "tasks")
        (tmp_path / "summaries.jsonl").write_text(
            json.dumps({"id": "keeper", "summary": SUMMARY}) + "\n", encoding="utf-8"
        )
        command = shlex.split(evaluate.replace("qwen2.5-coder-1.5b", MODEL))
        done = subprocess.run(
            [str(bin_dir / command[0]), *command[1:], "--log-dir", "logs", "--display", "plain"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "WARNING" in done.stdout  # the uncalibrated judge, said during the run
        [log_file] = (tmp_path / "logs").glob("*.eval")
        log = read_eval_log(str(log_file))
        assert log.status == "success" and any("has no calibration" in w for w in _warnings(log))
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped" in err, err
