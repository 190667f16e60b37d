"""How well coherence judges agree with people on BooookScore's human span annotations.

    python benchmarks/coherence_human_fit.py --collect --books 20   # probe the judge (slow)
    python benchmarks/coherence_human_fit.py                        # cross-validated figures

People's labels: the BooookScore authors' span annotations of GPT-4 hierarchical summaries
(`../shared/data/human_labels/booookscore/summary-gpt4-4096-hier.json`, read by
`longform_evals.data.labels.booookscore`: a sentence is flagged when a span covers it).
`--collect` asks the judge every probe of the probe layout about every sentence of the first
`--books` summaries (in the order `judge_agreement -T budget=N` picks them, so a card over the
same budget reuses the cached calls) and appends the answers to `--probes` (resumable).
Without it, every variant below is scored with 5-fold cross-validation grouped by book (a
book's sentences are never split between fitting and scoring), its out-of-fold verdicts fed
to `longform_evals.analysis.judge_agreement` for the figures and their bootstrap intervals:

- `probe (shipped)`: the packaged probe calibration (planted-error set), as the scorer asks;
- `max of all probes`: the largest probe signal (no fit), AUC only;
- `fit: probes`, `fit: cheap signals`, `fit: probes + cheap`, `fit: shipped probes + cheap`:
  logistic regressions (scikit-learn) on the probe signals and/or the text signals of
  `longform_evals.analysis.coherence_features`, the threshold chosen on the fitting folds for
  the best balanced accuracy whose flag rate stays within 10 points of people's.

With `--embeddings` the text signals are also fitted together with sentence-embedding
similarities (the packaged all-MiniLM-L6-v2 of the `embed` extra: cosine to the previous and
next sentence, the largest to any earlier one, the mean to the rest of the summary and to the
three sentences before), the issue's "near-duplicates by embedding similarity" and "abrupt
topic shifts" measured by meaning rather than shared words; both are scored cross-validated
and on the held-out books, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from longform_evals.analysis.coherence_features import FEATURES, sentence_features
from longform_evals.analysis.judge_agreement import SummaryRow, Unit, agreement_figures
from longform_evals.data.labels.booookscore import load_booookscore_annotations
from longform_evals.judges.coherence.probe import (
    PROBES,
    Prober,
    ProbeSettings,
    probe_signal,
    thresholds_for,
)
from longform_evals.tasks.judge_agreement import budget_order

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared/data/human_labels/booookscore/summary-gpt4-4096-hier.json"
MODEL = "gguf/qwen2.5-coder-1.5b"
PROBE_NAMES = tuple(p.name for p in PROBES)
MAX_RATE_GAP = 0.10
EMBEDDING_FEATURES = ("emb_previous", "emb_next", "emb_max_earlier", "emb_rest", "emb_window")
"""Sentence-embedding similarities (cosine) of `--embeddings`, in the order
:func:`embedding_similarities` gives them."""


@dataclass
class Book:
    id: str
    sentences: list[str]
    flags: list[int]


def load_books(path: Path) -> list[Book]:
    """The annotated books in budget order: the first N are what `-T budget=N` judges."""
    books = []
    for s in budget_order(load_booookscore_annotations(path).samples):
        meta = s.metadata or {}
        flags = [int(f or 0) for f in meta["flags"]["annotators"]]
        books.append(Book(str(s.id), list(meta["summary_sentences"]), flags))
    return books


PROBE_TEMPLATE = "probe_unfenced"
"""The probe prompt the fitted judge's probe answers were collected with (and its file names)."""


async def collect(books: Sequence[Book], out: Path, model_name: str) -> None:
    from inspect_ai.model import get_model

    done: set[tuple[str, int]] = set()
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done.add((row["book"], row["index"]))
    model = get_model(model_name)
    prober = Prober(model, ProbeSettings(template=PROBE_TEMPLATE))
    start = time.perf_counter()
    with out.open("a", encoding="utf-8") as f:
        for book in books:
            for i in range(len(book.sentences)):
                if (book.id, i) in done:
                    continue
                p_yes, _ = await prober.sentence(book.sentences, i)
                f.write(json.dumps({"book": book.id, "index": i, "p_yes": p_yes}) + "\n")
                f.flush()
            print(f"{book.id}: {time.perf_counter() - start:.0f} s", flush=True)


def read_probes(path: Path) -> dict[tuple[str, int], dict[str, float | None]]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out[(row["book"], row["index"])] = row["p_yes"]
    return out


FloatArray = npt.NDArray[np.float64]


