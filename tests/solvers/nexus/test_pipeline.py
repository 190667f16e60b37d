"""NexusSum end to end against the scripted model, and its pure helpers."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from longform_evals.solvers.nexus.pipeline import NexusOptions, nexus_sum
from longform_evals.solvers.nexus.stages import nexus_compress, nexus_preprocess, nexus_summarize
from longform_evals.solvers.settings import SummarySettings
from longform_evals.text import get_tokenizer, split_sentences
from solvers.summary_support import make_book

RunEval = Callable[..., Any]

# Text unique to each nexus_sum/ template, for routing scripted rules.
DIALOGUE = r"The same scenes as third-person prose:"
CHUNK = r"Stretch of the narrative:"
COMPRESS = r"Piece of the summary \("
REWRITE = r"Summary to edit:"
_QUOTED = re.compile(r'"""\n(.*?)\n"""', re.DOTALL)


def quoted(prompt: str) -> str:
    """The text a prompt quotes between triple quotes."""
    match = _QUOTED.search(prompt)
    assert match is not None
    return match.group(1)


def echo(prompt: str, k: int) -> str:
    return quoted(prompt)


def first_half(prompt: str, k: int) -> str:
    sentences = split_sentences(quoted(prompt))
    return " ".join(sentences[: max(1, len(sentences) // 2)])


def first_fifth(prompt: str, k: int) -> str:
    """A chunk summary of the length asked (a fifth of the chunk): its first sentences."""
    sentences = split_sentences(quoted(prompt))
    return " ".join(sentences[: max(1, len(sentences) // 5)])


def rules(
    compress: Callable[[str, int], str] = first_half, chunk: Callable[[str, int], str] = echo
) -> list[dict[str, Any]]:
    return [
        {"pattern": DIALOGUE, "response": lambda p, k: f"Rewritten group {k} in prose."},
        {"pattern": CHUNK, "response": chunk},
        {"pattern": COMPRESS, "response": compress},
        {"pattern": REWRITE, "response": lambda p, k: quoted(p) + " Smoothly."},
    ]


def prompts(model: Any, marker: str) -> list[str]:
    return [c.prompt for c in model.calls if re.search(marker, c.prompt)]


BOOK = make_book(40)  # 40 paragraphs, 2,880 words, no dialogue and no scene marks


def test_compressor_reaches_the_target_by_halving(run_eval: RunEval) -> None:
    solver = nexus_sum(SummarySettings(target_words=100), NexusOptions(scenes_per_chunk=2))
    log, sample, model = run_eval(solver, rules(chunk=first_fifth), BOOK)
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    stats = sample.metadata["summary_stats"]
    # no dialogue: every group passes the preprocessor without a call
    assert info["dialogue_groups"] == 0 and info["preprocess_skipped"] == info["chunks"] > 1
    assert prompts(model, DIALOGUE) == []
    assert info["scene_fallback"] and info["scenes"] == 7  # 6 paragraphs of 72 words each
    chunk_summaries = [t["text"] for t in sample.metadata["summary_trace"] if t["step"] == "chunk"]
    assert info["initial_words"] == len(" ".join(chunk_summaries).split()) > 200
    assert 1 <= info["rounds"] <= 10 and info["rounds"] == len(info["lengths"])
    assert info["lengths"] == sorted(info["lengths"], reverse=True)
    assert info["lengths"][-1] <= 100 < info["lengths"][-2]
    assert info["reached_target"] and not info["compress_stalled"]
    assert info["compress_stop"] == "target" and info["pieces"][0] > 1
    summary = sample.metadata["summary"]
    assert summary == sample.output.completion and len(summary.split()) == info["lengths"][-1]
    assert stats["calls"] == len(model.calls) == info["chunks"] + stats["compress_calls"]
    assert stats["compress_rounds"] == info["rounds"] and stats["compress_skipped"] == 0
    assert all(c.config.temperature == 0.3 for c in model.calls)
    # every compressed piece was whole sentences of at most δ tokens
    tok = get_tokenizer("cl100k_base")
    pieces = [quoted(p) for p in prompts(model, COMPRESS)]
    assert all(tok.count(p) <= 300 for p in pieces)
    steps = [(t["step"], t["level"]) for t in sample.metadata["summary_trace"]]
    assert steps[: info["chunks"]] == [("chunk", 0)] * info["chunks"]
    assert {level for step, level in steps if step == "compress"} == set(
        range(1, info["rounds"] + 1)
    )


def test_a_round_that_does_not_shrink_stops_compression(run_eval: RunEval) -> None:
    log, sample, _ = run_eval(
        nexus_sum(SummarySettings(target_words=300)), rules(echo, first_fifth), BOOK
    )
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    s0 = info["initial_words"]
    assert info["rounds"] == 1 and info["lengths"] == [s0] and s0 > 300
    assert info["compress_stalled"] and not info["reached_target"]
    assert info["compress_stop"] == "stalled"
    assert sample.metadata["summary_stats"]["compress_stalled"] == 1
    assert len(sample.metadata["summary"].split()) == s0


def test_target_longer_than_input_means_no_round(run_eval: RunEval) -> None:
    log, sample, model = run_eval(nexus_sum(SummarySettings(target_words=5000)), rules(), BOOK)
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    assert info["rounds"] == 0 and info["lengths"] == [] and info["reached_target"]
    assert sample.metadata["summary_stats"]["compress_skipped"] == 1
    assert prompts(model, COMPRESS) == []


# Four scenes of two paragraphs each, separated by two blank lines; two have dialogue.
DIALOGUE_BOOK = "\n\n\n".join(
    [
        'Anna met Tomas at the gate.\n\n"You are late," she said.',
        "The road was empty.\n\nThe rain kept falling over the hills.",
        "Night came.\n\nThe house was quiet and the lamps were out.",
        "Morning.\n\nTOMAS: I ran all the way.",
    ]
)


def test_dialogue_groups_are_rewritten_and_then_summarized(run_eval: RunEval) -> None:
    log, sample, model = run_eval(
        nexus_sum(options=NexusOptions(scenes_per_chunk=1)), rules(), DIALOGUE_BOOK
    )
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    assert (info["scenes"], info["chunks"], info["scene_fallback"]) == (4, 4, False)
    assert (info["dialogue_groups"], info["preprocess_skipped"]) == (2, 2)
    rewritten = [quoted(p) for p in prompts(model, DIALOGUE)]
    assert sorted(rewritten) == sorted([DIALOGUE_BOOK.split("\n\n\n")[i] for i in (0, 3)])
    summarized = [quoted(p) for p in prompts(model, CHUNK)]
    assert len(summarized) == 4 and sum(s.startswith("Rewritten group") for s in summarized) == 2
    assert any(s.startswith("The road was empty") for s in summarized)
    steps = [t["step"] for t in sample.metadata["summary_trace"]]
    assert steps.count("preprocess") == 2 and steps.count("chunk") == 4


def test_ablations(run_eval: RunEval) -> None:
    solver = nexus_sum(
        SummarySettings(target_words=20),
        NexusOptions(scenes_per_chunk=1),
        preprocess=False,
        compress=False,
    )
    log, sample, model = run_eval(solver, rules(), DIALOGUE_BOOK)
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    assert prompts(model, DIALOGUE) == [] and prompts(model, COMPRESS) == []
    assert len(prompts(model, CHUNK)) == 4 and info["rounds"] == 0
    assert info["reached_target"] is False and info["initial_words"] > 20
    assert '"You are late,"' in sample.metadata["summary"]


def test_stages_compose_and_rewrite_runs(run_eval: RunEval) -> None:
    solvers = [
        nexus_preprocess(options=NexusOptions(scenes_per_chunk=1)),
        nexus_summarize(),
        nexus_compress(SummarySettings(target_words=25), rewrite=True),
    ]
    log, sample, model = run_eval(solvers, rules(), DIALOGUE_BOOK)
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    assert info["dialogue_groups"] == 2 and info["chunks"] == 4
    assert info["rounds"] >= 1 and info["target_words"] == 25
    assert sample.metadata["summary_strategy"] == "nexus_sum"
    steps = [t["step"] for t in sample.metadata["summary_trace"]]
    assert steps[:2] == ["preprocess", "preprocess"] and steps[-1] == "rewrite"
    assert sample.output.completion.endswith("Smoothly.")
    assert sample.metadata["summary_stats"]["calls"] == len(model.calls)


def test_bad_settings() -> None:
    with pytest.raises(ValueError, match="target_words"):
        nexus_sum(SummarySettings(target_words=0))
    with pytest.raises(ValueError, match="target_words"):
        nexus_compress(SummarySettings(target_words=0))
    with pytest.raises(ValueError, match="chunk_tokens"):
        nexus_sum(options=NexusOptions(chunk_tokens=0))


def unfinished(text: str) -> str:
    """``text`` without its last word and end mark: a try the solver must reject."""
    words = text.split()
    return " ".join(words[:-1] or words).rstrip(".!?\"'")


def test_calls_stay_within_the_stated_bound_when_every_try_fails(run_eval: RunEval) -> None:
    """The worst case: every call is rejected (unfinished) and retried up to max_tries, and
    each compression round shrinks the summary by a word, so every round is run."""
    tries, rounds = 3, 4
    adversarial = [
        {"pattern": DIALOGUE, "response": lambda p, k: "Rewritten in prose but cut off"},
        {"pattern": CHUNK, "response": lambda p, k: unfinished(quoted(p)) + " and then"},
        {"pattern": COMPRESS, "response": lambda p, k: unfinished(quoted(p))},
        {"pattern": REWRITE, "response": lambda p, k: unfinished(quoted(p))},
    ]
    solver = nexus_sum(
        SummarySettings(target_words=3),
        NexusOptions(scenes_per_chunk=1, max_rounds=rounds, max_tries=tries, chunk_tokens=8),
        rewrite=True,
    )
    log, sample, model = run_eval(solver, adversarial, DIALOGUE_BOOK)
    assert log.status == "success"
    info = sample.metadata["nexus_sum"]
    stats = sample.metadata["summary_stats"]
    d, g = info["dialogue_groups"], info["chunks"]
    assert (d, g) == (2, 4) and info["compress_stop"] == "rounds"
    assert info["rounds"] == rounds == len(info["pieces"])
    most = info["compress_call_bound"] // (tries * rounds)
    assert max(info["pieces"]) <= most
    # every call took all its tries, but the preprocessor's (one try, then its fallback)
    assert len(model.calls) == stats["calls"] == d + tries * (g + sum(info["pieces"]) + 1)
    assert len(model.calls) <= d + tries * (g + rounds * most + 1)  # the documented bound
    # a rewrite of the dialogue that never finished is not used: the chunk keeps its text
    assert stats["preprocess_fallbacks"] == 2
    summarized = [quoted(p) for p in prompts(model, CHUNK)]
    assert '"You are late," she said.' in summarized[0] or any(
        '"You are late,"' in s for s in summarized
    )
    # where the calls and the time went, stage by stage
    stages = sample.metadata["summary_stages"]
    assert set(stages) == {"preprocess", "summarize", "compress", "rewrite"}
    assert sum(s["calls"] for s in stages.values()) == stats["calls"]
    assert stages["compress"]["calls"] == tries * sum(info["pieces"])
    assert all(s["seconds"] >= 0 for s in stages.values())


def test_most_pieces_bounds_the_packing() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from longform_evals.solvers.nexus.pipeline import most_pieces
    from longform_evals.text.packing import pack_sentence_spans

    tok = get_tokenizer("cl100k_base")
    sentence = st.lists(st.sampled_from(["a", "long", "word", "antidisestablishment"]), min_size=1)

    @settings(max_examples=60, deadline=None)
    @given(st.lists(sentence, min_size=1, max_size=30), st.integers(1, 40))
    def check(sentences: list[list[str]], delta: int) -> None:
        text = " ".join(" ".join(words).capitalize() + "." for words in sentences)
        assert len(pack_sentence_spans(text, delta, tok)) <= most_pieces(tok.count(text), delta)

    check()


def test_a_document_with_a_lone_surrogate_fails_before_any_call(run_eval: RunEval) -> None:
    log, sample, model = run_eval(nexus_sum(), rules(), "The keeper \ud800 counted ships.")
    assert log.status == "error" or sample.error is not None
    message = (sample.error or log.error).message  # type: ignore[union-attr]
    assert "lone surrogate (U+D800) at character 11" in message
    assert model.calls == []
