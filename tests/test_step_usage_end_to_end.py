"""The per-step-kind token tally in the logged sample, end to end: every call the scripted model
received shows up under the kind of step that made it, summary steps and judge calls alike.

Each test routes the prompts of one kind to their own rule, so the model's recorded calls
(each with its rule and usage) say what the tally of the logged sample should be."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.model import get_model
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.models.step_usage import STEP_USAGE_FIELDS, step_usage
from longform_evals.scorers.booookscore import booookscore
from longform_evals.solvers import hierarchical_merge, incremental_update
from longform_evals.solvers.nexus.pipeline import NexusOptions, nexus_sum
from longform_evals.solvers.reading.memory import clear_reading_cache
from longform_evals.solvers.reading.read_agent import read_agent_parallel
from longform_evals.solvers.settings import SummarySettings
from solvers.summary_support import (
    ARTIFACTS,
    CHUNK,
    COMPRESS,
    INIT,
    MERGE,
    MERGE_CONTEXT,
    UPDATE,
    make_book,
    obedient,
)

Rule = dict[str, Any]
Tally = dict[str, dict[str, int]]


def _run(
    tmp_path: Path,
    solver: Solver,
    samples: list[Sample],
    rules: list[Rule],
    scorer: Scorer | None = None,
) -> tuple[list[EvalSample], ScriptedModelAPI]:
    """Run ``samples`` against a fresh scripted model (also the grader) and read the log back."""
    model = get_model("scripted/usage", rules=rules, memoize=False)
    task = Task(dataset=MemoryDataset(samples), solver=solver, scorer=scorer)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    on_disk = read_eval_log(log.location)
    assert on_disk.samples is not None
    return sorted(on_disk.samples, key=lambda s: str(s.id)), cast(ScriptedModelAPI, model.api)


def _expected(api: ScriptedModelAPI, kinds: Sequence[str]) -> Tally:
    """The tally the model's calls make, rule ``i`` standing for ``kinds[i]``."""
    tally: Tally = {}
    for call in api.calls:
        assert call.rule is not None, f"no rule answered {call.last_user[:80]!r}"
        row = tally.setdefault(kinds[call.rule], dict.fromkeys(STEP_USAGE_FIELDS, 0))
        usage = call.output.usage
        assert usage is not None
        row["calls"] += 1
        row["input_tokens"] += usage.input_tokens
        row["output_tokens"] += usage.output_tokens
    return tally


def _total(samples: list[EvalSample]) -> Tally:
    """The tallies of ``samples`` summed, as the leaderboard does."""
    total: Tally = {}
    for sample in samples:
        for kind, row in step_usage(sample).items():
            into = total.setdefault(kind, dict.fromkeys(STEP_USAGE_FIELDS, 0))
            for name, value in row.items():
                into[name] += value
    return total


def _calls(tally: Tally) -> dict[str, int]:
    return {kind: row["calls"] for kind, row in tally.items()}


# --- hierarchical merging, judged by BooookScore ---

SMALL = SummarySettings(chunk_size=200, context_window=1200, max_summary_tokens=120)
THREE_SENTENCES = "Anna crossed the bridge. Tomas waited by the river. They met at dusk."
SUMMARY_RULES: list[Rule] = [
    # the judge's prompt quotes the summary, so its rule comes first
    {"pattern": "Sentence to judge", "response": "No confusion."},
    {"pattern": CHUNK, "response": obedient("chunk", 20)},
    {"pattern": MERGE_CONTEXT, "response": obedient("ctxmerge", 30)},
    {"pattern": MERGE, "response": lambda text, k: THREE_SENTENCES},
]
SUMMARY_KINDS = ("judge", "chunk_summary", "merge", "merge")


def _book_sample() -> Sample:
    return Sample(id="book", input="Summarize the book.", metadata={"document": make_book(60)})