def probe_signals(p_yes: dict[str, float | None]) -> list[float]:
    """Each probe's P(problem); a probe not asked (the first sentence) or unread counts 0."""
    out = []
    for probe in PROBES:
        p = p_yes.get(probe.name)
        out.append(0.0 if p is None else probe_signal(p, probe))
    return out


@dataclass
class Table:
    books: list[str]
    index: list[int]
    y: npt.NDArray[np.int_]
    probes: FloatArray
    cheap: FloatArray
    emb: FloatArray


Embed = Callable[[list[str]], list[list[float]]]


def embedding_similarities(embed: Embed, sentences: Sequence[str]) -> list[tuple[float, ...]]:
    """The :data:`EMBEDDING_FEATURES` of every sentence of one summary (a missing neighbour
    counts as a perfect match, so it is never a jump)."""
    vectors = np.asarray(embed(list(sentences)), dtype=float)
    sims = vectors @ vectors.T  # load_embedder's vectors are unit length: dot = cosine
    n = len(sentences)
    out: list[tuple[float, ...]] = []
    for i in range(n):
        rest = np.delete(sims[i], i)
        out.append(
            (
                float(sims[i, i - 1]) if i > 0 else 1.0,
                float(sims[i, i + 1]) if i < n - 1 else 1.0,
                float(sims[i, :i].max()) if i > 0 else 0.0,
                float(rest.mean()) if n > 1 else 0.0,
                float(sims[i, max(0, i - 3) : i].mean()) if i > 0 else 1.0,
            )
        )
    return out


def build(
    books: Sequence[Book],
    probes: dict[tuple[str, int], dict[str, float | None]] | None,
    embed: Embed | None = None,
) -> Table:
    """The sentences of the books (with probes: only books whose every sentence was probed;
    with `embed`: their embedding similarities too)."""
    rows_b, rows_i, ys, ps, cs, es = [], [], [], [], [], []
    for book in books:
        if probes is not None and any((book.id, i) not in probes for i in range(len(book.flags))):
            continue
        feats = sentence_features(book.sentences)
        sims = embedding_similarities(embed, book.sentences) if embed else None
        for i, flag in enumerate(book.flags):
            rows_b.append(book.id)
            rows_i.append(i)
            ys.append(flag)
            ps.append(probe_signals(probes[(book.id, i)] if probes is not None else {}))
            cs.append(feats[i])
            es.append(sims[i] if sims else ())
    width = len(EMBEDDING_FEATURES) if embed else 0
    return Table(
        rows_b,
        rows_i,
        np.array(ys),
        np.array(ps, dtype=float),
        np.array(cs, dtype=float),
        np.array(es, dtype=float).reshape(len(ys), width),
    )


def choose_threshold(y: npt.NDArray[np.int_], p: FloatArray) -> float:
    """The threshold of best balanced accuracy whose flag rate is within MAX_RATE_GAP of the
    labels' rate (the best overall when none is)."""
    from sklearn.metrics import balanced_accuracy_score

    rate = float(y.mean())
    best, best_any = (-1.0, 0.5), (-1.0, 0.5)
    for t in np.unique(np.quantile(p, np.linspace(0.01, 0.99, 99))):
        flags = p >= t
        bacc = float(balanced_accuracy_score(y, flags))
        if bacc > best_any[0]:
            best_any = (bacc, float(t))
        if abs(flags.mean() - rate) <= MAX_RATE_GAP and bacc > best[0]:
            best = (bacc, float(t))
    return best[1] if best[0] >= 0 else best_any[1]


@dataclass(frozen=True)
class Linear:
    """A logistic model in the shipped file's shape: P = sigmoid(b + sum w (x - m) / s)."""

    features: list[str]
    mean: FloatArray
    scale: FloatArray
    weights: FloatArray
    intercept: float

    def logit(self, table: Table) -> FloatArray:
        x = select(table, self.features)
        return self.intercept + ((x - self.mean) / self.scale) @ self.weights

    def probability(self, table: Table) -> FloatArray:
        return 1.0 / (1.0 + np.exp(-self.logit(table)))


def _logistic(x: FloatArray, y: npt.NDArray[np.int_], columns: Sequence[str]) -> Linear:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    model = LogisticRegression(C=0.5, max_iter=1000).fit((x - mean) / scale, y)
    return Linear(list(columns), mean, scale, model.coef_[0], float(model.intercept_[0]))


