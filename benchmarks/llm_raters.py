"""Do the LLM raters (LR-1 / LR-2) tell right answers from wrong ones with a given grader?

Asks the strict and the permissive rater about every answer of the project's planted set
(`data/raters/planted_answers.jsonl`: per question, two exact answers - a paraphrase and a
verbose one -, a partial one, a contradiction and a non-answer) and compares two ways of
reading them:

* `verdicts`, the paper's rule on the verdict words (exact if either rater says so);
* `calibrated`, P(yes) of the first answer token against thresholds chosen on the calibration
  split (strict P(YES) for exact, permissive P(Yes) for at least partial).

It prints ROC AUC per rater, and on the test split the LR-1 / LR-2 each rule gives to each kind
of answer: a usable rater gives high LR-1 to the exact answers and low LR-1 and LR-2 to the
contradictions and non-answers. `--calibrate FILE` writes the thresholds in the form
`longform_evals.judges.raters.calibration` reads.

    python benchmarks/llm_raters.py --model gguf/qwen2.5-coder-1.5b [--calibrate FILE]

Rater calls go through Inspect's model cache, so a rerun costs no calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig, Model, get_model

from longform_evals.analysis.agreement import (
    balanced_accuracy,
    problem_labels,
    support_auc,
    support_threshold,
)
from longform_evals.data.planted.answers import PlantedAnswer, load_planted_answers
from longform_evals.judges.raters.calibration import RaterCalibration
from longform_evals.judges.raters.rating import (
    RaterVerdict,
    RatingSettings,
    rate_answer,
    rate_reference,
    rate_reference_calibrated,
)

ANSWER_KINDS = ("paraphrase", "verbose", "incomplete", "contradiction", "non_answer")


async def judge_all(
    model: Model, answers: list[PlantedAnswer], settings: RatingSettings
) -> list[dict[str, RaterVerdict]]:
    """Both raters' verdicts on every planted answer against its reference."""
    per_answer = await asyncio.gather(
        *[rate_answer(model, a.question, a.text, [a.reference], settings) for a in answers]
    )
    return [verdicts[0] for verdicts in per_answer]


def p_values(rows: list[dict[str, RaterVerdict]], rater: str) -> list[float | None]:
    return [r[rater].p_yes for r in rows]


