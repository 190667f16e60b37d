"""A summary strategy added to the package: the files `test_adding_to_the_package.py` writes
into a scratch copy (docs/architecture.md, "How to add a strategy").

`lede`: summarize the opening paragraphs of the document in one call, with its templates
(plain and question-focused) in one prompt folder and its cost beside the solver."""

from __future__ import annotations

from additions.shape import Addition, Insert

MODULE = '''"""Summarize only the opening paragraphs of a document in one call (a lede baseline)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from longform_evals.solvers.common.recording import SummaryRun, document_of
from longform_evals.solvers.costs import Cost, calls, summary_cap
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.setup import summarizer

__all__ = ["lede_cost", "lede_summary"]


@solver
def lede_summary(settings: SummarySettings | None = None, paragraphs: int = 3) -> Solver:
    """Summarize the first ``paragraphs`` paragraphs of the document (``lede/`` templates)."""
    setup = summarizer(settings, "lede", ("summarize",), False, (3, None), "cl100k_base")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        prompt = setup.prompts.bind(state)["summarize"]
        run = SummaryRun(
            state, "lede", "cl100k_base", setup.final.counters, setup.settings.cache
        )
        run.plan(1)
        text = "\\n\\n".join(document_of(state).split("\\n\\n")[:paragraphs])
        outcome = await run.summarize(
            lambda words: prompt.render(text=text, word_limit=words),
            setup.settings.summary_tokens,
            setup.tries,
            step="chunk",
        )
        run.record("chunk", 0, 0, outcome)
        await setup.final.finish(run, outcome.text)
        return state

    return solve


def lede_cost(docs: Sequence[int], per_doc: int, args: Mapping[str, Any]) -> Cost:
    """One call reading at most the whole document."""
    cap = summary_cap(args)
    return calls(1, min(sum(docs), int(args["context_window"]) - cap), cap, "chunk_summary")
'''

PLAIN = """Summarize the opening of a story below in at most {word_limit} words.

\"\"\"
{text}
\"\"\"

Summary:
"""

FOCUSED = """Summarize the opening of a story below in at most {word_limit} words.

\"\"\"
{text}
\"\"\"

Keep to what answers this question: {question}

Summary:
"""

TEST = '''"""The `lede` strategy: one call over the opening paragraphs."""

from __future__ import annotations

from inspect_ai import eval

from longform_evals.data.squality import bundled_squality_fixture
from longform_evals.models.step_usage import step_usage
from longform_evals.tasks.narrative import squality


def test_lede_summarizes_the_opening_in_one_call(tmp_path) -> None:
    task = squality(data=str(bundled_squality_fixture()), strategy="lede")
    [log] = eval(
        task,
        model="scripted/x",
        model_args={"default_response": "Someone opens a door."},
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples
    [sample] = log.samples
    assert sample.metadata["summary"] == "Someone opens a door."
    assert set(step_usage(sample)) == {"chunk_summary"}
'''

ADDITION = Addition(
    kind="summary strategy",
    name="lede",
    files={
        "src/longform_evals/solvers/summarize/lede.py": MODULE,
        "src/longform_evals/prompts/lede/summarize.txt": PLAIN,
        "src/longform_evals/prompts/lede/focused/summarize.txt": FOCUSED,
        "tests/solvers/summarize/test_lede.py": TEST,
    },
    inserts=(
        Insert(
            "src/longform_evals/solvers/strategies.py",
            anchor="from longform_evals.solvers.summarize.incremental import incremental_update\n",
            text="from longform_evals.solvers.summarize.lede import lede_cost, lede_summary\n",
        ),
        Insert(
            "src/longform_evals/solvers/strategies.py",
            anchor='options={"preprocess": True, "compress": True}, wrapper="nexussum"),\n',
            text='    Strategy("summary", "lede", lede_summary, lede_cost, ("chunk_summary",),\n'
            '             wrapper="lede"),\n',
        ),
    ),
    limit=4,
)
