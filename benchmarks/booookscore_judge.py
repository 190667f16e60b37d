"""Can the coherence judge tell a confusing sentence from a clean one? Measured on planted errors.

Uses the planted-error set written for this project (`longform_evals/data/coherence/`): 12
coherent summaries, and copies of each with one error of each of the 8 types planted in a
known sentence. Bases s01-s06 are the calibration split, s07-s12 the test split.

Probe mode (the default judge for small local models):
1. P(yes) of every probe for every sentence of the clean summaries and for the planted
   sentence of every copy;
2. `--calibrate`: per probe, the threshold that keeps its false-flag rate on clean
   calibration sentences at or under --target-fpr; probes whose calibration recall does not
   beat their false-flag rate by --min-gain are switched off; written with --write;
3. on the TEST split only: per-type recall (planted sentence flagged at all, and flagged with
   its own type) and the false-flag rate on clean sentences.
`--baseline` also runs the paper's one-call-per-sentence prompt on the test split.
`--sentence-layouts numbered,quoted` runs only that sentence-mode judge on the test split,
once per prompt layout, and prints how often two layouts give a sentence the same verdict.

    python benchmarks/booookscore_judge.py --model gguf/qwen2.5-coder-1.5b --calibrate --write
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, get_args

from inspect_ai.model import Model, get_model

from longform_evals.analysis.agreement import NO_PROBLEM, PROBLEM, roc_auc
from longform_evals.judges.calibration_files import calibration_name
from longform_evals.judges.coherence.error_types import ERROR_TYPES
from longform_evals.judges.coherence.paper import JudgeSettings, SentenceLayout, judge_summary
from longform_evals.judges.coherence.probe import (
    PROBES,
    ProbeLayout,
    Prober,
    ProbeSettings,
    ProbeThreshold,
    asked_probes,
    calibration_kind,
    probe_signal,
    thresholds_for,
    verdict_from_probes,
)


@dataclass
class Item:
    """One judged sentence: clean (error_type None) or planted."""

    split: str
    summary_id: str
    index: int
    sentences: list[str]
    error_type: str | None


def load_items() -> list[Item]:
    text = (
        resources.files("longform_evals.data")
        .joinpath("coherence/planted_errors.jsonl")
        .read_text(encoding="utf-8")
    )
    items = []
    for line in text.splitlines():
        r = json.loads(line)
        if r["error_type"] is None:
            items += [
                Item(r["split"], r["id"], i, r["sentences"], None)
                for i in range(len(r["sentences"]))
            ]
        else:
            items.append(
                Item(r["split"], r["id"], r["planted_index"], r["sentences"], r["error_type"])
            )
    return items


async def probe_all(
    model: Model, items: list[Item], layout: ProbeLayout
) -> list[dict[str, float | None]]:
    results = []
    prober = Prober(model, ProbeSettings(layout=layout))
    for n, item in enumerate(items, start=1):  # in order: consecutive prompts share prefixes
        p_yes, _ = await prober.sentence(item.sentences, item.index)
        results.append(p_yes)
        if n % 25 == 0:
            print(f"  probed {n}/{len(items)} sentences", flush=True)
    return results


def calibrate(
    items: list[Item],
    probes: list[dict[str, float | None]],
    target_fpr: float,
    min_gain: float,
    layout: ProbeLayout,
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    asked = asked_probes(layout)
    for probe in PROBES:
        if probe.name not in asked:
            continue
        neg, pos = [], []
        for item, p_yes in zip(items, probes, strict=True):
            p = p_yes.get(probe.name)
            if item.split != "calibration" or p is None:
                continue
            signal = probe_signal(p, probe)
            if item.error_type is None:
                neg.append(signal)
            elif item.error_type == probe.error_type:
                pos.append(signal)
        neg.sort()
        # The smallest threshold above all but target_fpr of the clean signals.
        allowed = int(target_fpr * len(neg))
        threshold = neg[len(neg) - allowed - 1] + 1e-6 if neg else 0.5
        fpr = sum(s >= threshold for s in neg) / len(neg) if neg else 0.0
        tpr = sum(s >= threshold for s in pos) / len(pos) if pos else 0.0
        out[probe.name] = {
            "error_type": probe.error_type,
            "threshold": round(threshold, 6),
            "enabled": tpr - fpr >= min_gain,
            "calibration_recall": round(tpr, 4),
            "calibration_false_flag_rate": round(fpr, 4),
            "calibration_auc": round(auc(pos, neg), 4),
            "n_clean": len(neg),
            "n_planted": len(pos),
        }
    return out


def same_verdicts(
    items: list[Item],
    probes: list[dict[str, float | None]],
    thresholds: dict[str, ProbeThreshold],
    other: list[dict[str, float | None]],
    other_thresholds: dict[str, ProbeThreshold],
) -> list[bool]:
    """Per item: do the two judges (answers and thresholds) agree on whether it is confusing?"""
    return [
        verdict_from_probes(i.index, "", a, thresholds).confused
        == verdict_from_probes(i.index, "", b, other_thresholds).confused
        for i, a, b in zip(items, probes, other, strict=True)
    ]


def _rate(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


def auc(pos: list[float], neg: list[float]) -> float:
    """Probability that a planted sentence's signal exceeds a clean one's (ties count half):
    the planted sentences are the problems, the signal a confusion probability."""
    return roc_auc([PROBLEM] * len(pos) + [NO_PROBLEM] * len(neg), pos + neg)


def report(
    items: list[Item],
    probes: list[dict[str, float | None]],
    thresholds: dict[str, ProbeThreshold],
    split: str,
) -> dict[str, Any]:
    flagged_any: dict[str, list[bool]] = defaultdict(list)
    flagged_type: dict[str, list[bool]] = defaultdict(list)
    clean_flags: list[bool] = []
    for item, p_yes in zip(items, probes, strict=True):
        if item.split != split:
            continue
        verdict = verdict_from_probes(item.index, item.sentences[item.index], p_yes, thresholds)
        if item.error_type is None:
            clean_flags.append(bool(verdict.confused))
        else:
            flagged_any[item.error_type].append(bool(verdict.confused))
            flagged_type[item.error_type].append(item.error_type in verdict.types)
    return {
        "false_flag_rate": _rate(clean_flags),
        "n_clean": len(clean_flags),
        "recall_any": {t: _rate(flagged_any[t]) for t in ERROR_TYPES},
        "recall_type": {t: _rate(flagged_type[t]) for t in ERROR_TYPES},
        "recall_all": _rate([x for t in ERROR_TYPES for x in flagged_any[t]]),
    }


async def baseline(
    model: Model, items: list[Item], layout: SentenceLayout = "quoted"
) -> dict[str, Any]:
    """The paper's method (free-text answer per sentence) on the test split; `verdicts` maps
    (summary id, sentence index) to confused or not (None: unreadable)."""
    by_summary: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        if item.split == "test":
            by_summary[item.summary_id].append(item)
    flags: dict[str | None, list[bool]] = defaultdict(list)
    typed: dict[str | None, list[bool]] = defaultdict(list)
    failures = 0
    read: dict[tuple[str, int], bool | None] = {}
    settings = JudgeSettings(mode="sentence", layout=layout)
    for summary_id, group in by_summary.items():
        sentences = group[0].sentences
        targets = {i.index: i for i in group}
        verdicts, _ = await judge_summary(model, sentences, settings, only=sorted(targets))
        for v in verdicts:
            if v.index not in targets:
                continue
            read[(summary_id, v.index)] = v.confused if v.parsed else None
            if not v.parsed:
                failures += 1
                continue
            planted = targets[v.index].error_type
            flags[planted].append(bool(v.confused))
            typed[planted].append(planted in v.types)
    return {
        "false_flag_rate": _rate(flags[None]),
        "recall_all": _rate([x for t in ERROR_TYPES for x in flags[t]]),
        "recall_any": {t: _rate(flags[t]) for t in ERROR_TYPES},
        "recall_type": {t: _rate(typed[t]) for t in ERROR_TYPES},
        "n_clean": len(flags[None]),
        "parse_failures": failures,
        "verdicts": read,
    }


def verdict_agreement(
    a: dict[tuple[str, int], bool | None], b: dict[tuple[str, int], bool | None]
) -> tuple[int, int]:
    """(same verdicts, sentences both judges read) over the sentences both judged."""
    both = [(a[k], b[k]) for k in a.keys() & b.keys() if a[k] is not None and b[k] is not None]
    return sum(x == y for x, y in both), len(both)


def print_report(title: str, r: dict[str, Any]) -> None:
    print(f"\n{title}")
    print(
        f"  false-flag rate on clean sentences: {r['false_flag_rate']:.2f} (n={r.get('n_clean')})"
    )
    print(f"  recall over all planted errors:     {r['recall_all']:.2f}")
    print("  type              flagged   flagged-with-its-type")
    for t in ERROR_TYPES:
        with_type = r.get("recall_type", {}).get(t, float("nan"))
        print(f"  {t:17s} {r['recall_any'][t]:7.2f}   {with_type:7.2f}")


async def compare_sentence_layouts(model: Model, items: list[Item], layouts: list[str]) -> None:
    unknown = set(layouts) - set(get_args(SentenceLayout))
    if unknown:
        raise SystemExit(f"unknown sentence layouts {sorted(unknown)}; use numbered, quoted")
    runs: dict[str, dict[str, Any]] = {}
    for layout in layouts:
        start = time.perf_counter()
        runs[layout] = await baseline(model, items, layout)  # type: ignore[arg-type]
        r = runs[layout]
        flagged = sum(bool(v) for v in r["verdicts"].values())
        print_report(f"TEST split, sentence mode, {layout} layout", r)
        print(
            f"  {flagged} of {len(r['verdicts'])} sentences flagged, parse failures: "
            f"{r['parse_failures']}; took {time.perf_counter() - start:.0f} s"
        )
    first = layouts[0]
    for other in layouts[1:]:
        same, n = verdict_agreement(runs[first]["verdicts"], runs[other]["verdicts"])
        print(
            f"\nverdict agreement, {first} vs {other} layout: {same}/{n} sentences "
            f"({same / n if n else float('nan'):.1%})"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--write", action="store_true", help="save the calibration in the package")
    parser.add_argument("--target-fpr", type=float, default=0.05)
    parser.add_argument("--min-gain", type=float, default=0.15)
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--dump", type=Path, help="write every probe answer to this JSON file")
    parser.add_argument(
        "--layout",
        choices=["per_probe", "joint"],
        default="per_probe",
        help="probe prompt layout (per_probe: the shipped one)",
    )
    parser.add_argument(
        "--compare-layout",
        choices=["joint", "per_probe"],
        help="also probe with this layout (its packaged calibration) and print how often the "
        "two give a sentence the same verdict",
    )
    parser.add_argument(
        "--sentence-layouts",
        type=lambda text: [v.strip() for v in text.split(",") if v.strip()],
        help="only run the sentence-mode judge on the TEST split in these prompt layouts "
        "(numbered, quoted), and their verdict agreement",
    )
    parser.add_argument(
        "--test-bases",
        type=int,
        default=None,
        help="with --sentence-layouts: only the first N summaries of the TEST split (each with "
        "its planted copies)",
    )
    args = parser.parse_args()

    model = get_model(args.model)
    items = load_items()
    if args.sentence_layouts:
        if args.test_bases is not None:
            bases = sorted({i.summary_id.split("-")[0] for i in items if i.split == "test"})
            keep = set(bases[: args.test_bases])
            items = [i for i in items if i.summary_id.split("-")[0] in keep]
        await compare_sentence_layouts(model, items, args.sentence_layouts)
        return
    print(f"judge {args.model}: {len(items)} sentences to probe")
    start = time.perf_counter()
    probes = await probe_all(model, items, args.layout)
    print(f"probing took {time.perf_counter() - start:.0f} s")
    if args.dump:
        args.dump.write_text(json.dumps([p for p in probes]))

    if args.calibrate:
        table = calibrate(items, probes, args.target_fpr, args.min_gain, args.layout)
        print("\ncalibration split (per probe):")
        for name, row in table.items():
            print(
                f"  {name:12s} {row['error_type']:16s} thr={row['threshold']:.3f} "
                f"recall={row['calibration_recall']:.2f} "
                f"ffr={row['calibration_false_flag_rate']:.2f} "
                f"auc={row['calibration_auc']:.2f} enabled={row['enabled']}"
            )
        thresholds = {
            n: ProbeThreshold(float(r["threshold"]), bool(r["enabled"])) for n, r in table.items()
        }
        if args.write:
            target = Path(str(resources.files("longform_evals.judges"))) / "calibration"
            kind = calibration_kind(args.layout, ProbeSettings().template)
            path = target / f"{kind}_{calibration_name(args.model)}.json"
            payload = {
                "model": args.model,
                "made_by": f"benchmarks/booookscore_judge.py --layout {args.layout} --calibrate",
                "layout": args.layout,
                "probe_template": ProbeSettings().template,
                "data": "planted_errors.jsonl, calibration split (s01-s06)",
                "target_false_flag_rate": args.target_fpr,
                "min_gain": args.min_gain,
                "probes": table,
            }
            path.write_text(json.dumps(payload, indent=2) + "\n")
            print(f"wrote {path}")
    else:
        thresholds, source = thresholds_for(str(model), ProbeSettings(layout=args.layout))
        print(f"thresholds: {source}")

    print_report("TEST split, probe judge", report(items, probes, thresholds, "test"))
    print_report(
        "calibration split, probe judge (fitted here)",
        report(items, probes, thresholds, "calibration"),
    )
    if args.compare_layout:
        test = [i for i in items if i.split == "test"]
        other = await probe_all(model, test, args.compare_layout)
        other_thresholds, _ = thresholds_for(str(model), ProbeSettings(layout=args.compare_layout))
        ours = [p for i, p in zip(items, probes, strict=True) if i.split == "test"]
        same = same_verdicts(test, ours, thresholds, other, other_thresholds)
        print(
            f"\nverdict agreement on the TEST split, {args.layout} vs {args.compare_layout}: "
            f"{sum(same)}/{len(same)} sentences ({_rate(same):.1%})"
        )
        print_report(
            f"TEST split, {args.compare_layout} layout",
            report(test, other, other_thresholds, "test"),
        )
    if args.baseline:
        start = time.perf_counter()
        base = await baseline(model, items)
        print_report("TEST split, the paper's prompt (free text per sentence)", base)
        print(
            f"  parse failures: {base['parse_failures']}; took {time.perf_counter() - start:.0f} s"
        )


if __name__ == "__main__":
    asyncio.run(main())
