"""The summarize/ prompt templates: fields, layout, and user overrides."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from longform_evals.prompts import PromptError, load_prompt
from longform_evals.solvers import full_context
from longform_evals.solvers.settings import SummarySettings
from solvers.summary_support import (
    ARTIFACTS,
    CHUNK,
    COMPRESS,
    FULL,
    INIT,
    MERGE,
    MERGE_CONTEXT,
    UPDATE,
)

FIELDS = {
    "chunk": {"text", "word_limit"},
    "merge": {"summaries", "word_limit"},
    "merge_context": {"context", "summaries", "word_limit"},
    "init": {"text", "word_limit"},
    "update": {"summary", "text", "word_limit"},
    "compress": {"summary", "words", "word_limit"},
    "artifacts": {"summary"},
    "full": {"text", "word_limit"},
}
MARKERS = {
    "chunk": CHUNK,
    "merge": MERGE,
    "merge_context": MERGE_CONTEXT,
    "init": INIT,
    "update": UPDATE,
    "compress": COMPRESS,
    "artifacts": ARTIFACTS,
    "full": FULL,
}


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_template_fields_and_layout(name: str) -> None:
    template = load_prompt("summarize", name)
    assert template.fields == FIELDS[name]
    text = template.text
    # instructions first; the texts next; the word count (which changes on retries) last
    first_field = min(text.index("{" + f + "}") for f in template.fields)
    assert first_field > len(text) // 2
    if "word_limit" in template.fields:
        others = [text.index("{" + f + "}") for f in template.fields if f != "word_limit"]
        assert text.index("{word_limit}") > max(others)


def test_markers_identify_exactly_one_template() -> None:
    for name, marker in MARKERS.items():
        hits = {n for n in FIELDS if re.search(marker, load_prompt("summarize", n).text)}
        expected = {name, "merge_context"} if name == "merge" else {name}
        assert hits == expected, name


def test_prompts_dir_overrides_a_template(tmp_path: Path, run_eval: Callable[..., Any]) -> None:
    folder = tmp_path / "prompts" / "summarize"
    folder.mkdir(parents=True)
    (folder / "full.txt").write_text("CUSTOM {text} in {word_limit} words\n")
    solver = full_context(SummarySettings(prompts_dir=str(tmp_path / "prompts")))
    log, _, model = run_eval(solver, [{"pattern": "CUSTOM", "response": "Fine."}], "A book.")
    assert log.status == "success"
    assert model.calls[0].prompt == "CUSTOM A book. in 585 words"
    (folder / "full.txt").write_text("CUSTOM {document}\n")
    with pytest.raises(PromptError, match="lacks field"):
        full_context(SummarySettings(prompts_dir=str(tmp_path / "prompts")))
