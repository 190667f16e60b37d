"""The gguf provider end to end on the tiny SmolLM2 model (marked slow; needs the local extra)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.model import GenerateConfig, get_model

from helpers import needs_smollm2
from longform_evals.models.gguf_files import ModelFileError

SMOL = "gguf/smollm2-135m"


def test_missing_runtime_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from longform_evals.models import gguf

    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(gguf.MissingExtraError, match=r"longform-evals\[local\]"):
        get_model("gguf/smollm2-135m", memoize=False)


def test_unknown_model_arg_is_rejected() -> None:
    pytest.importorskip("xllamacpp")
    with pytest.raises(ValueError, match="unknown model args"):
        get_model(SMOL, memoize=False, n_gpu=3)


def test_unknown_name_is_a_clear_error() -> None:
    pytest.importorskip("xllamacpp")
    with pytest.raises(ModelFileError, match="unknown gguf model"):
        get_model("gguf/llama-9000", memoize=False)


@pytest.mark.fault("cli_paths", "clear error")  # the model path that is a folder
def test_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    not_gguf = tmp_path / "weights.gguf"
    not_gguf.write_bytes(b"\x00" * 1024)
    with pytest.raises(ModelFileError, match="not a GGUF model file"):
        get_model("gguf/custom", memoize=False, path=str(not_gguf))
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(b"GGUF" + bytes(range(256)) * 40)
    with pytest.raises(ModelFileError, match="could not load"):
        get_model("gguf/custom", memoize=False, path=str(garbage))
    # a folder where the file should be: refused by name
    with pytest.raises(ModelFileError, match=r"is a folder, not a GGUF model file"):
        get_model("gguf/custom", memoize=False, path=str(tmp_path))


def test_wrong_sha256_for_a_path_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"GGUF" + b"\x01" * 64)
    with pytest.raises(ModelFileError, match="failed verification"):
        get_model("gguf/custom", memoize=False, path=str(fake), sha256="0" * 64)


@pytest.mark.slow
@needs_smollm2
def test_generate_honours_config_and_reports_usage() -> None:
    model = get_model(SMOL)

    async def go() -> None:
        out = await model.generate(
            "Count from one to twenty in words, separated by commas.",
            config=GenerateConfig(max_tokens=5, temperature=0.0, seed=1),
        )
        assert out.stop_reason == "max_tokens"
        assert out.usage is not None and out.usage.output_tokens == 5
        assert out.usage.input_tokens + (out.usage.input_tokens_cache_read or 0) > 10

        stopped = await model.generate(
            "Count from one to twenty in words, separated by commas.",
            config=GenerateConfig(max_tokens=60, temperature=0.0, stop_seqs=[","]),
        )
        assert "," not in stopped.completion

        judged = await model.generate(
            "Is Paris the capital of France? Answer yes or no.",
            config=GenerateConfig(max_tokens=3, temperature=0.0, logprobs=True, top_logprobs=5),
        )
        assert judged.choices[0].logprobs is not None
        first = judged.choices[0].logprobs.content[0]
        assert first.top_logprobs and len(first.top_logprobs) == 5
        assert all(t.logprob <= 0.0 for t in first.top_logprobs)

    asyncio.run(go())


@pytest.mark.slow
@needs_smollm2
def test_shared_prefix_is_read_from_cache_and_concurrent_calls_queue() -> None:
    model = get_model(SMOL)
    prefix = "Here is a list of colours: " + ", ".join(["red", "green", "blue", "amber"] * 60)

    async def go() -> None:
        config = GenerateConfig(max_tokens=4, temperature=0.0)
        await model.generate(prefix + "\nName one colour.", config=config)
        again = await model.generate(prefix + "\nName two colours.", config=config)
        assert again.usage is not None
        assert (again.usage.input_tokens_cache_read or 0) > 200
        # Ten concurrent calls: all complete, each its own answer, none crashes the engine.
        outs = await asyncio.gather(
            *[model.generate(f"Say the number {i}.", config=config) for i in range(10)]
        )
        assert all(o.usage is not None and o.usage.output_tokens > 0 for o in outs)

    asyncio.run(go())


@pytest.mark.slow
@needs_smollm2
def test_over_long_prompt_is_reported_not_crashed() -> None:
    model = get_model("gguf/smollm2-135m", n_ctx=512)

    async def go() -> None:
        out = await model.generate("word " * 2000, config=GenerateConfig(max_tokens=4))
        assert out.stop_reason == "model_length"
        assert out.error and "context" in out.error

    asyncio.run(go())


@pytest.mark.slow
@needs_smollm2
def test_registered_task_runs_on_smollm2_and_logs_usage_per_call(tmp_path: Path) -> None:
    [log] = inspect_eval(
        "longform_evals/hello_longform", model=SMOL, limit=1, log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert log.stats.model_usage[SMOL].output_tokens > 0
    assert log.samples
    events = [e for e in log.samples[0].events if isinstance(e, ModelEvent)]
    assert events and all(e.output.usage is not None for e in events)


def test_the_prefix_cache_is_a_model_setting_a_call_can_override() -> None:
    from inspect_ai.model import ChatMessageUser

    from longform_evals.models.gguf import GGUFModelAPI

    # the request alone (no engine): -M cache_prompt=false turns reuse off for every call
    # (the same prompt then gets the same answer whatever ran before); a call's own setting wins
    api = GGUFModelAPI.__new__(GGUFModelAPI)
    prompt = [ChatMessageUser(content="Hi.")]
    for model_setting, call_setting, sent in [
        (True, None, True),
        (False, None, False),
        (False, "auto", False),
        (False, True, True),
        (True, False, False),
    ]:
        api.cache_prompt = model_setting
        config = GenerateConfig(cache_prompt=call_setting)
        assert api._request(prompt, config)["cache_prompt"] is sent
