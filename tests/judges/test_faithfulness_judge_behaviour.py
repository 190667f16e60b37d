"""Behaviour check of the calibrated local faithfulness judge on planted errors (slow).

With the packaged calibration for gguf/qwen2.5-coder-1.5b (prompt, chunking, thresholds), the
judge must give the clean sentences of a held-out planted cluster clearly more support than
the planted unsupported ones, and its calibrated threshold must separate them better than
chance: if a change of prompt, chunking, model file or parsing flattens the judge (the "yes to
everything" failure the paper's prompt shows on small models), this fails.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from helpers import local_model_or_skip, needs_local_runtime
from longform_evals.analysis.agreement import (
    balanced_accuracy,
    problem_labels,
    support_auc,
)
from longform_evals.data.planted.support import load_planted_support
from longform_evals.judges.faithfulness.calibration import load_calibration
from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, support_rows
from longform_evals.text import chunk_documents

JUDGE = "gguf/qwen2.5-coder-1.5b"


@pytest.mark.slow
@pytest.mark.live_judge
@needs_local_runtime
def test_calibrated_judge_separates_supported_from_planted_sentences() -> None:
    model = local_model_or_skip(JUDGE)
    cal = load_calibration(JUDGE)
    assert cal.calibrated, "the packaged calibration of the default judge is missing"
    settings = FaithfulnessSettings(max_tokens=1, prompt=cal.prompt)
    # One cluster (8 clean, 6 planted sentences x 3 documents: 42 calls) keeps the test's time
    # in CI's budget; the `faithfulness` behaviour checks replay two clusters on every run.
    clusters = [c for c in load_planted_support() if c.split == "test"][:1]

    async def support(cluster_docs: list[str], sentences: list[str]) -> list[float]:
        units = [u.text for u in chunk_documents(cluster_docs, cal.chunking)]
        rows = await support_rows(model, units, sentences, settings)
        values = np.array([[np.nan if j.value is None else j.value for j in r] for r in rows])
        return [float(v) for v in np.nanmax(values, axis=0)]

    labels: list[int] = []
    scores: list[float] = []
    for c in clusters:
        sentences = [*c.sentences, *(p.text for p in c.planted)]
        scores += asyncio.run(support(c.documents, sentences))
        labels += [1] * len(c.sentences) + [0] * len(c.planted)
    clean = [s for s, lab in zip(scores, labels, strict=True) if lab]
    planted = [s for s, lab in zip(scores, labels, strict=True) if not lab]
    unsupported = problem_labels(labels)  # analysis/agreement.py's meaning: 1 = a problem
    auc = support_auc(unsupported, scores)
    bacc = balanced_accuracy(unsupported, [not s >= cal.sentence_threshold for s in scores]).value
    # On the first two test clusters the calibrated judge measured AUC ~0.8 when calibrated;
    # on this one alone AUC 0.85, BACC 0.78, mean support 0.75 clean vs 0.52 planted.
    assert auc >= 0.65, (auc, clean, planted)
    assert np.mean(clean) > np.mean(planted) + 0.1
    assert bacc > 0.55