def test_hierarchical_merging_and_its_judge(tmp_path: Path) -> None:
    solver, scorer = hierarchical_merge(SMALL), booookscore(CoherenceJudging(mode="sentence"))
    [sample], api = _run(tmp_path, solver, [_book_sample()], SUMMARY_RULES, scorer)
    tally = step_usage(sample)
    assert tally == _expected(api, SUMMARY_KINDS)
    stats = sample.metadata["summary_stats"]
    # level 0 is chunk summaries, every level above merges; the scorer's calls count too
    assert _calls(tally) == {
        "chunk_summary": stats["chunks"],
        "merge": stats["merges"],
        "judge": 3,  # one call per sentence of the final summary
    }
    assert stats["chunks"] > 20 and stats["levels"] >= 3
    assert all(row["calls_without_usage"] == 0 for row in tally.values())


def test_a_run_replayed_from_the_cache_records_the_same_tally(tmp_path: Path) -> None:
    solver, scorer = hierarchical_merge(SMALL), booookscore(CoherenceJudging(mode="sentence"))
    [first], api1 = _run(tmp_path / "a", solver, [_book_sample()], SUMMARY_RULES, scorer)
    [again], api2 = _run(tmp_path / "b", solver, [_book_sample()], SUMMARY_RULES, scorer)
    # every call came from Inspect's cache, with the usage it was stored with
    assert len(api1.calls) > 20 and api2.calls == []
    assert step_usage(again) == step_usage(first) == _expected(api1, SUMMARY_KINDS)


# --- incremental updating with compression and artifact removal ---


def _words(label: str, n: int) -> str:
    return " ".join([*label.split(), *["word"] * (n - len(label.split()) - 1), "end."])


def test_incremental_updating_updates_compressions_and_cleaning(tmp_path: Path) -> None:
    rules: list[Rule] = [
        {"pattern": ARTIFACTS, "response": "Anna crossed the bridge and met Tomas at last."},
        {"pattern": COMPRESS, "response": _words("compressed", 15)},
        {"pattern": INIT, "response": _words("init", 20)},
        # the second update runs long (over 120 tokens), so it is compressed; updates say
        # "in this segment", so the summary is cleaned
        {
            "pattern": UPDATE,
            "response": lambda t, k: _words(f"In this segment {k}", 20 + 130 * (k == 1)),
        },
    ]
    settings = SummarySettings(chunk_size=200, context_window=1500, max_summary_tokens=120)
    sample_in = Sample(id="book", input="Summarize.", metadata={"document": make_book(12)})
    [sample], api = _run(tmp_path, incremental_update(settings), [sample_in], rules)
    tally = step_usage(sample)
    kinds = ("artifact_removal", "compression", "chunk_summary", "update")
    assert tally == _expected(api, kinds)
    stats = sample.metadata["summary_stats"]
    assert (stats["compressions"], stats["artifact_calls"]) == (1, 1)
    assert _calls(tally) == {
        "chunk_summary": 1,
        "update": stats["updates"],
        "compression": 1,
        "artifact_removal": 1,
    }


# --- ReadAgent-P on a QuALITY-like document with two questions ---

PAGINATE = r"Break point: <number>"
SHORTEN = r"Shorten it to at most \d+ words\."
LOOKUP = r"Which pages would you like to read in full\?"
ANSWER = r"Answer: \(X\)"
FILLER = (
    "the keeper climbed the stairs of the old tower and wound the lamp while the "
    "storm pressed against the shutters and the boats waited in the harbour"
)


def _document(n_paras: int = 30) -> str:
    filler = FILLER.split()
    return "\n\n".join(
        " ".join([f"P{i:03d}"] + [filler[k % len(filler)] for k in range(40 + (i * 13) % 25)])
        for i in range(n_paras)
    )


def _first_break(text: str, _: int) -> str:
    return "Break point: <{}>".format(re.findall(r"\n<(\d+)>", text.split("Passage:", 1)[1])[0])


def _question(doc: str, n: int) -> Sample:
    question = f"Question number {n}: why did the keeper wind the lamp?"
    return Sample(
        id=f"tower:{n}",
        input=question,
        choices=["For the boats.", "For the gulls."],
        target="A",
        metadata={
            "dataset": "quality",
            "doc_id": "tower",
            "document": doc,
            "doc_kind": "article",
            "doc_questions": 2,
            "question": question,
        },
    )


