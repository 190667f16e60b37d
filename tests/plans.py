"""Plans of scripted models for the tests of `longform run`: two readers that always pick one
letter and summarize the bundled book, a third scripted model as the fixed judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import longform_evals

DATA = Path(longform_evals.__file__).resolve().parent / "data"
QUALITY = DATA / "reading" / "quality_fixture.jsonl"

READER_RULES: list[dict[str, Any]] = [
    {
        "pattern": r"(?s)Passage:.*?\n<(\d+)>.*Break point: <number>",
        "response": r"Break point: <\1>",
    },
    {"pattern": r"Shorten it to at most \d+ words\.", "response": "A short gist of this page."},
    {"pattern": r"Which pages would you like to read in full\?", "response": "[0]"},
]
SUMMARY = "Ines Calloway studies a frozen orchard. She finds a faulty sensor."


def rules(letter: str) -> str:
    """Inline rules of a model that always picks ``letter``."""
    answer = {"pattern": r"Answer: \(X\)", "response": f"Answer: ({letter})"}
    return json.dumps({"rules": [*READER_RULES, answer], "default": SUMMARY})


JUDGE_RULES = json.dumps({"rules": [], "default": "No confusion."})
GARBLED_JUDGE = json.dumps({"rules": [], "default": "Hmm, hard to say."})


def plan_text(
    log_dir: Path | str,
    *,
    judge: str = JUDGE_RULES,
    judge_name: str = "scripted/judge",
    budget: int | None = None,
    latency: float = 0.0,
    book: bool = True,
    readers: tuple[tuple[str, str], ...] = (("alpha", "B"), ("beta", "A")),
    strategies: tuple[str, ...] = ("full", "read_agent_p"),
    max_samples: int = 1,
    **settings: Any,
) -> str:
    """A plan (JSON, which is YAML) of scripted ``readers`` (name, the letter it answers) on
    QuALITY's fixture with each of ``strategies``, and the bundled book when ``book``; other
    top-level plan settings from ``settings``."""
    models = [
        {"model": f"scripted/{name}", "args": {"rules": rules(letter), "latency": latency}}
        for name, letter in readers
    ]
    tasks: list[dict[str, Any]] = [
        {
            "task": "quality",
            "args": {"data": str(QUALITY), "cache": True},
            "variants": {"strategy": list(strategies)},
        }
    ]
    if book:
        tasks.append(
            {
                "task": "booookscore",
                "name": "booookscore-hier512",
                "args": {"strategy": "hierarchical", "chunk_size": 512},
                "samples": ["the_frost_hold"],
            }
        )
    plan: dict[str, Any] = {
        "name": "scripted",
        "log_dir": str(log_dir),
        "models": models,
        "judge": {"model": judge_name, "mode": "sentence", "args": {"rules": judge}},
        "tasks": tasks,
        "max_samples": max_samples,
        **settings,
    }
    if budget is not None:
        plan["budget"] = {"tokens": budget}
    return json.dumps(plan)  # JSON is YAML
