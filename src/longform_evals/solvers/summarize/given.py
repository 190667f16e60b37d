"""A solver for scoring summaries that already exist: no model call."""

from __future__ import annotations

from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def given_summary() -> Solver:
    """Use the summary in `metadata["summary"]` as the output (scoring-only tasks)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        summary = state.metadata.get("summary")
        if not isinstance(summary, str):
            raise ValueError(f"sample {state.sample_id!r} has no metadata['summary'] to score")
        state.output = ModelOutput.from_content(model="given", content=summary)
        return state

    return solve
