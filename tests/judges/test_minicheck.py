"""MiniCheck judges: chunking (pure), and end to end on tiny random models built offline.

The tiny models have random weights: their numbers mean nothing; the tests check shapes,
ranges, the max over chunks, chunking and determinism. Nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelOutput,
    TopLogprob,
)

from longform_evals.judges.faithfulness.minicheck import (
    MINICHECK_MODELS,
    MiniCheckJudge,
    MiniCheckLLMJudge,
    MiniCheckModelNotFoundError,
    _import_backend,
    minicheck_judge,
    minicheck_support_rows,
)
from longform_evals.judges.faithfulness.minicheck_chunking import (
    minicheck_chunks,
    pack_sentences,
    word_count,
)
from longform_evals.text import split_sentences

# ---------------------------------------------------------------- chunking (no torch needed)


def test_pack_sentences_greedy_without_overlap() -> None:
    sents = ["a b c.", "d e.", "f g h i.", "j."]
    assert pack_sentences(sents, 5, word_count) == ["a b c. d e.", "f g h i. j."]
    assert pack_sentences(sents, 100, word_count) == [" ".join(sents)]
    assert pack_sentences(sents, 1, word_count) == sents


def test_sentence_over_the_limit_is_its_own_chunk() -> None:
    sents = ["one two.", "three four five six seven eight.", "nine."]
    assert pack_sentences(sents, 3, word_count) == [
        "one two.",
        "three four five six seven eight.",
        "nine.",
    ]
    # Also when it comes first: no empty chunk before it.
    assert pack_sentences(sents[1:], 3, word_count) == sents[1:]


def test_empty_document_gives_one_empty_chunk_and_bad_limit_raises() -> None:
    assert minicheck_chunks("", 400, word_count) == [""]
    assert minicheck_chunks("   \n ", 400, word_count) == [""]
    with pytest.raises(ValueError):
        pack_sentences(["a."], 0, word_count)


def test_minicheck_chunks_uses_the_sentence_splitter() -> None:
    doc = "The cat sat. The dog ran far away. It rained."
    assert minicheck_chunks(doc, 6, word_count) == [
        "The cat sat.",
        "The dog ran far away.",
        "It rained.",
    ]
    assert minicheck_chunks(doc, 9, word_count) == [
        "The cat sat. The dog ran far away.",
        "It rained.",
    ]
    assert split_sentences(doc) == ["The cat sat.", "The dog ran far away.", "It rained."]


@given(
    st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=30),
    st.integers(min_value=1, max_value=20),
)
def test_pack_sentences_properties(lengths: list[int], limit: int) -> None:
    sents = [" ".join(f"w{i}x{j}" for j in range(n)) + "." for i, n in enumerate(lengths)]
    chunks = pack_sentences(sents, limit, word_count)
    # Order kept, nothing lost or repeated.
    assert " ".join(chunks) == " ".join(sents)
    for chunk in chunks:
        assert word_count(chunk) <= limit or chunk in sents
    # Greedy: the next chunk's first sentence did not fit into the previous chunk.
    for prev, nxt in itertools.pairwise(chunks):
        first = next(s for s in sents if nxt.startswith(s))
        assert word_count(prev) + word_count(first) > limit


def test_names_map_to_hub_ids() -> None:
    assert MINICHECK_MODELS["minicheck-roberta-large"][1] == "lytang/MiniCheck-RoBERTa-Large"
    assert MINICHECK_MODELS["minicheck-deberta-v3-large"][1] == "lytang/MiniCheck-DeBERTa-v3-Large"
    assert MINICHECK_MODELS["minicheck-flan-t5-large"][1] == "lytang/MiniCheck-Flan-T5-Large"
    judge = minicheck_judge("minicheck-flan-t5-large", batch_size=4)
    assert isinstance(judge, MiniCheckJudge)
    assert (judge.kind, judge.path, judge.chunk_size) == (
        "flan-t5-large",
        "lytang/MiniCheck-Flan-T5-Large",
        500,
    )
    assert isinstance(minicheck_judge("minicheck-7b"), MiniCheckLLMJudge)
    with pytest.raises(ValueError, match="unknown MiniCheck judge"):
        minicheck_judge("minicheck-xl")


def test_missing_backend_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match="minicheck"):
        _import_backend()


# ---------------------------------------------------------------- the 7B through Inspect


class _FakeModel:
    """Answers P(yes) from the claim: 0.9 when the claim's words are all in the chunk."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def generate(
        self, messages: list[ChatMessage], config: GenerateConfig, cache: Any
    ) -> ModelOutput:
        assert config.max_tokens == 1 and config.logprobs
        user = messages[-1].text
        self.calls.append(user)
        doc, claim = user.split("\nClaim: ")
        p = 0.9 if set(claim.lower().split()) <= set(doc.lower().split()) else 0.2
        answer = "Yes" if p > 0.5 else "No"
        out = ModelOutput.from_content("fake", answer)
        top = {"Yes": math.log(p), "No": math.log(1 - p)}
        out.choices[0].logprobs = Logprobs(
            content=[
                Logprob(
                    token=answer,  # the token says what the text says (else unreadable)
                    logprob=top[answer],
                    top_logprobs=[TopLogprob(token=t, logprob=lp) for t, lp in top.items()],
                )
            ]
        )
        return out


