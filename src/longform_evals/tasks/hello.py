# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""A minimal task that checks the whole call path: prompt file, solver, model, scorer, log.

inspect eval longform_evals/hello_longform --model gguf/qwen2.5-coder-1.5b
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.solver import generate as generate_solver

from longform_evals.prompts import load_prompt
from longform_evals.tasks.arguments import strict_parameters
from longform_evals.tasks.parameters import PromptsDir

# Two short passages written for this project; the answer is stated once in each.
_SAMPLES = [
    Sample(
        id="lighthouse",
        input="Who kept the lamp burning during the storm?",
        target="Marta",
        metadata={
            "passage": (
                "The lighthouse on Gull Point had been automated for years, but on the night "
                "the relay failed it was Marta, the harbour master's niece, who climbed the "
                "hundred and twelve steps and kept the lamp burning by hand until dawn. The "
                "fishing boats came home one by one, guided by her light."
            )
        },
    ),
    Sample(
        id="orchard",
        input="What fruit did the orchard grow after the replanting?",
        target="pears",
        metadata={
            "passage": (
                "For three generations the Hallam orchard grew nothing but cider apples. After "
                "the blight of the wet summer, Edwin Hallam pulled out every tree and replanted "
                "the slope with pears, which his neighbours said would never ripen so far north. "
                "By the fifth autumn the branches bent under the weight of the fruit."
            )
        },
    ),
]


@solver
def answer_about_passage(prompts_dir: str | None = None) -> Solver:
    """Put the passage and question into the `hello/answer` template, then generate."""
    template = load_prompt("hello", "answer", prompts_dir)
    gen = generate_solver()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.user_prompt.text = template.render(
            passage=state.metadata["passage"], question=state.input_text
        )
        return await gen(state, generate)

    return solve


@task
@strict_parameters
def hello_longform(prompts_dir: PromptsDir = None) -> Task:
    """Ask a model one question about each of two short passages.

    Args:
        prompts_dir: optional folder whose `hello/answer.txt` replaces the packaged prompt.

    Returns:
        A two-sample task scored by whether the answer names the right person or fruit.
    """
    return Task(
        dataset=MemoryDataset(_SAMPLES, name="hello_longform"),
        solver=answer_about_passage(prompts_dir),
        scorer=includes(),
        config=GenerateConfig(temperature=0.0, max_tokens=64),
        version="1.0.0",
    )