def fit_single(text: Table, probed: Table, columns: Sequence[str]) -> Linear:
    """One logistic regression on the probed books (the text-only variant on every book)."""
    table = probed if any(c.startswith("probe:") for c in columns) else text
    return _logistic(select(table, columns), table.y, columns)


def fit_stacked(text: Table, probed: Table, columns: Sequence[str]) -> Linear:
    """The text signals fitted on every book, then their logit and the probes fitted on the
    probed books; the two stages compose into one linear model over all the features."""
    text_cols = [c for c in columns if not c.startswith("probe:")]
    probe_cols = [c for c in columns if c.startswith("probe:")]
    first = _logistic(select(text, text_cols), text.y, text_cols)
    x = np.column_stack([first.logit(probed), select(probed, probe_cols)])
    second = _logistic(x, probed.y, ["stage1", *probe_cols])
    c = second.weights[0] / second.scale[0]
    return Linear(
        text_cols + probe_cols,
        np.concatenate([first.mean, second.mean[1:]]),
        np.concatenate([first.scale, second.scale[1:]]),
        np.concatenate([c * first.weights, second.weights[1:]]),
        second.intercept + c * (first.intercept - second.mean[0]),
    )


Fitter = Callable[[Table, Table, Sequence[str]], Linear]


def subset(table: Table, books: set[str]) -> Table:
    keep = np.array([b in books for b in table.books], dtype=bool)
    return Table(
        [b for b, k in zip(table.books, keep, strict=True) if k],
        [i for i, k in zip(table.index, keep, strict=True) if k],
        table.y[keep],
        table.probes[keep],
        table.cheap[keep],
        table.emb[keep],
    )


