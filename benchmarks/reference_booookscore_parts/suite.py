"""The suite's side: its scoring and summarizing runs through `inspect_ai.eval` on the served
model, the suite's judge given an official prompt, and the verdicts read from the logs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import ChatMessageUser, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Solver, TaskState

from longform_evals.data.books import load_books, load_summaries
from longform_evals.judges.coherence.paper import JudgeSettings, judge_summary
from longform_evals.judges.text_check import check_text
from longform_evals.scorers.booookscore import booookscore_values
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.solvers.summarize.hierarchical import hierarchical_merge
from longform_evals.solvers.summarize.incremental import incremental_update

from .common import Endpoint, Options, Run, Usage
from .verdicts import Verdict


def _prompt_of(event: ModelEvent) -> str:
    users = [m for m in event.input if isinstance(m, ChatMessageUser)]
    return users[0].text if users else ""


def first_answers(sample: EvalSample, sentence_of: Callable[[str], str | None]) -> dict[str, str]:
    """The judge's first answer about each sentence, keyed by the sentence its prompt asks about."""
    found: dict[str, str] = {}
    # Logs keep long prompts as `attachment://` references.
    for event in resolve_sample_attachments(sample).events or []:
        if isinstance(event, ModelEvent):
            sentence = sentence_of(_prompt_of(event))
            if sentence is not None and sentence not in found:
                found[sentence] = event.output.completion
    return found


def quoted_sentence(prompt: str) -> str | None:
    """The sentence a `quoted` sentence-mode prompt asks about."""
    marker = "Sentence to judge:\n<sentence>\n"
    at = prompt.rfind(marker)
    if at < 0:
        return None
    start = at + len(marker)
    return prompt[start : prompt.index("\n</sentence>", start)]


def suite_verdicts(
    sample: EvalSample, score_name: str, sentence_of: Callable[[str], str | None] | None
) -> list[Verdict]:
    score = (sample.scores or {})[score_name]
    answers = first_answers(sample, sentence_of) if sentence_of else {}
    return [
        Verdict(
            v["sentence"],
            bool(v["parsed"]),
            bool(v["confused"]),
            tuple(v["types"]),
            answers.get(v["sentence"], ""),
            (v["problems"] or [""])[0],
        )
        for v in (score.metadata or {})["sentences"]
    ]


def official_prompt_folder(
    template: str, folder: Path, batched: bool = False
) -> tuple[Path, Path, Callable[[str], str | None] | None]:
    """An official prompt as a `prompts_dir` override of the suite's template, an empty
    demonstrations file, and how to find a prompt's sentence (per-sentence prompt only).

    The per-sentence template has two positional `{}` (summary, sentence); the batched one is
    already in `str.format` form with `{summary}` and `{sentences}` (numbered "1. ..." as the
    suite numbers them). The suite's fields are named and must all be there, so
    `{demonstrations}` goes at the end and is rendered empty.
    """
    (folder / "booookscore").mkdir(parents=True, exist_ok=True)
    demonstrations = folder / "no-demonstrations.json"
    demonstrations.write_text(json.dumps({"demonstrations": []}))
    if batched:
        if template.count("{sentences}") != 1 or template.count("{summary}") != 1:
            raise ValueError("the official batched prompt needs one {summary} and one {sentences}")
        text = template.replace("{sentences}", "{numbered_sentences}") + "{demonstrations}"
        (folder / "booookscore" / "judge_batch.txt").write_text(text, encoding="utf-8")
        return folder, demonstrations, None
    pieces = template.split("{}")
    if len(pieces) != 3:
        raise ValueError(f"the official per-sentence prompt has {len(pieces) - 1} '{{}}', not 2")
    escaped = [p.replace("{", "{{").replace("}", "}}") for p in pieces]
    text = escaped[0] + "{summary}" + escaped[1] + "{sentence}" + escaped[2] + "{demonstrations}"
    (folder / "booookscore" / "judge_sentence_quoted.txt").write_text(text, encoding="utf-8")
    before, after = pieces[1], pieces[2]

    def sentence_of(prompt: str) -> str | None:
        at = prompt.rfind(before)
        if at < 0 or not prompt.endswith(after):
            return None
        return prompt[at + len(before) : len(prompt) - len(after)]

    return folder, demonstrations, sentence_of