def test_llm_judge_max_over_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    judge = MiniCheckLLMJudge(chunk_size=4, tokenizer=word_count, cache=False)
    fake = _FakeModel()
    monkeypatch.setattr(judge, "model", lambda: fake)
    texts = ["Red fox runs. Blue sky above. Green grass grows.", "Nothing here."]
    rows = asyncio.run(minicheck_support_rows(judge, texts, ["Blue sky above.", "Pink cow."]))
    assert [[j.value for j in row] for row in rows] == [
        [pytest.approx(0.9), pytest.approx(0.2)],
        [pytest.approx(0.2), pytest.approx(0.2)],
    ]
    assert rows[0][0].source == "minicheck"
    assert rows[0][0].answer == "supported (chunk 2/3)"
    assert len(fake.calls) == 3 * 2 + 1 * 2  # every chunk x every sentence


# ---------------------------------------------------------------- tiny local models

WORDS = [
    *("the", "a", "cat", "dog", "sat", "ran", "on", "mat", "far", "away", "it", "rained"),
    *("sun", "shone", ".", ",", "0", "1", "predict", ":", "red", "blue", "green", "fox"),
]


def _tokenizer(extra: int = 0) -> Any:
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )


def _save(model: Any, tokenizer: Any, path: Path) -> str:
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> str:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    tokenizer = _tokenizer()
    config = transformers.RobertaConfig(
        vocab_size=64,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=600,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=1,
        num_labels=2,
    )
    model = transformers.RobertaForSequenceClassification(config)
    return _save(model, tokenizer, tmp_path_factory.mktemp("tiny-roberta"))


@pytest.fixture(scope="module")
def tiny_deberta(tmp_path_factory: pytest.TempPathFactory) -> str:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(1)
    config = transformers.DebertaV2Config(
        vocab_size=64,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=64,
        relative_attention=True,
        position_buckets=16,
        pos_att_type=["p2c", "c2p"],
        position_biased_input=False,
        pad_token_id=0,
        num_labels=2,
    )
    model = transformers.DebertaV2ForSequenceClassification(config)
    return _save(model, _tokenizer(), tmp_path_factory.mktemp("tiny-deberta"))


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory: pytest.TempPathFactory) -> str:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(2)
    config = transformers.T5Config(
        vocab_size=256,  # holds MiniCheck's label ids 3 and 209
        d_model=32,
        d_kv=16,
        d_ff=37,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    model = transformers.T5ForConditionalGeneration(config)
    return _save(model, _tokenizer(), tmp_path_factory.mktemp("tiny-t5"))


DOC = "The cat sat on the mat. It rained far away. The sun shone. A dog ran."
CLAIMS = ["The cat sat.", "A dog ran far away."]


def _rows(judge: MiniCheckJudge, texts: list[str], claims: list[str]) -> list[list[float]]:
    rows = asyncio.run(minicheck_support_rows(judge, texts, claims))
    for row in rows:
        for j in row:
            assert j.source == "minicheck"
            assert j.answer.split()[0] in ("supported", "unsupported")
    return [[j.value for j in row if j.value is not None] for row in rows]


@pytest.mark.parametrize("fixture", ["tiny_roberta", "tiny_deberta", "tiny_t5"])
def test_local_judge_end_to_end(fixture: str, request: pytest.FixtureRequest) -> None:
    path = request.getfixturevalue(fixture)
    kind = {"tiny_roberta": "roberta-large", "tiny_deberta": "deberta-v3-large"}.get(
        fixture, "flan-t5-large"
    )
    judge = MiniCheckJudge(kind, path, batch_size=3, chunk_size=6)  # type: ignore[arg-type]
    texts = [DOC, "The sun shone."]
    values = _rows(judge, texts, CLAIMS)
    assert [len(r) for r in values] == [2, 2]
    assert all(0.0 <= v <= 1.0 for row in values for v in row)
    # Max over chunks, and chunking respected: DOC is several chunks.
    chunks = judge.chunks(DOC)
    assert len(chunks) > 1
    for claim, value in zip(CLAIMS, values[0], strict=True):
        per_chunk = judge.pair_probs([(c, claim) for c in chunks])
        assert value == pytest.approx(max(per_chunk))
    # Deterministic, and (up to padding noise) independent of the batch size.
    assert _rows(judge, texts, CLAIMS) == values
    one = MiniCheckJudge(kind, path, batch_size=1, chunk_size=6)  # type: ignore[arg-type]
    assert _rows(one, texts, CLAIMS) == [[pytest.approx(v, abs=1e-5) for v in r] for r in values]
    assert judge.score(DOC, CLAIMS[0]) == pytest.approx(values[0][0])


def test_classifier_chunks_count_model_tokens(tiny_roberta: str) -> None:
    judge = MiniCheckJudge("roberta-large", tiny_roberta)
    assert judge.chunk_size == 400
    sentence = "The " + " ".join(["cat sat on the mat"] * 12) + "."  # 61 tokens
    doc = " ".join([sentence] * 20)  # 20 sentences, 1220 tokens
    chunks = judge.chunks(doc)
    assert len(chunks) == 4  # 6 sentences (366 tokens) fit in 400, 7 do not
    assert all(len(c.split()) <= 400 for c in chunks)


def test_t5_reads_the_label_tokens(tiny_t5: str) -> None:
    torch = pytest.importorskip("torch")
    judge = MiniCheckJudge("flan-t5-large", tiny_t5)
    (p,) = judge.pair_probs([("The cat sat.", "A cat.")])
    loaded = judge._loaded()
    batch = loaded.tokenizer(["predict: The cat sat.</s>A cat."], return_tensors="pt")
    with torch.no_grad():
        logits = loaded.model(**batch, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long))
    pair = logits.logits[0, 0, [3, 209]]
    assert p == pytest.approx(float(torch.softmax(pair, dim=-1)[1]), abs=1e-6)
    # Other label ids give another (still valid) probability.
    other = MiniCheckJudge("flan-t5-large", tiny_t5, label_token_ids=(20, 21))
    (q,) = other.pair_probs([("The cat sat.", "A cat.")])
    assert 0.0 <= q <= 1.0 and q != pytest.approx(p)