def cross_validated(
    fitter: Fitter, text: Table, probed: Table, columns: Sequence[str], folds: int = 5
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Out-of-fold probabilities and flags on the probed books: each fold's books are left
    out of both stages of the fit; its threshold is chosen on the fitting rows."""
    books = sorted(set(probed.books))
    p = np.zeros(len(probed.y))
    flags = np.zeros(len(probed.y), dtype=bool)
    for k in range(min(folds, len(books))):
        out = set(books[k :: min(folds, len(books))])
        train_p = subset(probed, set(books) - out)
        train_t = subset(text, set(text.books) - out)
        model = fitter(train_t, train_p, columns)
        threshold = choose_threshold(train_p.y, model.probability(train_p))
        rows = np.array([b in out for b in probed.books])
        test = subset(probed, out)
        p[rows] = model.probability(test)
        flags[rows] = p[rows] >= threshold
    return p, flags


def fit_with_threshold(
    fitter: Fitter, text: Table, probed: Table, columns: Sequence[str]
) -> tuple[Linear, float]:
    """The model on every fitting row, its threshold chosen on out-of-fold probabilities (the
    in-sample ones are optimistic)."""
    oof, _ = cross_validated(fitter, text, probed, columns)
    return fitter(text, probed, columns), choose_threshold(probed.y, oof)


def figures(table: Table, p: FloatArray | None, flags: npt.NDArray[np.bool_]) -> dict[str, Any]:
    units = [
        Unit(
            b, {"annotators": int(y)}, bool(f), None if p is None else float(min(1.0, max(0.0, q)))
        )
        for b, y, f, q in zip(
            table.books, table.y, flags, p if p is not None else [0.0] * len(flags), strict=True
        )
    ]
    rows = []
    for book in sorted(set(table.books)):
        mask = np.array([b == book for b in table.books])
        rows.append(
            SummaryRow(
                book,
                "gpt4-4096-hier",
                book,
                1 - float(table.y[mask].mean()),
                1 - float(flags[mask].mean()),
            )
        )
    out: dict[str, Any] = agreement_figures(units, rows, n_boot=1000, seed=0).as_dict()["figures"]
    return out


def show(name: str, f: dict[str, Any]) -> None:
    def cell(key: str) -> str:
        v = f[key]
        if v["value"] is None:
            return "n/a"
        low, high = v["low"], v["high"]
        interval = "" if low is None else f" [{low:.2f}, {high:.2f}]"
        return f"{v['value']:.2f}{interval}"

    print(
        f"| {name} | {cell('roc_auc')} | {cell('balanced_accuracy')} | {cell('precision')} | "
        f"{cell('recall')} | {cell('judge_flag_rate')} | {cell('human_flag_rate')} | "
        f"{cell('kendall_tau_summaries')} |"
    )


def shipped_probe(
    table: Table, probes: dict[tuple[str, int], dict[str, float | None]]
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """The packaged probe judge's P(confusion) and flags, as `probe_summary` reads them."""
    thresholds, _ = thresholds_for(MODEL, ProbeSettings(template=PROBE_TEMPLATE))
    p = np.zeros(len(table.y))
    flags = np.zeros(len(table.y), dtype=bool)
    for k, key in enumerate(zip(table.books, table.index, strict=True)):
        p_yes = probes[key]
        signals = [
            (probe_signal(v, probe), thresholds[probe.name].threshold)
            for probe in PROBES
            if thresholds[probe.name].enabled and (v := p_yes.get(probe.name)) is not None
        ]
        p[k] = max((s for s, _ in signals), default=0.0)
        flags[k] = any(s >= t for s, t in signals)
    return p, flags


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--probes", type=Path, default=Path("coherence_probes.jsonl"))
    parser.add_argument("--collect", action="store_true")
    parser.add_argument("--books", type=int, default=20)
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--hold-out", type=int, default=10, help="first N books: never fitted on")
    parser.add_argument(
        "--write", choices=list(variants()), help="fit this variant and ship it in the package"
    )
    parser.add_argument(
        "--embeddings",
        action="store_true",
        help="also fit the text signals with sentence-embedding similarities (the embed extra)",
    )
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"no annotations at {args.data} (BooookScore's human annotations)")
    books = load_books(args.data)
    if args.collect:
        asyncio.run(collect(books[: args.books], args.probes, args.model))
        return

    held, fitting = books[: args.hold_out], books[args.hold_out :]
    header = "ROC AUC | BACC | precision | recall | judge flags | people's flags | tau (summaries)"
    rule = "|---|---|---|---|---|---|---|---|"
    print(
        f"Cross-validated (5 folds by book) on the fitting books (all but the first {len(held)}):"
    )
    print(f"| variant | {header} |\n{rule}")
    embed = None
    if args.embeddings:
        from longform_evals.models.embeddings import load_embedder

        embed = load_embedder()
    text = build(fitting, None, embed)
    oof, flags = cross_validated(fit_single, text, text, list(FEATURES))
    show(f"fit: cheap signals, all {len(fitting)} books", figures(text, oof, flags))
    if embed:
        with_emb = [*FEATURES, *EMBEDDING_FEATURES]
        oof, flags = cross_validated(fit_single, text, text, with_emb)
        show(f"fit: cheap + embeddings, all {len(fitting)} books", figures(text, oof, flags))
        held_text = build(held, None, embed)
        print(f"\nHeld out: the first {len(held)} books, fitted on the {len(fitting)} others:")
        print(f"| variant | {header} |\n{rule}")
        for name, columns in (
            ("fit: cheap signals", list(FEATURES)),
            ("fit: cheap + embeddings", with_emb),
        ):
            model, threshold = fit_with_threshold(fit_single, text, text, columns)
            p = model.probability(held_text)
            show(name, figures(held_text, p, p >= threshold))
    if not args.probes.exists():
        print(f"(no probe answers at {args.probes}: run --collect first for the probe variants)")
        return
    probes = read_probes(args.probes)
    probed = build(fitting, probes)
    n_books = len(set(probed.books))
    print(f"\nThe same, on the {n_books} probed fitting books:")
    print(f"| variant | {header} |\n{rule}")
    show("probe (shipped)", figures(probed, *shipped_probe(probed, probes)))
    best = probed.probes.max(axis=1)
    show("max of all probes (no fit)", figures(probed, best, best >= 0.5))
    results = {}
    for name, (fitter, columns) in variants().items():
        oof, flags = cross_validated(fitter, text, probed, columns)
        results[name] = figures(probed, oof, flags)
        show(name, results[name])

    held_table = build(held, probes)
    print(
        f"\nHeld out: the first {len(held)} books in budget order (what `judge_agreement "
        f"-T budget={len(held)}` judges), {len(set(held_table.books))} of them probed; each "
        f"variant fitted on the fitting books:"
    )
    print(f"| variant | {header} |\n{rule}")
    show("probe (shipped)", figures(held_table, *shipped_probe(held_table, probes)))
    for name, (fitter, columns) in variants().items():
        model, threshold = fit_with_threshold(fitter, text, probed, columns)
        p = model.probability(held_table)
        show(name, figures(held_table, p, p >= threshold))
        sure = sure_rules(probed, columns)
        if sure:
            show(
                f"{name}, + sure probe rules",
                figures(held_table, p, flagged(held_table, p, threshold, sure)),
            )
    if args.write:
        write(text, probed, args.write, results[args.write], args.data.name)


