"""How well does the LLM faithfulness judge separate supported from unsupported sentences?

Compares judge settings (prompt template x document chunking) on two data sets:

* the project's planted set (`data/faithfulness/planted_support.jsonl`): clean summary
  sentences, all supported, against planted ones (contradictions, unsupported additions);
  the calibration split chooses the thresholds, the test split reports;
* LongFormFact's shared examples (`../shared/data/longformfact`, when present): human labels
  per sentence (sentence-level subsets) and per summary, judged with the thresholds chosen on
  the planted calibration split (never on the data reported).

For every setting it prints ROC AUC (threshold-free) and balanced accuracy at the calibrated
threshold, at sentence level (support = max over units) and summary level (max over units,
then mean or min over sentences). `--calibrate FILE` writes the chosen setting's thresholds in
the form `longform_evals.judges.faithfulness.calibration` reads.

    python benchmarks/faithfulness_judge.py --model gguf/qwen2.5-coder-1.5b \
        --settings judge:natural,judge_examples:natural,judge_examples:tokens:1024 \
        [--longformfact ../shared/data/longformfact] [--calibrate FILE --choose PROMPT:CHUNKING]
        [--retrieval bm25:2]

`--retrieval` reads, per sentence, only the units a retriever finds
(`judges/faithfulness/retrieval.py`); the calibration file records it, and the judge reads that
way by default.

Judge calls go through Inspect's model cache, so a rerun costs no calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import time
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai.model import Model, get_model

from longform_evals.analysis import MERGES, nan_reduce
from longform_evals.analysis.agreement import (
    PROBLEM,
    balanced_accuracy,
    support_auc,
    support_threshold,
)
from longform_evals.data.longformfact import load_longformfact
from longform_evals.data.planted.support import load_planted_support
from longform_evals.judges.faithfulness.calibration import SUMMARY_AGGREGATIONS
from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, support_rows
from longform_evals.judges.faithfulness.retrieval import Retrieval
from longform_evals.scorers.meta_evaluation import summary_label
from longform_evals.text import chunk_documents, join_documents


@dataclass
class Item:
    """Sentences to judge against one sample's documents, with what the labels are."""

    key: str
    split: str
    documents: list[str]
    sentences: list[str]
    sentence_labels: list[int | None]
    # Summaries as (sentence indices, label): planted copies reuse the clean sentences' support.
    summaries: list[tuple[list[int], int | None]] = field(default_factory=list)
    subset: str = ""


def planted_items() -> list[Item]:
    items = []
    for c in load_planted_support():
        n = len(c.sentences)
        sentences = [*c.sentences, *(p.text for p in c.planted)]
        summaries: list[tuple[list[int], int | None]] = [(list(range(n)), 1)]
        for k, p in enumerate(c.planted):
            idx = list(range(n))
            idx[p.replaces] = n + k
            summaries.append((idx, 0))
        labels: list[int | None] = [*([1] * n), *([0] * len(c.planted))]
        items.append(Item(c.id, c.split, c.documents, sentences, labels, summaries, c.genre))
    return items


def longformfact_items(path: str) -> list[Item]:
    items = []
    for s in load_longformfact(path, on_mismatch="skip"):
        meta = s.metadata or {}
        sentences = [str(x) for x in meta["summary_sentences"]]
        if meta["label_level"] == "sentence":
            labels = list(meta["labels"])
        else:
            labels = [None] * len(sentences)
        docs = [d for d in meta["documents"] if str(d).strip()]
        summary = (list(range(len(sentences))), summary_label(meta))
        items.append(
            Item(str(s.id), "longformfact", docs, sentences, labels, [summary], meta["subset"])
        )
    return items


def units_of(documents: list[str], chunking: str) -> tuple[list[str], list[int]]:
    """The texts the judge reads and the document each belongs to (`full`: one text)."""
    if chunking == "full":
        return [join_documents(documents)], [0]
    units = chunk_documents(documents, chunking)
    return [u.text for u in units], [u.doc_index for u in units]