def test_model_is_loaded_once(tiny_roberta: str) -> None:
    a = MiniCheckJudge("roberta-large", tiny_roberta)._loaded()
    b = MiniCheckJudge("roberta-large", tiny_roberta, batch_size=2)._loaded()
    assert a is b


def test_missing_model_says_weights_must_be_local(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    missing = str(tmp_path / "no-such-model")
    judge = MiniCheckJudge("roberta-large", missing)
    with pytest.raises(MiniCheckModelNotFoundError, match="no-such-model") as err:
        judge.score("The cat sat.", "A cat.")
    assert "locally" in str(err.value) or "local" in str(err.value)
    with pytest.raises(MiniCheckModelNotFoundError, match="longform-evals-test/absent"):
        MiniCheckJudge("flan-t5-large", "longform-evals-test/absent").score("a.", "b.")


def test_faithfulness_scorer_with_a_minicheck_classifier(tiny_roberta: str, tmp_path: Path) -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import get_model

    from longform_evals.judges.faithfulness.support import JudgeOptions
    from longform_evals.scorers.faithfulness import faithfulness
    from longform_evals.solvers import given_summary

    docs = ["The council met on Monday. It approved the budget.", "Repairs start in May."]
    sample = Sample(id="s", input="x", metadata={"documents": docs, "summary": "It met. It ended."})
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=given_summary(),
        scorer=faithfulness(
            judge="minicheck-roberta-large", judge_options=JudgeOptions(path=tiny_roberta)
        ),
    )
    [log] = inspect_eval(
        task, model=get_model("scripted/none", rules=[], memoize=False), log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert log.samples and log.samples[0].scores
    score = log.samples[0].scores["faithfulness"]
    assert isinstance(score.value, dict)
    assert 0.0 <= score.value["max_mean"] <= 1.0
    assert score.metadata and score.metadata["judge"] == "minicheck-roberta-large"
    assert {s for row in score.metadata["answer_sources"] for s in row} == {"minicheck"}


def test_a_minicheck_judge_takes_the_retrieval_option(tiny_roberta: str, tmp_path: Path) -> None:
    """Retrieval in front of a classifier: only the retrieved (unit, sentence) pairs are
    scored, each with the value the classifier gives reading every unit."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import get_model

    from longform_evals.scorers.faithfulness import faithfulness
    from longform_evals.solvers import given_summary

    docs = ["The council met on Monday.", "Repairs start in May.", "The mill burned down."]
    sample = Sample(
        id="s", input="x", metadata={"documents": docs, "summary": "Repairs start. It met."}
    )

    def run(retrieval: str) -> dict[str, Any]:
        task = Task(
            dataset=MemoryDataset([sample]),
            solver=given_summary(),
            scorer=faithfulness(
                judge="minicheck-roberta-large",
                judge_options={"path": tiny_roberta, "retrieval": retrieval},
            ),
        )
        [log] = inspect_eval(
            task, model=get_model("scripted/none", rules=[], memoize=False), log_dir=str(tmp_path)
        )
        assert log.status == "success", log.error
        assert log.samples and log.samples[0].scores
        score = log.samples[0].scores["faithfulness"]
        assert isinstance(score.value, dict) and score.metadata is not None
        return {"value": score.value, "meta": score.metadata}

    every, retrieved = run("all"), run("bm25:1")
    assert every["value"]["judge_calls"] == 6.0 and retrieved["value"]["judge_calls"] == 2.0
    sources = retrieved["meta"]["answer_sources"]
    assert [row.count("minicheck") for row in sources] == [1, 1, 0]  # met -> 0, repairs -> 1
    for d, row in enumerate(retrieved["meta"]["matrix"]):
        for j, value in enumerate(row):
            if sources[d][j] == "minicheck":
                assert value == pytest.approx(every["meta"]["matrix"][d][j])
