"""Tests of the rule-driven `scripted/<name>` model."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate

import longform_evals.models.providers  # noqa: F401  (registers `scripted`)
from longform_evals.models.scripted import (
    ScriptedModelAPI,
    ScriptedModelError,
    ScriptedRule,
    count_words,
    recent_instances,
    scripted_calls,
)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any attempt to open an internet connection during these tests."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"network access attempted: {address!r}")
        real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield


def scripted(rules: object = None, **kwargs: Any) -> Model:
    """A fresh (not memoized) scripted model."""
    return get_model("scripted/test", memoize=False, rules=rules, **kwargs)


def api(model: Model) -> ScriptedModelAPI:
    assert isinstance(model.api, ScriptedModelAPI)
    return model.api


def gen(model: Model, prompt: str | list[ChatMessage], **config: Any) -> ModelOutput:
    return asyncio.run(model.generate(prompt, config=GenerateConfig(**config)))


def test_first_matching_rule_wins() -> None:
    model = scripted(
        [
            {"pattern": "apple", "response": "fruit"},
            ("apple|carrot", "food"),
            ScriptedRule(pattern="(?i)HELLO", response="greeting"),
        ]
    )
    assert gen(model, "an apple a day").completion == "fruit"
    assert gen(model, "a carrot").completion == "food"
    assert gen(model, "hello there").completion == "greeting"
    assert [c.rule for c in api(model).calls] == [0, 1, 2]


def test_default_response_when_nothing_matches() -> None:
    model = scripted([("apple", "fruit")], default_response="no idea")
    assert gen(model, "a stone").completion == "no idea"
    assert api(model).calls[0].rule is None


def test_default_can_come_from_rules_list_or_mapping() -> None:
    assert gen(scripted([("x", "y"), {"default": "dflt"}]), "z").completion == "dflt"
    assert gen(scripted({"rules": [], "default": "dflt"}), "z").completion == "dflt"


def test_two_defaults_are_rejected() -> None:
    with pytest.raises(ScriptedModelError, match="both"):
        ScriptedModelAPI("t", rules=[{"default": "a"}], default_response="b")


def test_missing_rule_raises_naming_the_prompt() -> None:
    model = scripted([("apple", "fruit")])
    with pytest.raises(ScriptedModelError, match=r"no rule matched.*'Tell me about stones"):
        gen(model, "Tell me about stones and rocks")


def test_where_last_user_system_and_all() -> None:
    model = scripted(
        [
            {"pattern": "JUDGE", "response": "from system", "where": "system"},
            {"pattern": "earlier", "response": "from transcript", "where": "all"},
            {"pattern": "earlier", "response": "never: not the last user message"},
        ],
        default_response="default",
    )
    judge: list[ChatMessage] = [
        ChatMessageSystem(content="You are a JUDGE."),
        ChatMessageUser(content="hi"),
    ]
    assert gen(model, judge).completion == "from system"
    history: list[ChatMessage] = [
        ChatMessageUser(content="earlier question"),
        ChatMessageUser(content="now"),
    ]
    assert gen(model, history).completion == "from transcript"
    # the last-user rule does not see text of earlier messages
    only_last = scripted([("earlier", "seen")], default_response="unseen")
    assert gen(only_last, history).completion == "unseen"


def test_list_responses_cycle_by_default() -> None:
    model = scripted([("rate", ["bad", "Score: 4"])])
    outs = [gen(model, "rate it").completion for _ in range(3)]
    assert outs == ["bad", "Score: 4", "bad"]
    assert [c.call_index for c in api(model).calls] == [0, 1, 2]


def test_list_responses_repeat_last_or_error() -> None:
    model = scripted(
        [
            {"pattern": "a", "response": ["1", "2"], "exhausted": "repeat_last"},
            {"pattern": "b", "response": ["x"], "exhausted": "error"},
        ]
    )
    assert [gen(model, "a").completion for _ in range(3)] == ["1", "2", "2"]
    assert gen(model, "b").completion == "x"
    with pytest.raises(ScriptedModelError, match="have been used"):
        gen(model, "b")


def test_each_rule_counts_its_own_calls_and_reset_restarts() -> None:
    model = scripted([("a", ["a0", "a1"]), ("b", ["b0", "b1"])])
    assert gen(model, "a").completion == "a0"
    assert gen(model, "b").completion == "b0"
    assert gen(model, "a").completion == "a1"
    api(model).reset()
    assert api(model).calls == []
    assert gen(model, "a").completion == "a0"


def test_callable_response_gets_text_and_call_index() -> None:
    seen: list[tuple[str, int]] = []

    def respond(text: str, index: int) -> str:
        seen.append((text, index))
        return f"call {index}: {len(text)} chars"

    model = scripted([("count", respond)])
    assert gen(model, "count me").completion == "call 0: 8 chars"
    assert gen(model, "count again").completion == "call 1: 11 chars"
    assert seen == [("count me", 0), ("count again", 1)]


def test_group_echo() -> None:
    model = scripted(
        [
            {"pattern": r"capital of (\w+)", "response": r"The capital of \1 is unknown."},
            {"pattern": r"(?P<who>\w+) says", "response": r"\g<who> said: '\0'"},
            {"pattern": r"json(\d)?", "response": r'{"n": "\1", "path": "C:\temp"}'},
        ]
    )
    assert gen(model, "capital of Peru?").completion == "The capital of Peru is unknown."
    assert gen(model, "Ann says hi").completion == "Ann said: 'Ann says'"
    # braces and other backslashes are verbatim; a group that did not take part is ''
    assert gen(model, "json").completion == '{"n": "", "path": "C:\\temp"}'


def test_group_echo_of_undefined_group_is_rejected_up_front() -> None:
    with pytest.raises(ScriptedModelError, match="group '2'"):
        ScriptedModelAPI("t", rules=[(r"(a)", r"\2")])
    with pytest.raises(ScriptedModelError, match="group 'x'"):
        ScriptedModelAPI("t", rules=[(r"(a)", r"\g<x>")])


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ([{"pattern": "("}], "missing key"),
        ([{"pattern": "(", "response": "x"}], "invalid regex"),
        ([{"pattern": "a", "response": "x", "wehre": "all"}], "unknown key"),
        ([{"pattern": "a", "response": "x", "where": "everywhere"}], "'where'"),
        ([{"pattern": "a", "response": True}], "must be a string"),
        ([{"pattern": "a", "response": []}], "empty"),
        ([{"pattern": "a", "response": "x", "top_logprobs": {"yes": 0.5}}], "logprob"),
        (["just a string"], "a rule must be"),
        (42, "'rules' must be"),
    ],
)
def test_bad_rules_are_reported(rules: object, message: str) -> None:
    with pytest.raises(ScriptedModelError, match=message):
        ScriptedModelAPI("t", rules=rules)


def test_unknown_model_argument_is_rejected() -> None:
    with pytest.raises(ScriptedModelError, match="rulez"):
        ScriptedModelAPI("t", rulez=[])


def test_latency_is_validated_and_answers_still_come() -> None:
    for bad in (-1, float("nan"), float("inf"), "soon"):  # before: .nan failed at the first call
        with pytest.raises(ScriptedModelError, match="latency must be a finite number"):
            ScriptedModelAPI("t", rules=[("q", "a")], latency=bad)  # type: ignore[arg-type]
    model = get_model("scripted/slow", rules=[("q", "a")], latency=0.01, memoize=False)
    assert gen(model, "q").completion == "a"


def test_stop_sequences_truncate() -> None:
    model = scripted([("q", "Answer: yes\nExplanation: because")])
    out = gen(model, "q", stop_seqs=["\nExplanation", "zzz"])
    assert out.completion == "Answer: yes"
    assert out.stop_reason == "stop"


def test_max_tokens_truncates_to_words() -> None:
    model = scripted([("q", "one two  three four five")])
    out = gen(model, "q", max_tokens=3)
    assert out.completion == "one two  three"
    assert out.stop_reason == "max_tokens"
    assert out.usage is not None and out.usage.output_tokens == 3
    full = gen(model, "q", max_tokens=5)
    assert full.completion == "one two  three four five"
    assert full.stop_reason == "stop"


def test_usage_is_set_from_word_counts() -> None:
    model = scripted([("q", "three word answer")])
    out = gen(model, [ChatMessageSystem(content="be brief"), ChatMessageUser(content="q now")])
    assert out.usage is not None
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.total_tokens) == (4, 3, 7)
    assert count_words(" a  b\nc ") == 3


def test_count_tokens_does_not_use_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspect_ai.model._tokens as tokens

    def boom(text: str) -> int:
        raise AssertionError("tiktoken-based counting was used")

    monkeypatch.setattr(tokens, "count_text_tokens", boom)
    model = scripted([("q", "a")])
    assert (
        asyncio.run(model.count_tokens([ChatMessageUser(content="five words in this text")])) == 5
    )


def test_no_logprobs_unless_asked() -> None:
    out = gen(scripted([("q", "yes")]), "q")
    assert out.choices[0].logprobs is None


def test_synthesised_logprobs() -> None:
    out = gen(scripted([("q", "yes it is")]), "q", logprobs=True, top_logprobs=3)
    logprobs = out.choices[0].logprobs
    assert logprobs is not None
    assert [lp.token for lp in logprobs.content] == ["yes", " it", " is"]
    first = logprobs.content[0]
    assert first.logprob == 0.0
    assert first.top_logprobs is not None
    assert [(t.token, t.logprob) for t in first.top_logprobs] == [
        ("yes", 0.0),
        ("<alt1>", -10.0),
        ("<alt2>", -11.0),
    ]
    plain = gen(scripted([("q", "yes")]), "q", logprobs=True)
    assert plain.choices[0].logprobs is not None
    assert plain.choices[0].logprobs.content[0].top_logprobs is None


def test_explicit_top_logprobs_for_first_token() -> None:
    rule = {"pattern": "judge", "response": "no", "top_logprobs": {"yes": -0.1, "no": -2.3}}
    out = gen(scripted([rule]), "judge this", logprobs=True, top_logprobs=5)
    logprobs = out.choices[0].logprobs
    assert logprobs is not None
    first = logprobs.content[0]
    assert first.token == "no" and first.logprob == -2.3
    assert first.top_logprobs is not None
    assert {t.token: t.logprob for t in first.top_logprobs} == {"yes": -0.1, "no": -2.3}
    assert first.top_logprobs[0].token == "yes"
    # top_logprobs=1 keeps only the most likely entry
    out1 = gen(scripted([rule]), "judge this", top_logprobs=1)
    assert out1.choices[0].logprobs is not None
    top1 = out1.choices[0].logprobs.content[0].top_logprobs
    assert top1 is not None and [t.token for t in top1] == ["yes"]


def test_calls_are_recorded_and_reachable() -> None:
    model = scripted([("q", "a")])
    gen(model, [ChatMessageSystem(content="sys"), ChatMessageUser(content="q1")])
    (call,) = api(model).calls
    assert call.prompt == "sys\n\nq1"
    assert call.last_user == "q1"
    assert call.completion == "a"
    assert call.output.completion == "a"
    assert recent_instances()[-1] is api(model)
    assert scripted_calls("test")[-1] == call


def test_concurrent_calls_each_get_their_own_list_item() -> None:
    model = scripted([("q", [str(i) for i in range(20)])])

    async def run() -> list[str]:
        outs = await asyncio.gather(*(model.generate("q") for _ in range(20)))
        return [o.completion for o in outs]

    assert sorted(asyncio.run(run()), key=int) == [str(i) for i in range(20)]
    assert api(model).max_connections() >= 20


def test_rules_from_json_file_and_inline_json(tmp_path: Path) -> None:
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(
        json.dumps([{"pattern": r"capital of (\w+)", "response": r"\1!"}, {"default": "?"}])
    )
    model = scripted(str(rules_file))
    assert gen(model, "capital of Chile").completion == "Chile!"
    assert gen(model, "other").completion == "?"
    inline = scripted('[{"pattern": "a", "response": "b"}]')
    assert gen(inline, "a").completion == "b"
    with pytest.raises(ScriptedModelError, match="not found"):
        ScriptedModelAPI("t", rules=str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(ScriptedModelError, match="not valid JSON"):
        ScriptedModelAPI("t", rules=bad)


def _tiny_task() -> Task:
    return Task(
        dataset=MemoryDataset(
            [
                Sample(id="fr", input="What is the capital of France?", target="Paris"),
                Sample(id="pe", input="What is the capital of Peru?", target="Lima"),
            ]
        ),
        solver=generate(),
        scorer=includes(),
    )


def test_end_to_end_eval(tmp_path: Path) -> None:
    model = get_model(
        "scripted/test",
        memoize=False,
        rules=[("France", "It is Paris."), ("Peru", "Maybe Cusco.")],
    )
    (log,) = eval(_tiny_task(), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert log.samples is not None
    scores = {s.id: s.scores["includes"].value for s in log.samples if s.scores is not None}
    assert scores == {"fr": "C", "pe": "I"}
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 0.5
    usage = log.stats.model_usage["scripted/test"]
    assert usage.input_tokens == 12 and usage.output_tokens == 5
    assert len(api(model).calls) == 2


def test_end_to_end_eval_with_model_args_and_rules_file(tmp_path: Path) -> None:
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps([{"pattern": "France", "response": "Paris"}]))
    task = Task(
        dataset=MemoryDataset([Sample(input="Capital of France?", target="Paris")]),
        solver=generate(),
        scorer=match(),
    )
    (log,) = eval(
        task,
        model="scripted/file-args",
        model_args={"rules": str(rules_file), "default_response": "?"},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success"
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    assert log.stats.model_usage["scripted/file-args"].total_tokens > 0
    assert scripted_calls("file-args")[-1].completion == "Paris"


def test_missing_rule_fails_the_eval(tmp_path: Path) -> None:
    model = get_model("scripted/test", memoize=False, rules=[("France", "Paris")])
    (log,) = eval(_tiny_task(), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "error"
    assert log.error is not None and "no rule matched" in log.error.message


def test_cli_eval_with_rules_file(tmp_path: Path) -> None:
    task_file = tmp_path / "tiny_task.py"
    task_file.write_text(
        textwrap.dedent(
            """
            from inspect_ai import Task, task
            from inspect_ai.dataset import MemoryDataset, Sample
            from inspect_ai.scorer import includes
            from inspect_ai.solver import generate

            import longform_evals.models.providers  # noqa: F401

            @task
            def tiny():
                return Task(
                    dataset=MemoryDataset([
                        Sample(input="What is the capital of France?", target="Paris"),
                        Sample(input="Name a colour.", target="blue"),
                    ]),
                    solver=generate(),
                    scorer=includes(),
                )
            """
        )
    )
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps([{"pattern": "(?i)france", "response": "Paris"}]))
    log_dir = tmp_path / "logs"
    inspect_cli = Path(sys.executable).parent / "inspect"
    env = {**os.environ, "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}
    result = subprocess.run(
        [
            str(inspect_cli),
            "eval",
            task_file.name,  # Inspect wants a task path relative to the working folder
            "--model",
            "scripted/cli",
            "-M",
            f"rules={rules_file}",
            "-M",
            "default_response=blue",
            "--log-dir",
            str(log_dir),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (log_file,) = log_dir.glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success"
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    assert log.stats.model_usage["scripted/cli"].output_tokens == 2