async def judge_item(
    model: Model, item: Item, prompt: str, chunking: str, retrieval: Retrieval
) -> np.ndarray:
    """Support per (document, sentence): the max over each document's units, as the scorer;
    with retrieval, over the units retrieved for the sentence (every pair is still asked, so
    that one cache serves every setting; the others are then left out)."""
    settings = FaithfulnessSettings(max_tokens=1, prompt=prompt)
    texts, owners = units_of(item.documents, chunking)
    rows = await support_rows(model, texts, item.sentences, settings)
    units = np.array([[math.nan if j.value is None else j.value for j in r] for r in rows])
    chosen = await retrieval.select(texts, item.sentences)
    if chosen is not None:
        asked = np.zeros(units.shape, dtype=bool)
        for j, picks in enumerate(chosen):
            asked[picks, j] = True
        units = np.where(asked, units, math.nan)
    owner = np.array(owners)
    return np.stack([nan_reduce(units[owner == d], "max", axis=0) for d in sorted(set(owners))])


def summary_scores(matrix: np.ndarray, item: Item) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for d, s in product(MERGES, MERGES):  # the order of SUMMARY_AGGREGATIONS
        per_sentence = nan_reduce(matrix, d, axis=0)
        out[f"{d}_{s}"] = [
            float(nan_reduce(per_sentence[idx], s, axis=0)) for idx, _ in item.summaries
        ]
    return out


def pooled(results: list[tuple[Item, np.ndarray]], splits: set[str]) -> dict[str, Any]:
    """Sentence-level and summary-level (labels, scores) over the items of some splits: the
    labels in analysis/agreement.py's meaning (1 = unsupported), the scores supports."""
    sent_labels: list[int] = []
    sent_scores: list[float] = []
    summ: dict[str, tuple[list[int], list[float], list[str]]] = {
        a: ([], [], []) for a in SUMMARY_AGGREGATIONS
    }
    for item, matrix in results:
        if item.split not in splits:
            continue
        support = nan_reduce(matrix, "max", axis=0)
        for label, value in zip(item.sentence_labels, support, strict=True):
            if label is not None:
                sent_labels.append(PROBLEM - int(label))
                sent_scores.append(float(value))
        for agg, values in summary_scores(matrix, item).items():
            for (_, label), value in zip(item.summaries, values, strict=True):
                if label is not None:
                    summ[agg][0].append(PROBLEM - int(label))
                    summ[agg][1].append(value)
                    summ[agg][2].append(item.subset)
    return {"sentences": (sent_labels, sent_scores), "summaries": summ}


def bacc(labels: list[int], scores: list[float], threshold: float) -> float:
    """BACC (0-100) of flagging a sentence or summary whose support is not ``>= threshold``."""
    return 100 * balanced_accuracy(labels, [not v >= threshold for v in scores]).value


def auc(labels: list[int], scores: list[float]) -> float:
    """ROC AUC of the supports against the problem labels."""
    return support_auc(labels, scores)


def per_subset_bacc(labels: list[int], scores: list[float], subsets: list[str], t: float) -> float:
    """Balanced accuracy averaged over subsets, as the LongFormFact paper reports it."""
    values = []
    for name in sorted(set(subsets)):
        pick = [i for i, s in enumerate(subsets) if s == name]
        values.append(bacc([labels[i] for i in pick], [scores[i] for i in pick], t))
    return float(np.mean(values)) if values else math.nan


def evaluate(
    planted: list[tuple[Item, np.ndarray]], lff: list[tuple[Item, np.ndarray]]
) -> dict[str, Any]:
    calib, test = pooled(planted, {"calibration"}), pooled(planted, {"test"})
    labels, scores = calib["sentences"]
    t_sent = support_threshold(labels, scores)
    report: dict[str, Any] = {
        "sentence": {
            "threshold": t_sent,
            "calibration_auc": auc(labels, scores),
            "test_auc": auc(*test["sentences"]),
            "test_bacc": bacc(test["sentences"][0], test["sentences"][1], t_sent),
        },
        "summary": {},
    }
    lff_pool = pooled(lff, {"longformfact"}) if lff else None
    if lff_pool:
        report["sentence"]["lff_auc"] = auc(*lff_pool["sentences"])
        l_labels, l_scores = lff_pool["sentences"]
        report["sentence"]["lff_bacc"] = bacc(l_labels, l_scores, t_sent)
    for agg in SUMMARY_AGGREGATIONS:
        c_labels, c_scores, _ = calib["summaries"][agg]
        t = support_threshold(c_labels, c_scores)
        t_labels, t_scores, _ = test["summaries"][agg]
        row = {
            "threshold": t,
            "test_auc": auc(t_labels, t_scores),
            "test_bacc": bacc(t_labels, t_scores, t),
        }
        if lff_pool:
            l_labels, l_scores, l_subsets = lff_pool["summaries"][agg]
            row["lff_auc"] = auc(l_labels, l_scores)
            row["lff_bacc_avg"] = per_subset_bacc(l_labels, l_scores, l_subsets, t)
        report["summary"][agg] = row
    return report


