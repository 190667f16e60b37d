"""Faithfulness of a summary to its source documents, from one support matrix.

The judge (the `grader` role) gives a support value for every (document or chunk, summary
sentence) pair; every aggregation AGG_S over sentences of AGG_D over documents (max, mean, min
each: nine) and the position profiles are views of that one matrix, so reporting all of them
costs no call beyond the matrix. `include_full=True` adds the paper's `full` mode: each sentence
judged against all documents at once (one more call per sentence). The prompt, the chunking and
the decision thresholds default to the judge model's calibration when the project has one.
A summary without words is not judged (NaN, the reason counted: see
`longform_evals.scorers.unscorable`), nor are the wordless fragments of a worded one.
"""

from __future__ import annotations

import math
from itertools import product
from typing import Any, Literal

from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.analysis import SupportMatrix
from longform_evals.judges.faithfulness import (
    JUDGE_PROMPTS,
    FaithfulnessSettings,
    SupportJudgement,
    support_rows,
)
from longform_evals.judges.faithfulness_calibration import (
    JudgeCalibration,
    load_calibration,
)
from longform_evals.judges.minicheck import (
    MINICHECK_MODELS,
    MiniCheckJudge,
    MiniCheckLLMJudge,
    minicheck_judge,
    minicheck_support_rows,
)
from longform_evals.scorers.limited import unless_limited
from longform_evals.scorers.unscorable import check_text, unscorable_metrics
from longform_evals.text import chunk_documents, join_documents, parse_chunk_mode, split_sentences

Merge = Literal["max", "mean", "min"]
MERGES: tuple[Merge, ...] = ("max", "mean", "min")
AGGREGATIONS: tuple[str, ...] = tuple(f"{d}_{s}" for d, s in product(MERGES, MERGES))
FULL_AGGREGATIONS: tuple[str, ...] = tuple(f"full_{s}" for s in MERGES)
VALUE_KEYS: tuple[str, ...] = ("faithfulness", *AGGREGATIONS, *FULL_AGGREGATIONS)


def sample_documents(state: TaskState) -> list[str]:
    """The source documents of a sample: `metadata["documents"]`, or `metadata["document"]`."""
    docs = state.metadata.get("documents")
    if docs is None and isinstance(state.metadata.get("document"), str):
        docs = [state.metadata["document"]]
    if not isinstance(docs, list) or not docs:
        raise ValueError(
            f"sample {state.sample_id!r} has no source documents: faithfulness needs "
            "metadata['documents'] (a list of texts) or metadata['document']"
        )
    bad = [i for i, d in enumerate(docs) if not isinstance(d, str)]
    if bad:
        raise ValueError(f"sample {state.sample_id!r}: documents {bad} are not text")
    return [str(d) for d in docs]


def summary_sentences(state: TaskState, summary: str) -> list[str]:
    """The summary's sentences; a sample's own split is kept when it describes this summary
    (human labels of meta-evaluation data are aligned to it)."""
    given = state.metadata.get("summary_sentences")
    if isinstance(given, list) and state.metadata.get("summary") == summary:
        return [str(s) for s in given]
    return split_sentences(summary)


def _values(rows: list[list[SupportJudgement]]) -> list[list[float | None]]:
    return [[j.value for j in row] for row in rows]


def _doc_rows(
    unit_rows: list[list[SupportJudgement]], unit_docs: list[int], n_docs: int
) -> list[list[float | None]]:
    """Support per (document, sentence): the max over the document's units (missing ignored)."""
    rows: list[list[float | None]] = []
    for d in range(n_docs):
        mine = [row for row, doc in zip(unit_rows, unit_docs, strict=True) if doc == d]
        rows.append(
            [
                max((v for v in col if v is not None), default=None)
                for col in zip(*([j.value for j in row] for row in mine), strict=True)
            ]
        )
    return rows