def rule_rates(
    answers: list[PlantedAnswer],
    rows: list[dict[str, RaterVerdict]],
    calibration: RaterCalibration,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per answer kind, (LR-1, LR-2) in % under each rule (lower bounds over missing verdicts)."""
    counts: dict[str, dict[str, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for answer, row in zip(answers, rows, strict=True):
        by_rule = {
            "verdicts": rate_reference(row["strict"].verdict, row["permissive"].verdict)[0],
            "calibrated": rate_reference_calibrated(
                row["strict"].p_yes, row["permissive"].p_yes, calibration
            )[0],
        }
        for rule, rating in by_rule.items():
            counts[rule][answer.answer_kind].append((rating == "exact", rating != "none"))
    return {
        rule: {
            kind: (
                100 * sum(e for e, _ in pairs) / len(pairs),
                100 * sum(p for _, p in pairs) / len(pairs),
            )
            for kind, pairs in kinds.items()
        }
        for rule, kinds in counts.items()
    }


def separation(
    answers: list[PlantedAnswer], rows: list[dict[str, RaterVerdict]], calibration: RaterCalibration
) -> dict[str, float]:
    """AUC and BACC (at the calibration's thresholds) of each rater for its own decision."""
    # analysis/agreement.py's meaning: 1 = the answer falls short (not exact, not even
    # partial); P(yes) is a support score (higher = less likely to fall short).
    exact = problem_labels([int(a.exact) for a in answers])
    partial = problem_labels([int(a.at_least_partial) for a in answers])
    strict, permissive = p_values(rows, "strict"), p_values(rows, "permissive")

    def bacc(labels: list[int], scores: list[float | None], t: float) -> float:
        kept = [(y, s) for y, s in zip(labels, scores, strict=True) if s is not None]
        return 100 * balanced_accuracy([y for y, _ in kept], [not s >= t for _, s in kept]).value

    return {
        "strict_auc_exact": support_auc(exact, strict),
        "strict_bacc_exact": bacc(exact, strict, calibration.exact_threshold),
        "permissive_auc_partial": support_auc(partial, permissive),
        "permissive_bacc_partial": bacc(partial, permissive, calibration.partial_threshold),
        "permissive_auc_exact": support_auc(exact, permissive),
        "strict_auc_partial": support_auc(partial, strict),
    }


def print_rates(title: str, rates: dict[str, dict[str, tuple[float, float]]]) -> None:
    print(f"\n{title}: LR-1 / LR-2 (%) by kind of answer")
    print("| rule | " + " | ".join(ANSWER_KINDS) + " |")
    print("|---|" + "---|" * len(ANSWER_KINDS))
    for rule in ("verdicts", "calibrated"):
        cells = [
            "{:.0f} / {:.0f}".format(*rates[rule][k]) if k in rates[rule] else "n/a"
            for k in ANSWER_KINDS
        ]
        print(f"| {rule} | " + " | ".join(cells) + " |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("--data", default=None, help="planted answers JSONL (default: bundled)")
    parser.add_argument("--connections", type=int, default=None)
    parser.add_argument("--calibrate", default=None, help="write the thresholds to this file")
    args = parser.parse_args()

    model = get_model(args.model, config=GenerateConfig(max_connections=args.connections))
    settings = RatingSettings(logprobs=True)
    splits = {s: load_planted_answers(args.data, split=s) for s in ("calibration", "test")}
    start = time.perf_counter()
    rows = {s: await judge_all(model, answers, settings) for s, answers in splits.items()}
    seconds = time.perf_counter() - start
    calls = sum(len(v.answers) for r in rows.values() for row in r for v in row.values())
    print(f"grader {args.model}: {calls} rater calls in {seconds:.0f} s")

    cal_answers, cal_rows = splits["calibration"], rows["calibration"]
    calibration = RaterCalibration(
        source="this run",
        exact_threshold=support_threshold(
            problem_labels([int(a.exact) for a in cal_answers]), p_values(cal_rows, "strict")
        ),
        partial_threshold=support_threshold(
            problem_labels([int(a.at_least_partial) for a in cal_answers]),
            p_values(cal_rows, "permissive"),
        ),
    )
    print(
        f"thresholds from the calibration split: exact (strict P(YES)) >= "
        f"{calibration.exact_threshold:.3f}, at least partial (permissive P(Yes)) >= "
        f"{calibration.partial_threshold:.3f}"
    )
    figures: dict[str, Any] = {}
    for split in ("calibration", "test"):
        figures[split] = separation(splits[split], rows[split], calibration)
        print(f"\n{split} split separation:")
        for name, value in figures[split].items():
            print(f"  {name}: {value:.2f}")
    rates = rule_rates(splits["test"], rows["test"], calibration)
    print_rates("test split", rates)
    for kind in ("narrative", "meeting"):
        picked = [i for i, a in enumerate(splits["test"]) if a.kind == kind]
        print_rates(
            f"test split, {kind} questions",
            rule_rates(
                [splits["test"][i] for i in picked], [rows["test"][i] for i in picked], calibration
            ),
        )
    unread = sum(v.p_yes is None for r in rows.values() for row in r for v in row.values())
    print(f"\nverdicts with no P(yes) (unreadable even when asked again): {unread}")

    if args.calibrate:
        record = {
            "model": args.model,
            "made_by": "benchmarks/llm_raters.py --calibrate",
            "data": "planted_answers.jsonl, calibration split (thresholds maximise balanced "
            "accuracy there; figures on the test split are held out)",
            "exact_threshold": round(calibration.exact_threshold, 6),
            "partial_threshold": round(calibration.partial_threshold, 6),
            "figures": {
                **figures,
                "test_rates": {
                    rule: {k: [round(x, 1) for x in v] for k, v in kinds.items()}
                    for rule, kinds in rates.items()
                },
            },
        }
        Path(args.calibrate).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.calibrate}")


if __name__ == "__main__":
    asyncio.run(main())