def fmt(x: float) -> str:
    return "  n/a" if x is None or math.isnan(x) else f"{x:5.2f}" if abs(x) <= 1 else f"{x:5.1f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("--settings", default="judge:natural,judge_examples:natural")
    parser.add_argument("--longformfact", default=None, help="LongFormFact file or folder")
    parser.add_argument("--out", default=None, help="write all figures as JSON here")
    parser.add_argument("--calibrate", default=None, help="write a calibration file here")
    parser.add_argument("--choose", default=None, help="PROMPT:CHUNKING to calibrate")
    parser.add_argument("--selection", default="", help="how the setting was chosen (recorded)")
    parser.add_argument(
        "--retrieval", default="all", help="the units read per sentence (all, <retriever>:<k>)"
    )
    args = parser.parse_args()
    retrieval = Retrieval.parse(args.retrieval)

    model = get_model(args.model)
    settings = [tuple(s.split(":", 1)) for s in args.settings.split(",")]
    planted = planted_items()
    lff = longformfact_items(args.longformfact) if args.longformfact else []
    reports: dict[str, Any] = {}
    for prompt, chunking in settings:
        start = time.perf_counter()
        p_res = [
            (item, await judge_item(model, item, prompt, chunking, retrieval)) for item in planted
        ]
        l_res = [(item, await judge_item(model, item, prompt, chunking, retrieval)) for item in lff]
        seconds = time.perf_counter() - start
        name = f"{prompt}:{chunking}"
        reports[name] = {"seconds": seconds, **evaluate(p_res, l_res)}
        reports[name]["raw"] = {item.key: matrix.tolist() for item, matrix in [*p_res, *l_res]}
        r = reports[name]
        print(f"\n== {name}  ({seconds:.0f} s)")
        s = r["sentence"]
        print(
            f"sentence  t={s['threshold']:.3f}  calib AUC {fmt(s['calibration_auc'])}  "
            f"test AUC {fmt(s['test_auc'])} BACC {fmt(s['test_bacc'])}"
            + (f"  | LFF AUC {fmt(s['lff_auc'])} BACC {fmt(s['lff_bacc'])}" if lff else "")
        )
        for agg, row in r["summary"].items():
            print(
                f"{agg:9} t={row['threshold']:.3f}  test AUC {fmt(row['test_auc'])} "
                f"BACC {fmt(row['test_bacc'])}"
                + (
                    f"  | LFF AUC {fmt(row['lff_auc'])} BACC(avg) {fmt(row['lff_bacc_avg'])}"
                    if lff
                    else ""
                )
            )
    if args.out:
        Path(args.out).write_text(json.dumps(reports, indent=1), encoding="utf-8")
    if args.calibrate:
        choice = args.choose or next(iter(reports))
        r = reports[choice]
        prompt, chunking = choice.split(":", 1)
        data = {
            "model": args.model,
            "made_by": "benchmarks/faithfulness_judge.py --calibrate",
            "data": "planted_support.jsonl, calibration split",
            "prompt": prompt,
            "chunking": chunking,
            "retrieval": retrieval.spec,
            "selection": args.selection,
            "sentence_threshold": round(r["sentence"]["threshold"], 6),
            "thresholds": {a: round(v["threshold"], 6) for a, v in r["summary"].items()},
            "figures": {
                "sentence": {k: v for k, v in r["sentence"].items() if k != "threshold"},
                "summary": r["summary"],
            },
        }
        Path(args.calibrate).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"\ncalibration for {choice} written to {args.calibrate}")


if __name__ == "__main__":
    asyncio.run(main())
