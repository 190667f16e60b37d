"""The `replay` provider: recording from a model, replaying exactly, and failing loudly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._cli.util import parse_model_role_cli_args
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)

import longform_evals._registry  # noqa: F401  (registers the providers)
from longform_evals.models.replay import (
    ReplayError,
    ReplayMissError,
    ReplayModelAPI,
    call_key,
    load_recording,
    packaged_recording,
)
from longform_evals.tasks.booookscore import booookscore

YES = {"Yes": -0.05, "No": -3.0}
NO = {"No": -0.05, "Yes": -3.0}
JUDGE_RULES: list[dict[str, Any]] = [
    {"pattern": "Is it raining", "response": "Yes", "top_logprobs": YES},
    {"pattern": "Is it dry", "response": "No", "top_logprobs": NO},
]
LOGPROBS = GenerateConfig(temperature=0.0, logprobs=True, top_logprobs=5)
SYSTEM = ChatMessageSystem(content="Answer Yes or No.")


def _messages(question: str) -> list[ChatMessage]:
    return [SYSTEM, ChatMessageUser(content=question)]


def _recorder(path: Path, name: str, rules: list[dict[str, Any]] = JUDGE_RULES) -> Model:
    return get_model(
        "replay/judge",
        path=str(path),
        record=f"scripted/{name}",
        record_args={"rules": rules},
        memoize=False,
    )


def _replayer(path: Path) -> Model:
    return get_model("replay/judge", path=str(path), memoize=False)


def _api(model: Model) -> ReplayModelAPI:
    assert isinstance(model.api, ReplayModelAPI)
    return model.api


def _dump(output: ModelOutput) -> dict[str, Any]:
    """The output as the provider returned it (Inspect then sets the call's own time)."""
    return {k: v for k, v in output.model_dump(mode="json").items() if k != "time"}


def test_a_replay_returns_the_recorded_outputs_with_their_logprobs(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    questions = ["Is it raining?", "Is it dry?"]

    async def run(model: Model) -> list[ModelOutput]:
        return [await model.generate(_messages(q), config=LOGPROBS) for q in questions]

    recorder = _recorder(path, "replay-record")
    recorded = asyncio.run(run(recorder))
    assert _api(recorder).recorded == 2
    replayer = _replayer(path)
    assert str(replayer) == "replay/judge"
    replayed = asyncio.run(run(replayer))
    assert _api(replayer).replayed == 2 and _api(replayer).recorded == 0
    assert [_dump(o) for o in replayed] == [_dump(o) for o in recorded]
    logprobs = replayed[0].choices[0].logprobs
    assert logprobs is not None
    top = logprobs.content[0].top_logprobs or []
    assert {t.token: t.logprob for t in top} == YES
    assert replayed[1].usage is not None and replayed[1].usage == recorded[1].usage

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {
        "recording": {"model": "scripted/replay-record", "longform_evals": "0.1.0", "format": 1}
    }
    first = lines[1]
    assert first["model"] == "scripted/replay-record" and first["prompt"] == "Is it raining?"
    assert first["config"] == {"temperature": 0.0, "logprobs": True, "top_logprobs": 5}
    assert first["key"] == call_key(_messages("Is it raining?"), [], None, LOGPROBS)[0]
    # The provider itself returns the stored output byte for byte (time included).
    direct, _ = asyncio.run(
        _api(replayer).generate(_messages("Is it raining?"), [], "auto", LOGPROBS)
    )
    assert json.dumps(direct.model_dump(mode="json")) == json.dumps(first["output"])


def test_a_changed_prompt_or_setting_misses_with_an_error_naming_the_prompt(
    tmp_path: Path,
) -> None:
    path = tmp_path / "judge.jsonl"
    asyncio.run(
        _recorder(path, "replay-miss").generate(_messages("Is it raining?"), config=LOGPROBS)
    )
    replayer = _replayer(path)

    with pytest.raises(ReplayMissError) as changed_prompt:
        asyncio.run(replayer.generate(_messages("Is it raining today?"), config=LOGPROBS))
    message = str(changed_prompt.value)
    assert str(path) in message and "'Is it raining today?'" in message
    assert "record=scripted/replay-miss" in message
    key = call_key(_messages("Is it raining today?"), [], None, LOGPROBS)[0]
    assert key in message

    hotter = LOGPROBS.merge(GenerateConfig(temperature=0.7))
    with pytest.raises(ReplayMissError, match="'Is it raining\\?'") as changed_setting:
        asyncio.run(replayer.generate(_messages("Is it raining?"), config=hotter))
    assert "'temperature': 0.0" in str(changed_setting.value)  # what the recording has
    assert "'temperature': 0.7" in str(changed_setting.value)

    # The system prompt is part of the key too.
    other_system = [
        ChatMessageSystem(content="Be brief."),
        ChatMessageUser(content="Is it raining?"),
    ]
    with pytest.raises(ReplayMissError):
        asyncio.run(replayer.generate(other_system, config=LOGPROBS))
    # Settings that do not change the answer are not.
    slower = LOGPROBS.merge(GenerateConfig(timeout=600, max_retries=1, max_connections=2))
    asyncio.run(replayer.generate(_messages("Is it raining?"), config=slower))


def test_a_long_prompt_is_quoted_by_its_start(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    asyncio.run(_recorder(path, "replay-long").generate(_messages("Is it raining?")))
    with pytest.raises(ReplayMissError) as missed:
        asyncio.run(_replayer(path).generate(_messages("Is it raining? " + "x" * 1000 + " END")))
    message = str(missed.value)
    assert "'Is it raining? " + "x" * 285 + "...'" in message
    assert "It ends: '..." + "x" * 196 + " END'" in message
    assert "x" * 400 not in message


def test_loading_skips_blank_lines_and_lets_the_last_duplicate_win(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    asyncio.run(_recorder(path, "replay-dup").generate(_messages("Is it raining?")))
    header, record = path.read_text().splitlines()
    again = json.loads(record)
    again["output"]["choices"][0]["message"]["content"] = again["output"]["completion"] = "No"
    path.write_text(f"\n{header}\n\n{record}\n{json.dumps(again)}\n\n\n")
    recording = load_recording(path)
    assert recording.model == "scripted/replay-dup"
    assert [o.completion for o in recording.outputs.values()] == ["No"]
    output = asyncio.run(_replayer(path).generate(_messages("Is it raining?")))
    assert output.completion == "No"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"key": "k"}', "needs a string 'key' and an object 'output'"),
        ('{"key": "k", "output": {"choices": 3}}', "'output' is not a ModelOutput"),
        ('{"recording": {"model": "m"}}', "header is only allowed on the first line"),
    ],
)
def test_a_corrupt_line_is_refused_with_file_and_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "judge.jsonl"
    asyncio.run(_recorder(path, "replay-corrupt").generate(_messages("Is it raining?")))
    with path.open("a") as file:
        file.write(f"\n{line}\n")
    with pytest.raises(ReplayError, match=f"{path}:4: .*{problem}"):
        _replayer(path)


def test_a_missing_recording_names_where_it_was_looked_for(tmp_path: Path) -> None:
    name = "no-such-model-recorded"
    packaged = packaged_recording(name)
    assert not packaged.exists()
    with pytest.raises(ReplayError) as missing:
        get_model(f"replay/{name}", memoize=False)
    assert "path=FILE" in str(missing.value) and str(packaged) in str(missing.value)
    absent = tmp_path / "absent.jsonl"
    with pytest.raises(ReplayError, match=f"{absent} does not exist.*record=MODEL"):
        get_model(f"replay/{name}", path=str(absent), memoize=False)


def test_model_args_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    with pytest.raises(ReplayError, match="unknown model args \\['recrod'\\]"):
        get_model("replay/judge", path=str(path), recrod="scripted/x", memoize=False)
    with pytest.raises(ReplayError, match="record_args needs record=MODEL"):
        get_model("replay/judge", path=str(path), record_args={"rules": []}, memoize=False)


def test_a_recording_refuses_answers_of_another_model(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    asyncio.run(_recorder(path, "replay-first").generate(_messages("Is it raining?")))
    with pytest.raises(ReplayError, match="recorded with scripted/replay-first"):
        _recorder(path, "replay-second")


def test_concurrent_misses_append_whole_lines_and_share_one_call(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    rules = [{"pattern": r"Is (\w+) ready", "response": r"Yes, \1 is."}]
    recorder = get_model(
        "replay/judge",
        path=str(path),
        record="scripted/replay-concurrent",
        record_args={"rules": rules, "latency": 0.05},
        memoize=False,
    )
    names = [f"item{i}" for i in range(12)]

    async def run() -> list[ModelOutput]:
        calls = [recorder.generate(f"Is {n} ready?") for n in names]
        calls += [recorder.generate("Is item0 ready?") for _ in range(5)]
        return list(await asyncio.gather(*calls))

    outputs = asyncio.run(run())
    assert _api(recorder).recorded == len(names)
    # The repeats of one call waited for its answer: one line, one message id.
    ids = {o.choices[0].message.id for o in outputs[len(names) :]} | {outputs[0].message.id}
    assert len(ids) == 1
    recording = load_recording(path)
    assert len(recording.outputs) == len(names)
    assert sorted(o.completion for o in recording.outputs.values()) == sorted(
        f"Yes, {n} is." for n in names
    )


def test_a_role_takes_its_model_args_from_a_yaml_config(tmp_path: Path) -> None:
    path = tmp_path / "judge.jsonl"
    asyncio.run(_recorder(path, "replay-cli").generate(_messages("Is it raining?")))
    # What `--model-role grader="{model: replay/judge, model_args: {path: FILE}}"` gives.
    roles = parse_model_role_cli_args(
        (f"grader={{model: replay/judge, model_args: {{path: {path}}}}}",)
    )
    grader = roles["grader"]
    assert isinstance(grader, Model) and str(grader) == "replay/judge"
    assert _api(grader).path == path


SUMMARY = (
    "Ada Finch keeps the lighthouse on Gull Rock with her father Tomas. "
    "A storm wrecks a ship, and Ada rescues its only survivor, Piet. "
    "Marguerite misleads the smugglers."
)
PROBE_RULES: list[dict[str, Any]] = [
    # The third sentence does not follow from the second (a discontinuity).
    {
        "pattern": "(?s)New sentence: <sentence>Marguerite.*same people or events",
        "response": "No",
        "top_logprobs": {"No": -0.3, "Yes": -1.4},
    },
    {"pattern": "Does the earlier text already say", "response": "No", "top_logprobs": NO},
    {"pattern": "Question:", "response": "Yes", "top_logprobs": {"Yes": -0.2, "No": -1.7}},
]


def _judged(tmp_path: Path, grader: Model, logs: str) -> EvalLog:
    data = tmp_path / "summaries.jsonl"
    data.write_text(json.dumps({"id": "finch", "summary": SUMMARY}) + "\n")
    task = booookscore(score_only=True, data=str(data), judge_mode="probe")
    [log] = inspect_eval(
        task,
        model=get_model("scripted/replay-reader", default_response="unused", memoize=False),
        model_roles={"grader": grader},
        log_dir=str(tmp_path / logs),
    )
    assert log.status == "success", log.error
    return log


def test_a_task_scores_the_same_from_a_replayed_judge(tmp_path: Path) -> None:
    path = tmp_path / "qwen2.5-coder-1.5b.jsonl"
    recording = get_model(
        "replay/qwen2.5-coder-1.5b",
        path=str(path),
        record="scripted/replay-probe",
        record_args={"rules": PROBE_RULES},
        memoize=False,
    )
    first = _judged(tmp_path, recording, "recorded")
    calls = _api(recording).recorded
    assert first.samples and first.samples[0].scores
    value = first.samples[0].scores["booookscore"].value
    assert isinstance(value, dict) and calls == value["judge_calls"] > 3

    replaying = get_model("replay/qwen2.5-coder-1.5b", path=str(path), memoize=False)
    second = _judged(tmp_path, replaying, "replayed")
    assert _api(replaying).replayed == calls and _api(replaying).recorded == 0

    assert second.samples
    before, after = first.samples[0].scores, second.samples[0].scores
    assert before and after
    assert after["booookscore"].value == before["booookscore"].value
    assert after["booookscore"].metadata == before["booookscore"].metadata
    meta = after["booookscore"].metadata or {}
    # The replay is named after the recorded model, so its calibration is found.
    assert "coherence_probe_qwen2.5-coder-1.5b" in meta["calibration"]
    flagged = [(s["index"], s["types"]) for s in meta["sentences"] if s["confused"]]
    assert flagged == [(2, ["discontinuity"])]


def test_a_replay_stands_for_its_recorded_model(tmp_path: Path) -> None:
    """`judge_mode=auto` picks the method by the judge's provider; a replay of a GGUF judge
    must get the probe mode that judge gets, whatever the replay is called."""
    from longform_evals.judges.coherence.judges import resolve_mode
    from longform_evals.models.replay import stands_for

    path = tmp_path / "judge.jsonl"
    recorder = _recorder(path, "recorded")
    assert stands_for(recorder) == "scripted/recorded"  # no header yet: the recording model
    asyncio.run(recorder.generate(_messages("Is it raining?")))
    replayer = _replayer(path)
    assert stands_for(replayer) == "scripted/recorded"  # from the file's header
    assert resolve_mode("auto", replayer) == "sentence"
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    header["recording"]["model"] = "gguf/qwen2.5-coder-1.5b"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    assert resolve_mode("auto", _replayer(path)) == "probe"
    assert resolve_mode("sentence", _replayer(path)) == "sentence"
    assert stands_for(get_model("scripted/plain")) == "scripted/plain"