@scorer(metrics=[mean()])
def official_prompt_judge(
    prompts_dir: str,
    demonstrations: str,
    max_attempts: int = 3,
    mode: str = "sentence",
    batch_size: int = 10,
) -> Scorer:
    """The suite's judge (`judge_summary`, sentence or batched mode) with an official prompt
    and no demonstrations; values as the booookscore scorer's, verdicts in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        check = check_text(state.output.completion, judged=True)
        settings = JudgeSettings(
            mode="batched" if mode == "batched" else "sentence",
            batch_size=batch_size,
            max_attempts=max_attempts,
            cache=False,
            prompts_dir=prompts_dir,
            demonstrations=demonstrations,
        )
        # the summary as written, as the official code formats it into its prompt
        verdicts, calls = await judge_summary(
            get_model(role="grader"), check.sentences, settings, text=state.output.completion
        )
        return Score(
            value=booookscore_values(verdicts, calls),
            metadata={"sentences": [v.as_dict() for v in verdicts]},
        )

    return score


def _eval(task: str | Task, endpoint: Endpoint, work: Path, **kwargs: Any) -> tuple[EvalLog, float]:
    model = endpoint.inspect_model()
    start = time.perf_counter()
    [log] = inspect_eval(
        task,
        model=model,
        model_roles={"grader": model},
        log_dir=str(work / "logs"),
        display="none",
        **kwargs,
    )
    seconds = time.perf_counter() - start
    if log.status != "success":
        raise RuntimeError(f"the suite's run failed: {log.error}")
    return log, seconds


def _summaries_file(summaries: Mapping[str, str], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps({"id": k, "summary": v}) + "\n" for k, v in summaries.items()),
        encoding="utf-8",
    )
    return path


def run_suite_scorer(
    endpoint: Endpoint,
    options: Options,
    summary_id: str,
    summary: str,
    mode: str,
    work: Path,
    official_template: str | None = None,
) -> Run:
    data = _summaries_file({summary_id: summary}, work / "summary.jsonl")
    if official_template is not None:
        batched = mode == "batched"
        folder, demos, finder = official_prompt_folder(official_template, work / "prompts", batched)
        judge = official_prompt_judge(
            str(folder), str(demos), options.max_attempts, mode, options.batch_size
        )
        task: str | Task = Task(
            dataset=MemoryDataset(load_summaries(data)), solver=given_summary(), scorer=judge
        )
        log, seconds = _eval(task, endpoint, work, max_connections=options.parallel)
        score_name, name = "official_prompt_judge", f"suite {mode}, official prompt"
    else:
        batched = mode == "batched"
        log, seconds = _eval(
            "longform_evals/booookscore",
            endpoint,
            work,
            max_connections=options.parallel,
            task_args={
                "score_only": True,
                "data": str(data),
                "judge_mode": mode,
                "judge_batch": options.batch_size if batched else 0,
                "judge_cache": False,
                "judge_readings": False,  # the official package judges sentences as written
            },
        )
        score_name, name = "booookscore", f"suite {mode}"
        finder = None if batched else quoted_sentence
    return suite_scoring_run(log, seconds, name, score_name, finder)


def suite_scoring_run(
    log: EvalLog,
    seconds: float,
    name: str,
    score_name: str,
    finder: Callable[[str], str | None] | None,
) -> Run:
    """The Run of a suite scoring log (one summary)."""
    [sample] = log.samples or []
    value = (sample.scores or {})[score_name].value
    assert isinstance(value, dict)
    return Run(
        name=name,
        seconds=seconds,
        usage=Usage.of_log(log),
        booookscore=float(value["booookscore"]),
        verdicts=suite_verdicts(sample, score_name, finder),
    )


def run_suite_summarizer(
    endpoint: Endpoint, options: Options, book: Path, strategy: str, work: Path
) -> Run:
    settings = SummarySettings(
        chunk_size=options.chunk_size,
        context_window=options.context_window,
        max_summary_tokens=options.max_summary_tokens,
        temperature=0.0,
        remove_artifacts=False,  # the official summ.py has none (postprocess.py is apart)
        cache=False,
    )
    solver: Solver = (
        hierarchical_merge(settings)
        if strategy == "hierarchical"
        else incremental_update(settings, compression_temperature=0.0)
    )
    task = Task(dataset=MemoryDataset(load_books(book)), solver=solver)
    log, seconds = _eval(task, endpoint, work, max_connections=options.parallel, score=False)
    [sample] = log.samples or []
    metadata = sample.metadata or {}
    stats = metadata.get("summary_stats", {})
    return Run(
        name=f"suite {strategy}",
        seconds=seconds,
        usage=Usage.of_log(log),
        summary=str(metadata.get("summary", "")),
        notes={
            k: stats.get(k)
            for k in (
                "chunks",
                "levels",
                "merges",
                "updates",
                "compressions",
                "retries",
                "forced_accepts",
            )
            if k in stats
        },
    )


def judge_summaries(
    endpoint: Endpoint, options: Options, summaries: Mapping[str, str], work: Path
) -> tuple[dict[str, float], dict[str, float], float]:
    """One judge over every summary: the suite's sentence mode. BooookScore and parse failure
    rate by summary, and the wall time."""
    data = _summaries_file(summaries, work / "produced.jsonl")
    log, seconds = _eval(
        "longform_evals/booookscore",
        endpoint,
        work,
        max_connections=options.parallel,
        task_args={
            "score_only": True,
            "data": str(data),
            "judge_mode": "sentence",
            "judge_cache": False,
            "judge_readings": False,  # the official package judges sentences as written
        },
    )
    scores, failures = {}, {}
    for sample in log.samples or []:
        value = (sample.scores or {})["booookscore"].value
        assert isinstance(value, dict)
        scores[str(sample.id)] = float(value["booookscore"])
        failures[str(sample.id)] = float(value["parse_failure_rate"])
    return scores, failures, seconds
