"""The smoke task's solver, `answer_about_passage`: the passage and the question go into the
`hello/answer` template (or a user's replacement of it) before the one generate call."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalSample
from inspect_ai.model import get_model
from inspect_ai.scorer import includes

from longform_evals.tasks.hello import answer_about_passage

PASSAGE = "The ferry to Holm leaves at dawn; Ansel sells the tickets from a green hut."
QUESTION = "Who sells the tickets?"


def _run(tmp_path: Path, prompts_dir: str | None = None) -> EvalSample:
    sample = Sample(id="ferry", input=QUESTION, target="Ansel", metadata={"passage": PASSAGE})
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=answer_about_passage(prompts_dir),
        scorer=includes(),
    )
    model = get_model("scripted/hello", rules=[{"default": "Ansel sells them."}], memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples
    return log.samples[0]


def test_the_packaged_template_holds_the_passage_and_the_question(tmp_path: Path) -> None:
    sample = _run(tmp_path)
    [prompt] = [m.text for m in sample.messages if m.role == "user"]
    assert PASSAGE in prompt and QUESTION in prompt
    assert prompt.startswith("Read the passage below")
    assert sample.output.completion == "Ansel sells them."
    assert sample.scores and sample.scores["includes"].value == "C"


def test_a_prompts_dir_replaces_the_template(tmp_path: Path) -> None:
    folder = tmp_path / "prompts" / "hello"
    folder.mkdir(parents=True)
    (folder / "answer.txt").write_text(
        "Story: {passage}\nAsked: {question}\nReply with a name.\n", encoding="utf-8"
    )
    sample = _run(tmp_path, str(tmp_path / "prompts"))
    [prompt] = [m.text for m in sample.messages if m.role == "user"]
    assert prompt.startswith(f"Story: {PASSAGE}\nAsked: {QUESTION}")
