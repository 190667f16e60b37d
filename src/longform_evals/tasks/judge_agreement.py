# inspect-evals-lint: ignore-file[IEFS002] -- one module per task, as docs/architecture.md lays out
"""Judge agreement: how far a judge agrees with people's labels, before its scores are trusted.

    inspect eval longform_evals/judge_agreement --model none \
        --model-role grader=gguf/qwen2.5-coder-1.5b \
        -T kind=coherence -T data=summary-gpt4-4096-hier.json
    inspect eval longform_evals/judge_agreement --model none --model-role grader=openai/gpt-4o \
        -T kind=faithfulness -T data=LongSciVerify/

The summaries and people's labels come from the data (`longform_evals.data.labels`
reads BooookScore span annotations, LongSciVerify, FABLES and LongFormFact in their published
formats); nothing is generated. The judge (the `grader` role, else the `--model`) is asked about
every labelled unit exactly as the suite's scorers ask it, and the task reports, each with a
95 % bootstrap interval over summaries: precision, recall and F1 of its flags, balanced
accuracy at its own threshold, ROC AUC of its probability, Cohen's kappa against each
annotator and Krippendorff's alpha (the annotators' own agreement beside it as the ceiling),
the flag rates, and Kendall's tau between people's and the judge's per-summary scores (and
per-system means). `longform judge-card` runs this task and writes the figures as a card.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from longform_evals.data.labels.load import load_judge_labels
from longform_evals.data.labels.schema import JudgeLabelSet
from longform_evals.data.sources import DATA_SOURCE_KEY, local_source
from longform_evals.judges.agreement_judge import AgreementJudge
from longform_evals.judges.coherence.paper import SentenceLayout
from longform_evals.scorers.judge_agreement import judge_agreement as agreement
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.tasks.arguments import strict_parameters
from longform_evals.tasks.parameters import (
    POSITIVE,
    SCORING,
    DataFile,
    JudgeText,
    Param,
    PromptsDir,
    Threshold,
)
from longform_evals.vocabulary import JUDGE_KINDS, JudgeKind, ScorerMode


def budget_order(samples: list[Sample]) -> list[Sample]:
    """The summaries in the order a budget takes them: by the hash of their ids, so a budget
    spreads over books and systems instead of taking the first of the file."""
    return sorted(samples, key=lambda s: hashlib.sha256(str(s.id).encode()).hexdigest())


def _by_budget(samples: list[Sample], budget: int | None) -> list[Sample]:
    """At most `budget` summaries, the same ones on every run (the first of `budget_order`),
    in the data's order."""
    if budget is None:
        return samples
    if budget < 1:
        raise ValueError(f"budget must be at least 1 summary, got {budget}")
    keep = {id(s) for s in budget_order(samples)[:budget]}
    return [s for s in samples if id(s) in keep]


def _check_fits(labels: JudgeLabelSet, kind: JudgeKind) -> None:
    """Refuse data of the other kind, and faithfulness data without source text."""
    if labels.kind != kind:
        raise ValueError(
            f"{labels.source} holds {labels.kind} labels ({labels.format}); "
            f"kind={kind} needs {kind} labels"
        )
    if kind == "faithfulness":
        bare = [s.id for s in labels.samples if not (s.metadata or {}).get("document")]
        if bare:
            raise ValueError(
                f"{len(bare)} summaries of {labels.source} have no source text (e.g. {bare[0]!r}):"
                " a faithfulness judge needs it (FABLES: give the books with -T books=FOLDER)"
            )


@task
@strict_parameters
def judge_agreement(
    kind: Annotated[JudgeKind, SCORING] = "coherence",
    data: DataFile = None,
    budget: Annotated[int | None, Param("data", POSITIVE)] = None,
    mode: Annotated[ScorerMode, SCORING] = "auto",
    layout: Annotated[SentenceLayout, SCORING] = "quoted",
    calibration: Annotated[str | None, Param("scoring", path=True)] = None,
    threshold: Threshold = None,
    judge: Annotated[str, SCORING] = "llm",
    chunking: JudgeText = None,
    books: Annotated[str | None, Param("data", path=True)] = None,
    prompts_dir: PromptsDir = None,
    retrieval: JudgeText = None,
) -> Task:
    """A judge's agreement with people's labels on a human-labelled set.

    Args:
        kind: `coherence` (the BooookScore judge; data: BooookScore human annotations) or
            `faithfulness` (a support judge; data: LongSciVerify, FABLES, LongFormFact).
        data: the labelled data, as published: a BooookScore annotation JSON, the
            LongSciVerify folder (reviewer CSVs and `arxiv_test.json`), a FABLES JSON(L)
            file, a LongFormFact `.jsonl` file or folder.
        budget: judge at most this many summaries (a fixed choice by id hash, spread over
            books and systems); all when omitted.
        mode: coherence: the BooookScore scorer's mode (`auto`, `probe`, `sentence`, `batched`).
        layout: coherence, `sentence` mode: the prompt layout (`quoted` or `numbered`).
        calibration: coherence, `probe` mode: a thresholds file instead of the packaged one.
        threshold: one threshold instead of the calibrated ones (coherence `probe` mode: for
            every probe; faithfulness: the support threshold).
        judge: faithfulness: the support judge (`llm`, or a MiniCheck judge).
        chunking: faithfulness: how the judge reads the source (`natural`, `tokens:N`,
            `words:N`); default: the judge's calibration.
        books: FABLES: a folder of the books' texts (`<title>.txt`), which FABLES does not
            publish.
        prompts_dir: folder overriding the judges' prompt templates.
        retrieval: faithfulness: which source units the judge reads for each sentence: `all`,
            or `<retriever>:<k>` (`bm25`, `embedding`, `fused`; docs/faithfulness.md); default:
            the judge's calibration.
    """
    if kind not in JUDGE_KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected 'coherence' or 'faithfulness'")
    if data is None:
        raise ValueError(
            "judge_agreement needs -T data=...: BooookScore human annotations (kind=coherence),"
            " or LongSciVerify, FABLES or LongFormFact files (kind=faithfulness); "
            "docs/judges.md says where each is published"
        )
    options: dict[str, Any] = {"books": books} if books is not None else {}
    labels = load_judge_labels(data, kind=kind, **options)
    _check_fits(labels, kind)
    samples = _by_budget(labels.samples, budget)
    if not samples:
        raise ValueError(f"{labels.source}: no labelled summary to judge")
    return Task(
        dataset=MemoryDataset(samples, name=f"judge_agreement_{kind}"),
        solver=given_summary(),
        scorer=agreement(
            AgreementJudge(
                kind=kind,
                mode=mode,
                layout=layout,
                calibration=calibration,
                threshold=threshold,
                support_judge=judge,
                chunking=chunking,
                prompts_dir=prompts_dir,
                retrieval=retrieval,
            )
        ),
        metadata={
            "kind": kind,
            "data": labels.source,
            "format": labels.format,
            "annotators": labels.annotators,
            "summaries": len(samples),
            "summaries_in_data": len(labels.samples),
            "budget": budget,
            "skipped": [{"where": s.where, "reason": s.reason} for s in labels.skipped],
            DATA_SOURCE_KEY: local_source(data),
        },
        version="1.4.0",
    )