TEXT_TYPES = {
    "new_names": "entity_omission",
    "new_acronyms": "entity_omission",
    "max_overlap_earlier": "duplication",
    "overlap_previous": "discontinuity",
}
"""The error type a text signal stands for, when it is the one that flags a sentence."""


def variants() -> dict[str, tuple[Fitter, list[str]]]:
    """Each fitted variant: how it is fitted, and its features (`probe:<name>` or a text
    signal)."""
    thresholds = thresholds_for(MODEL, ProbeSettings(template=PROBE_TEMPLATE))[0]
    shipped = [f"probe:{p.name}" for p in PROBES if thresholds[p.name].enabled]
    every = [f"probe:{p.name}" for p in PROBES]
    text = list(FEATURES)
    return {
        "fit: cheap signals": (fit_single, text),
        "fit: probes": (fit_single, every),
        "fit: probes + cheap": (fit_single, every + text),
        "fit: shipped probes + cheap": (fit_single, shipped + text),
        "stacked: cheap (every book) + shipped probes": (fit_stacked, text + shipped),
        "stacked: cheap (every book) + all probes": (fit_stacked, text + every),
    }


def select(table: Table, columns: Sequence[str]) -> FloatArray:
    index = {f"probe:{p.name}": k for k, p in enumerate(PROBES)}
    picked = [
        table.probes[:, index[c]]
        if c in index
        else table.emb[:, EMBEDDING_FEATURES.index(c)]
        if c in EMBEDDING_FEATURES
        else table.cheap[:, FEATURES.index(c)]
        for c in columns
    ]
    return np.column_stack(picked)


SURE_FALSE_FLAGS = 0.01
"""A probe flags on its own when its signal reaches what only this share of the sentences
people found clear reach."""


def sure_rules(probed: Table, columns: Sequence[str]) -> dict[str, float]:
    """Per probe of the model, the signal above which it would flag a sentence by itself: the
    99th percentile of its signal on the sentences people left unflagged. Tried so that the
    fitted judge, whose threshold is set for people's flag rate, still flags a single planted
    repeat or jump; it does not (the planted errors' signals stay below these), so the shipped
    file has no such rules and the variant is only reported."""
    index = {f"probe:{p.name}": k for k, p in enumerate(PROBES)}
    clean = probed.y == 0
    return {
        c.split(":", 1)[1]: float(np.quantile(probed.probes[clean, index[c]], 1 - SURE_FALSE_FLAGS))
        for c in columns
        if c in index
    }


def flagged(
    table: Table, p: FloatArray, threshold: float, sure: dict[str, float]
) -> npt.NDArray[np.bool_]:
    """The fitted model's flags, or a sure probe's."""
    index = {probe.name: k for k, probe in enumerate(PROBES)}
    out = p >= threshold
    for name, t in sure.items():
        out |= table.probes[:, index[name]] >= t
    return out


def write(text: Table, probed: Table, variant: str, cv: dict[str, Any], data_name: str) -> None:
    """Fit the variant on every fitting book and write the judge's file into the package."""
    fitter, columns = variants()[variant]
    model, threshold = fit_with_threshold(fitter, text, probed, columns)
    out = {
        "model": MODEL,
        "made_by": f"benchmarks/coherence_human_fit.py --write '{variant}'",
        "data": f"{data_name}: BooookScore's human span annotations; text signals fitted on "
        f"{len(set(text.books))} books ({len(text.y)} sentences, {int(text.y.sum())} flagged by "
        f"people), probes on {len(set(probed.books))} of them ({len(probed.y)} sentences); "
        "the first books of the judge cards' budget were left out",
        "variant": variant,
        "probe_template": PROBE_TEMPLATE,
        "features": model.features,
        "mean": [round(float(v), 6) for v in model.mean],
        "scale": [round(float(v), 6) for v in model.scale],
        "weights": [round(float(v), 6) for v in model.weights],
        "intercept": round(model.intercept, 6),
        "threshold": round(threshold, 6),
        "types": {k: v for k, v in TEXT_TYPES.items() if k in columns},
        "cross_validated": {
            k: cv[k]
            for k in (
                "roc_auc",
                "balanced_accuracy",
                "precision",
                "recall",
                "judge_flag_rate",
                "human_flag_rate",
                "kendall_tau_summaries",
            )
        },
    }
    path = REPO / "src/longform_evals/judges/calibration/coherence_fitted_qwen2.5-coder-1.5b.json"
    path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