@pytest.fixture
def _fresh_memo() -> Iterator[None]:
    clear_reading_cache()
    yield
    clear_reading_cache()


@pytest.mark.usefixtures("_fresh_memo")
def test_read_agent_p_charges_shared_pages_and_gists_once(tmp_path: Path) -> None:
    rules: list[Rule] = [
        {"pattern": PAGINATE, "response": _first_break},
        {"pattern": SHORTEN, "response": "A short gist of this page."},
        {"pattern": LOOKUP, "response": "[1]"},
        {"pattern": ANSWER, "response": "Answer: (A)"},
    ]
    solver = read_agent_parallel(max_pages=2, min_words=100, max_words=250)
    doc = _document()
    samples, api = _run(tmp_path, solver, [_question(doc, 0), _question(doc, 1)], rules)
    kinds = ("pagination", "gist", "lookup", "answer")
    # the two questions share the document's pages and gists: summed, each call counts once
    assert _total(samples) == _expected(api, kinds)
    made = Counter(kinds[c.rule] for c in api.calls if c.rule is not None)
    assert made["pagination"] > 0 and made["gist"] == samples[0].metadata["reading"]["pages"] > 3
    tallies = [_calls(step_usage(s)) for s in samples]
    for tally in tallies:
        assert (tally["lookup"], tally["answer"]) == (1, 1)
    # the question that made the pages and gists is charged for them, the other is not
    assert sorted("gist" in t and "pagination" in t for t in tallies) == [False, True]


# --- NexusSum: preprocessing, scene summaries, compression, rewrite ---

DIALOGUE = r"The same scenes as third-person prose:"
SCENES = r"Stretch of the narrative:"
PIECE = r"Piece of the summary \("
REWRITE = r"Summary to edit:"
_QUOTED = re.compile(r'"""\n(.*?)\n"""', re.DOTALL)
DIALOGUE_BOOK = "\n\n\n".join(
    [
        'Anna met Tomas at the gate.\n\n"You are late," she said.',
        "The road was empty.\n\nThe rain kept falling over the hills.",
        "Night came.\n\nThe house was quiet and the lamps were out.",
        "Morning.\n\nTOMAS: I ran all the way.",
    ]
)


def _quoted(prompt: str) -> str:
    match = _QUOTED.search(prompt)
    assert match is not None
    return match.group(1)


def _first_half(prompt: str, _: int) -> str:
    words = _quoted(prompt).split()
    return " ".join(words[: max(1, len(words) // 2)]).rstrip(".") + "."


def test_nexus_sum_preprocess_summarize_compress_rewrite(tmp_path: Path) -> None:
    rules: list[Rule] = [
        {"pattern": DIALOGUE, "response": lambda p, k: f"Rewritten group {k} in prose."},
        {"pattern": SCENES, "response": lambda p, k: _quoted(p)},
        {"pattern": PIECE, "response": _first_half},
        {"pattern": REWRITE, "response": lambda p, k: _quoted(p) + " Smoothly."},
    ]
    solver = nexus_sum(
        SummarySettings(target_words=12), NexusOptions(scenes_per_chunk=1), rewrite=True
    )
    sample_in = Sample(id="book", input="Summarize.", metadata={"document": DIALOGUE_BOOK})
    [sample], api = _run(tmp_path, solver, [sample_in], rules)
    tally = step_usage(sample)
    assert tally == _expected(api, ("preprocess", "chunk_summary", "compression", "rewrite"))
    info, stats = sample.metadata["nexus_sum"], sample.metadata["summary_stats"]
    assert (info["dialogue_groups"], info["chunks"]) == (2, 4) and info["rounds"] >= 1
    assert _calls(tally) == {
        "preprocess": 2,
        "chunk_summary": 4,
        "compression": stats["compress_calls"],
        "rewrite": 1,
    }
