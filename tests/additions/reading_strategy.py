"""A reading strategy added to the package, with an option of its own (`opening_words`, a
`-T` parameter of the reading tasks): the files `test_adding_to_the_package.py` writes into a
scratch copy. It answers through the shared answer templates, so it has no prompt folder."""

from __future__ import annotations

from additions.shape import Addition, Insert

MODULE = '''"""Answer a question from the opening words of the document only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.solvers.costs import ANSWER_TOKENS, TOKENS_PER_WORD, Cost, calls
from longform_evals.solvers.reading.run import ReadingRun
from longform_evals.solvers.settings import ReadingSettings

__all__ = ["opening_cost", "opening_words"]


@solver
def opening_words(settings: ReadingSettings | None = None, opening_words: int = 400) -> Solver:
    """Answer from the first ``opening_words`` words of the document."""
    if opening_words < 1:
        raise ValueError(f"opening_words must be >= 1, got {opening_words}")
    chosen = settings or ReadingSettings()
    kept_words = opening_words

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run = ReadingRun.answering(
            state, "opening", chosen, prompts_dir=chosen.prompts_dir, cache=chosen.cache
        )
        kept = " ".join(run.document.split()[:kept_words])
        return await run.answer(kept, min(kept_words, run.doc_words))

    return solve


def opening_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """The answer, reading the opening words kept."""
    read = min(sum(docs), int(args["opening_words"]) * TOKENS_PER_WORD)
    return calls(1, read, ANSWER_TOKENS, "answer")
'''

TEST = '''"""The `opening` reading strategy: the answer reads the opening words only."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval

import longform_evals
from longform_evals.tasks.reading import quality

QUALITY = Path(longform_evals.__file__).parent / "data" / "reading" / "quality_fixture.jsonl"


def test_the_answer_reads_only_the_opening_words(tmp_path) -> None:
    task = quality(data=str(QUALITY), strategy="opening", opening_words=12)
    [log] = eval(
        task,
        model="scripted/x",
        model_args={"default_response": "Answer: (A)"},
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples
    reading = log.samples[0].metadata["reading"]
    assert reading["strategy"] == "opening" and reading["context_words_max"] == 12


def test_its_option_is_checked_at_once() -> None:
    with pytest.raises(ValueError, match="opening_words"):
        quality(data=str(QUALITY), strategy="opening", opening_words=0)
'''

_PARAMETER = "    opening_words: Words = None,\n"
_QUALITY_ARGS = "        answer_max_tokens:"

ADDITION = Addition(
    kind="reading strategy with an option",
    name="opening",
    files={
        "src/longform_evals/solvers/reading/opening.py": MODULE,
        "tests/solvers/reading/test_opening.py": TEST,
    },
    inserts=(
        Insert(
            "src/longform_evals/solvers/strategies.py",
            anchor="from longform_evals.solvers.reading import read_agent, retrieval\n",
            text="from longform_evals.solvers.reading.opening import opening_cost, opening_words\n",
        ),
        Insert(
            "src/longform_evals/solvers/strategies.py",
            anchor="    # summaries of several documents against positional bias",
            text='    Strategy("reading", "opening", opening_words, opening_cost, ("answer",)),\n',
            before=True,
        ),
        # the option, a parameter of every reading task (declared once, `sharing`)
        Insert(
            "src/longform_evals/tasks/reading.py",
            anchor="    max_words: Words = None,\n",
            text=_PARAMETER,
        ),
        Insert(
            "src/longform_evals/tasks/reading.py",
            anchor=_QUALITY_ARGS,
            text="        opening_words: words the `opening` strategy reads (default 400).\n",
            before=True,
        ),
    ),
    limit=5,
)