@scorer(
    metrics={
        "faithfulness": [mean(), stderr()],
        **{key: [mean()] for key in (*AGGREGATIONS, *FULL_AGGREGATIONS)},
        "missing_rate": [mean()],
        "judge_calls": [mean()],
        **unscorable_metrics(judged=True),
    }
)
def faithfulness(
    judge: str = "llm",
    doc_merge: Merge = "max",
    sentence_merge: Merge = "mean",
    chunking: str | None = None,
    include_full: bool = False,
    max_tokens: int = 1,
    cache: bool = True,
    prompts_dir: str | None = None,
    prompt: str | None = None,
    threshold: float | None = None,
    calibration: str | None = None,
    minicheck_path: str | None = None,
    device: str = "cpu",
    batch_size: int = 16,
) -> Scorer:
    """Faithfulness of the completion to the sample's documents.

    The judge reads each document in units (`chunking`); a sentence's support by a document is
    the max over that document's units, so the matrix, its aggregations and the position
    profiles are always per document.

    Args:
        judge: `llm`: the `grader` model answers yes/no per (unit, sentence), P(yes) read from
            log-probabilities when available; or a MiniCheck judge (`minicheck-roberta-large`,
            `minicheck-deberta-v3-large`, `minicheck-flan-t5-large`: local classifiers, the
            `minicheck` extra and weights on this machine; `minicheck-7b`: through the
            `grader` role), which chunks each text itself and takes the max over its chunks.
        doc_merge: AGG_D, how a sentence's support is reduced over documents.
        sentence_merge: AGG_S, how sentence scores are reduced to the summary's score.
        chunking: how the judge reads a document: `natural` (whole), `tokens:N` (chunks of at
            most N tokens) or `words:N` (whole sentences packed into chunks of at most N
            words). Default: the judge model's calibration (see
            `longform_evals.judges.faithfulness_calibration`), else `natural`.
        include_full: also judge each sentence against all documents at once (`full_*`).
        max_tokens: judge answer length; 1 (the default) reads just the yes/no word, which is
            all P(yes) needs; raise it to keep the judge's short reasons in the log.
        cache: cache judge calls (re-scoring costs no calls).
        prompts_dir: folder overriding the `faithfulness/` prompts.
        prompt: the `faithfulness/` template (`judge` or `judge_examples`); default: the
            judge model's calibration, else `judge`.
        threshold: support at or above which a sentence counts as supported (position
            profiles) and, for meta-evaluation, a summary as faithful. Default: the
            calibrated thresholds of the judge model (per aggregation), else 0.5.
        calibration: a calibration file to use instead of the packaged one of the judge.
        minicheck_path: a local folder (or hub id already cached) for a MiniCheck classifier;
            for `minicheck-7b`, an Inspect model name instead of the `grader` role.
        device: torch device of a MiniCheck classifier.
        batch_size: MiniCheck classifier batch size.

    Returns:
        A scorer whose value holds `faithfulness` (the chosen aggregation), every other
        aggregation, `missing_rate`, `judge_calls`, and `empty_summary`, `no_sentences`,
        `scored` (see `longform_evals.scorers.unscorable`); metadata holds the matrix,
        attribution, the position profiles, the thresholds and where they came from.
    """
    if judge != "llm" and judge not in MINICHECK_MODELS:
        known = ", ".join(["llm", *MINICHECK_MODELS])
        raise ValueError(f"unknown faithfulness judge {judge!r}; available: {known}")
    if doc_merge not in MERGES or sentence_merge not in MERGES:
        raise ValueError(f"doc_merge and sentence_merge must be one of {MERGES}")
    if chunking is not None:
        parse_chunk_mode(chunking)
    if prompt is not None and prompt not in JUDGE_PROMPTS:
        raise ValueError(f"unknown faithfulness prompt {prompt!r}; available: {JUDGE_PROMPTS}")
    minicheck: MiniCheckJudge | MiniCheckLLMJudge | None = None
    if judge != "llm":
        local = MINICHECK_MODELS[judge][0] != "7b"
        options: dict[str, Any] = {"batch_size": batch_size, "device": device} if local else {}
        minicheck = minicheck_judge(judge, path=minicheck_path, **options)
    aggregation = f"{doc_merge}_{sentence_merge}"

    def resolve() -> tuple[str, JudgeCalibration, FaithfulnessSettings]:
        """The judge's name, its calibration and the settings it is asked with."""
        if minicheck is not None:
            return judge, JudgeCalibration(source="none (MiniCheck)"), FaithfulnessSettings()
        name = str(get_model(role="grader"))
        cal = load_calibration(name, calibration)
        settings = FaithfulnessSettings(
            max_tokens=max_tokens,
            cache=cache,
            prompts_dir=prompts_dir,
            prompt=prompt or cal.prompt,
        )
        return name, cal, settings

    async def score(state: TaskState, target: Target) -> Score:
        documents = sample_documents(state)
        summary = state.output.completion if state.output else ""
        check = check_text(summary, summary_sentences(state, summary), judged=True)
        sentences = check.sentences
        if check.problem:
            return Score(
                value={
                    **dict.fromkeys((*VALUE_KEYS, "missing_rate"), math.nan),
                    "judge_calls": 0.0,
                    **check.values(math.nan),
                },
                answer=summary,
                explanation=check.explanation(),
                metadata=check.metadata(),
            )
        name, cal, settings = resolve()
        use_chunking = chunking or (cal.chunking if minicheck is None else "natural")
        thresholds = {
            key: threshold if threshold is not None else cal.threshold(key)
            for key in (*AGGREGATIONS, *FULL_AGGREGATIONS)
        }
        thresholds["faithfulness"] = thresholds[aggregation]
        sentence_threshold = threshold if threshold is not None else cal.sentence_threshold

        async def judge_rows(texts: list[str]) -> list[list[SupportJudgement]]:
            if minicheck is not None:
                return await minicheck_support_rows(minicheck, texts, sentences)
            return await support_rows(get_model(role="grader"), texts, sentences, settings)

        # Empty documents (they occur in real data) have nothing to support a sentence: they
        # are left out of the matrix and listed, rather than failing the sample.
        kept = [i for i, d in enumerate(documents) if d.strip()]
        if not kept:
            raise ValueError(f"sample {state.sample_id!r}: every source document is empty")
        units = chunk_documents([documents[i] for i in kept], use_chunking)
        unit_rows = await judge_rows([u.text for u in units])
        rows = _doc_rows(unit_rows, [u.doc_index for u in units], len(kept))
        full_rows: list[list[SupportJudgement]] | None = None
        if include_full:
            full_rows = await judge_rows([join_documents([documents[i] for i in kept])])
        full = _values(full_rows)[0] if full_rows else None
        matrix = SupportMatrix.from_rows(rows, full=full)
        aggregations = matrix.all_aggregations()
        values: dict[str, float] = {
            "faithfulness": matrix.aggregate(doc_merge, sentence_merge),
            **{key: aggregations.get(key, math.nan) for key in (*AGGREGATIONS, *FULL_AGGREGATIONS)},
            "missing_rate": matrix.missing_count() / matrix.values.size,
            "judge_calls": float(
                len(units) * len(sentences) + (len(sentences) if full_rows else 0)
            ),
        }
        values.update(check.values(values["faithfulness"]))
        metadata: dict[str, Any] = {
            "judge": name,
            "prompt": settings.prompt if minicheck is None else None,
            "aggregation": aggregation,
            "chunking": use_chunking,
            "calibration": cal.source,
            "thresholds": thresholds,
            "sentence_threshold": sentence_threshold,
            "units": [
                {"doc_index": kept[u.doc_index], "chunk_index": u.chunk_index, "tokens": u.n_tokens}
                for u in units
            ],
            "sentences": sentences,
            "matrix": rows,
            "unit_matrix": _values(unit_rows) if len(units) > len(kept) else None,
            "full": full,
            "answer_sources": [[j.source for j in row] for row in unit_rows],
            "sentence_scores": [
                None if math.isnan(v) else v for v in matrix.sentence_scores(doc_merge).tolist()
            ],
            "attribution": matrix.attribution().tolist(),
            # Yes/no judges tie often; split tied sentences instead of crediting the first.
            "position_faithfulness": matrix.position_faithfulness(sentence_threshold, ties="split"),
            "position_coverage": matrix.position_coverage(sentence_threshold),
            "empty_documents": [i for i in range(len(documents)) if i not in kept],
            **check.metadata(),
        }
        unread = sum(1 for row in unit_rows for j in row if j.value is None)
        return Score(
            value=values,
            answer=summary,
            explanation=(
                f"{aggregation} over {len(kept)} documents ({len(units)} judge units, "
                f"{use_chunking}) x {len(sentences)} sentences = {values['faithfulness']:.3f}; "
                f"{unread} answers unreadable; thresholds: {cal.source}"
            ),
            metadata=metadata,
        )

    return unless_limited(score)
