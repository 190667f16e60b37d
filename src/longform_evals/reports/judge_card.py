"""Judge cards: how far one judge agrees with people, written from a `judge_agreement` log.

A card is built from a finished log of the `judge_agreement` task only, never from a live
run: every summary's `judge_agreement` score holds its unit rows (people's flags, the judge's
flag and probability) and its human and judge scores, which :func:`rows_of_scores` turns back
into the inputs of :func:`agreement_figures`. The card is therefore the log's own figures,
recomputed with the bootstrap size and seed asked for (the log's metric uses 1000 and 0).

A card is one JSON file and its markdown twin, named `<judge>__<kind>__<mode>`. It records
what was judged (the data's file name and sha256, never a path of the machine it ran on), how
(the resolved mode, calibration and task settings), every figure with its 95 % interval and
the counts behind them, and the headline figure that other reports quote
(:func:`headline_text`). :func:`load_card` reads a card back and checks its shape.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from inspect_ai.log import EvalLog, EvalSample

from longform_evals import about
from longform_evals.analysis.judge_agreement import AgreementFigures, agreement_figures
from longform_evals.data.sources import content_sha256
from longform_evals.judges.coherence import judges as coherence_judges  # noqa: F401 (its entries)
from longform_evals.judges.faithfulness import support_judges  # noqa: F401 (its entries)
from longform_evals.judges.registry import JudgeFamily, judge_entry, judge_names
from longform_evals.log_store import join, resolve, write_text
from longform_evals.scorers.judge_agreement_metrics import rows_of_scores

__all__ = [
    "CARD_VERSION",
    "HEADLINE_FIGURE",
    "CardError",
    "card_from_log",
    "card_stem",
    "data_sha256",
    "headline_text",
    "load_card",
    "render_json",
    "render_markdown",
    "write_card",
]

CARD_VERSION = 1
TASK = "judge_agreement"
"""The task (and its scorer's name) a card is made from."""
HEADLINE_FIGURE = {"coherence": "balanced_accuracy", "faithfulness": "balanced_accuracy"}
"""Per kind, the figure a card leads with."""
LABELS = {"balanced_accuracy": "BACC"}
SHA256_METADATA = "data_sha256"
"""Eval metadata key where `longform judge-card` stores the data's digest at run time."""
SKIPPED_SHOWN = 5
REQUIRED_KEYS = (
    "card_version",
    "judge",
    "kind",
    "mode",
    "calibration",
    "data",
    "figures",
    "headline",
    "date",
    "suite_version",
    "task_version",
    "log",
)
REQUIRED_DATA_KEYS = ("path", "format", "sha256", "summaries_judged")
REQUIRED_HEADLINE_KEYS = ("name", "value", "low", "high")
# Per kind, card calibration key -> score metadata key.
_CALIBRATION_KEYS = {
    "coherence": {"source": "calibration"},
    "faithfulness": {
        "source": "calibration",
        "sentence_threshold": "sentence_threshold",
        "chunking": "chunking",
        "retrieval": "retrieval",
        "prompt": "prompt",
    },
}


def _card_settings(kind: str) -> tuple[str, ...]:
    """The task arguments that change how a judge of ``kind`` is asked (the card's
    `settings`): those its registered judges' entries record (`judges/registry.py`; none
    for a kind no judge has)."""
    family = cast(JudgeFamily, kind)
    found: list[str] = []
    for name in judge_names(family):
        found += [s for s in judge_entry(family, name).card_settings if s not in found]
    return tuple(found)


class CardError(ValueError):
    """No card can be made from this log, or a file is not a valid card; the message says why."""


# --- the data's digest ----------------------------------------------------------------------


def data_sha256(path: str | Path) -> str:
    """The digest of a data file or folder (`data.sources.content_sha256`: the one the tasks
    record of their data)."""
    digest = content_sha256(path)
    if digest is None:
        raise CardError(f"no data file or folder at {path}")
    return digest


# --- reading the log ------------------------------------------------------------------------


def _log_name(log: EvalLog) -> str:
    return Path(log.location).name if log.location else "(unsaved log)"


def _check_log(log: EvalLog) -> None:
    """Refuse a log of another task, a run that did not finish, several epochs."""
    name = _log_name(log)
    scorers = [s.name.split("/")[-1] for s in log.eval.scorers or []]
    if TASK not in scorers and log.eval.task.split("/")[-1] != TASK:
        raise CardError(f"log {name} is of task {log.eval.task!r}, not {TASK}")
    if log.status != "success":
        error = f": {log.error.message}" if log.error else ""
        raise CardError(f"log {name}: the run ended with status {log.status!r}{error}")
    if log.eval.config.epochs not in (None, 1):
        raise CardError(
            f"log {name} has {log.eval.config.epochs} epochs; a card is made of one judgement "
            "per summary"
        )
    if log.samples is None:
        raise CardError(f"log {name} holds no samples (was it read with header_only?)")


def _scored(log: EvalLog) -> tuple[list[tuple[EvalSample, Mapping[str, Any]]], int]:
    """Samples with a judge-agreement score that has unit rows, and how many lack one."""
    scored: list[tuple[EvalSample, Mapping[str, Any]]] = []
    unscored = 0
    for sample in log.samples or []:
        score = (sample.scores or {}).get(TASK)
        meta = score.metadata if score is not None else None
        if score is None or not meta or "units" not in meta:
            unscored += 1
            continue
        scored.append((sample, meta))
    return scored, unscored


def _triples(
    scored: list[tuple[EvalSample, Mapping[str, Any]]],
) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    """`(summary id, summary scores, score metadata)` per scored sample, as the metric reads
    them: the scores from the metadata's copy, the value where that is missing."""
    out: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]] = []
    for sample, meta in scored:
        score = (sample.scores or {})[TASK]
        value = score.value if isinstance(score.value, dict) else {}
        out.append(
            (str(meta.get("summary_id", sample.id)), meta.get("summary_scores") or value, meta)
        )
    return out


def _distinct(values: Iterable[Any]) -> Any:
    """The one value all samples agree on, else the distinct values in order of appearance."""
    seen: list[Any] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    if not seen:
        return None
    return seen[0] if len(seen) == 1 else seen


def _judge(log: EvalLog, metas: list[Mapping[str, Any]]) -> str:
    """The judge as the scores name it; else the grader role; else the evaluated model."""
    named = _distinct(m.get("judge") for m in metas if m.get("judge"))
    if isinstance(named, str):
        return named
    if named:
        return " + ".join(str(n) for n in named)
    grader = (log.eval.model_roles or {}).get("grader")
    if grader is None:
        return log.eval.model
    configs = grader if isinstance(grader, list) else [grader]
    return " + ".join(c.model for c in configs)


def _mode(kind: str, task_args: Mapping[str, Any], metas: list[Mapping[str, Any]]) -> str:
    """Coherence: the resolved BooookScore mode; faithfulness: the support judge and prompt."""
    if kind == "coherence":
        modes = _distinct(m.get("mode") for m in metas if m.get("mode"))
        if isinstance(modes, list):
            return "+".join(str(m) for m in modes)
        return str(modes or task_args.get("mode") or "auto")
    judge = str(task_args.get("judge") or "llm")
    prompt = _distinct(m.get("prompt") for m in metas if m.get("prompt"))
    return f"{judge}-{prompt}" if isinstance(prompt, str) else judge


def _calibration(kind: str, metas: list[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, meta_key in _CALIBRATION_KEYS.get(kind, {}).items():
        value = _distinct(m.get(meta_key) for m in metas if meta_key in m)
        if value is not None:
            out[key] = value
    # Summary-level units are flagged below the summary threshold of the scorer's aggregation.
    summary = _distinct(
        (m.get("thresholds") or {}).get("faithfulness") for m in metas if m.get("thresholds")
    )
    if summary is not None:
        out["summary_threshold"] = summary
    return out


def _run_date(log: EvalLog) -> str:
    created = datetime.fromisoformat(log.eval.created)
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return created.astimezone(UTC).date().isoformat()


# --- no paths of this machine ---------------------------------------------------------------


def _path_prefixes(log: EvalLog, data: str | None) -> list[str]:
    """Folders whose absolute paths must not reach a card: the data's, the log's, the other
    path arguments', the working and home directories."""
    found: list[str] = []
    args = log.eval.task_args or {}
    paths = [data, log.location, *(args.get(k) for k in ("calibration", "prompts_dir", "books"))]
    for p in paths:
        if isinstance(p, str) and p and os.path.isabs(p):
            found.append(str(Path(p).parent))
    found += [os.getcwd(), str(Path.home())]
    return sorted({p.rstrip(os.sep) for p in found if p not in ("", os.sep)}, key=len, reverse=True)


def _scrub(value: Any, prefixes: list[str]) -> Any:
    """Strings with the given folders cut off their paths; a remaining absolute path becomes
    its file name. Containers are scrubbed throughout."""
    if isinstance(value, str):
        for prefix in prefixes:
            value = value.replace(prefix + os.sep, "")
        return Path(value).name if os.path.isabs(value) else value
    if isinstance(value, dict):
        return {k: _scrub(v, prefixes) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, prefixes) for v in value]
    return value


# --- the card -------------------------------------------------------------------------------


def card_from_log(
    log: EvalLog,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    data: str | Path | None = None,
) -> dict[str, Any]:
    """The card of a finished `judge_agreement` log (read in full, samples included).

    Args:
        log: The log.
        n_boot: Bootstrap replicates of the intervals.
        seed: Seed of the bootstrap draw.
        data: The data file or folder, to hash when the log does not carry its digest (a
            run not made by `longform judge-card`); the path the log names is tried first.

    Raises:
        CardError: for a log of another task, a run that did not succeed, several epochs,
            or no scored summary.
    """
    _check_log(log)
    scored, unscored = _scored(log)
    if not scored:
        raise CardError(
            f"log {_log_name(log)} has no scored summary "
            f"({unscored} sample(s) without a judge-agreement score)"
        )
    metas = [meta for _, meta in scored]
    task_meta = log.eval.metadata or {}
    task_args = log.eval.task_args or {}
    kind = str(task_meta.get("kind") or task_args.get("kind") or metas[0].get("kind"))
    source = task_meta.get("data") or task_args.get("data")
    source = str(source) if source else None

    units, summaries = rows_of_scores(_triples(scored))
    try:
        figures = agreement_figures(units, summaries, n_boot=n_boot, seed=seed)
    except ValueError as e:
        raise CardError(f"log {_log_name(log)}: {e}") from e
    as_dict = figures.as_dict()
    settings = {k: task_args[k] for k in _card_settings(kind) if task_args.get(k) is not None}
    card: dict[str, Any] = {
        "card_version": CARD_VERSION,
        "judge": _judge(log, metas),
        "kind": kind,
        "mode": _mode(kind, task_args, metas),
        "calibration": _calibration(kind, metas),
        "settings": settings,
        "data": _card_data(log, source, data, len(scored), unscored),
        "figures": as_dict,
        "headline": _headline(figures, kind),
        "date": _run_date(log),
        "suite_version": about.__version__,
        "task_version": str(log.eval.task_version),
        "log": _log_name(log),
    }
    result: dict[str, Any] = _scrub(card, _path_prefixes(log, source))
    return result


def _card_data(
    log: EvalLog, source: str | None, data: str | Path | None, judged: int, unscored: int
) -> dict[str, Any]:
    """The card's `data` section: the file (its digest from the log, else hashed from the
    path the log names or from ``data``), its people, the summaries judged and skipped."""
    task_meta = log.eval.metadata or {}
    task_args = log.eval.task_args or {}
    sha = task_meta.get(SHA256_METADATA)
    if sha is None:
        for candidate in (source, data):
            if candidate is not None and Path(candidate).exists():
                sha = data_sha256(candidate)
                break
    skipped = list(task_meta.get("skipped") or [])
    return {
        "path": Path(source).name if source else None,
        "format": task_meta.get("format"),
        "sha256": sha,
        "annotators": list(task_meta.get("annotators") or []),
        "summaries_judged": judged,
        "summaries_unscored": unscored,
        "summaries_in_data": task_meta.get("summaries_in_data"),
        "budget": task_meta.get("budget", task_args.get("budget")),
        "skipped": {"count": len(skipped), "first": skipped[:SKIPPED_SHOWN]},
    }


def _headline(figures: AgreementFigures, kind: str) -> dict[str, Any]:
    """The card's headline: the kind's headline figure with its interval."""
    name = HEADLINE_FIGURE.get(kind, "balanced_accuracy")
    headline = figures.figures[name].as_dict() if name in figures.figures else {}
    return {
        "name": name,
        "label": LABELS.get(name, name),
        "value": headline.get("value"),
        "low": headline.get("low"),
        "high": headline.get("high"),
        "n": headline.get("n"),
    }


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text.replace("/", "-")).strip("-") or "unnamed"


def card_stem(card: Mapping[str, Any]) -> str:
    """`<judge slug>__<kind>__<mode>`: the file name of a card without its suffix."""
    return f"{_slug(str(card['judge']))}__{_slug(str(card['kind']))}__{_slug(str(card['mode']))}"


def render_json(card: Mapping[str, Any]) -> str:
    """The card as JSON text (NaN is already None in a card)."""
    return json.dumps(card, indent=2, allow_nan=False) + "\n"


def _num(x: object) -> str:
    if isinstance(x, bool) or not isinstance(x, int | float) or math.isnan(x):
        return "n/a"
    return f"{x:.3f}"


def _interval(fig: Mapping[str, Any]) -> str:
    if fig.get("low") is None or fig.get("high") is None:
        return "n/a"
    return f"[{_num(fig['low'])}, {_num(fig['high'])}]"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def headline_text(card: Mapping[str, Any]) -> str:
    """One line for tables and terminals, e.g.
    `BACC 0.58 [0.52, 0.63] on 20 summaries (booookscore)`."""
    head = card["headline"]
    label = head.get("label") or LABELS.get(head["name"], head["name"])
    value = head.get("value")
    text = f"{label} {value:.2f}" if isinstance(value, int | float) else f"{label} n/a"
    low, high = head.get("low"), head.get("high")
    if isinstance(value, int | float):
        text += f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    data = card["data"]
    n = data.get("summaries_judged")
    return f"{text} on {n} summar{'y' if n == 1 else 'ies'} ({data.get('format')})"


def render_markdown(card: Mapping[str, Any]) -> str:
    """The card as a markdown page: title, summary paragraph, the figures, systems, counts."""
    figures = card["figures"]
    lines = [
        f"# Judge card: {card['judge']} on {card['kind']} ({card['mode']})",
        "",
        _md_paragraph(card),
        "",
        f"**Headline: {headline_text(card)}**",
        "",
        "| figure | value | 95 % interval | n | note |",
        "|---|---|---|---|---|",
    ]
    for name, fig in (figures.get("figures") or {}).items():
        lines.append(
            f"| {_cell(name)} | {_num(fig.get('value'))} | {_interval(fig)} | "
            f"{fig.get('n')} | {_cell(fig.get('note') or '')} |"
        )
    lines += _md_systems(figures)
    lines += _md_counts(card["data"], figures.get("counts") or {})
    return "\n".join(lines) + "\n"


def _md_paragraph(card: Mapping[str, Any]) -> str:
    """The card's summary paragraph: judge, data, counts, run and intervals."""
    data = card["data"]
    figures = card["figures"]
    counts = figures.get("counts") or {}
    boot = figures.get("bootstrap") or {}
    calibration = ", ".join(f"{k} {v}" for k, v in card["calibration"].items()) or "none"
    sha = str(data.get("sha256") or "unknown")[:12]
    budget = data.get("budget")
    return (
        f"Judge `{card['judge']}` ({card['kind']}, mode `{card['mode']}`, calibration: "
        f"{calibration}) against people's labels in `{data.get('path')}` "
        f"({data.get('format')}, sha256 {sha}..., annotators: "
        f"{', '.join(data.get('annotators') or []) or 'none'}): "
        f"{data.get('summaries_judged')} of {data.get('summaries_in_data')} summaries judged "
        f"({'no budget' if budget is None else f'budget {budget}'}), "
        f"{counts.get('n_units', 'n/a')} units, {counts.get('n_used', 'n/a')} used. "
        f"Run on {card['date']} with longform-evals {card['suite_version']} "
        f"(task version {card['task_version']}), log `{card['log']}`. Intervals: "
        f"{float(boot.get('confidence', 0.95)) * 100:g} % percentile bootstrap over "
        f"{boot.get('resampled', 'summaries')} ({boot.get('n_boot')} replicates, "
        f"seed {boot.get('seed')})."
    )


def _md_systems(figures: Mapping[str, Any]) -> list[str]:
    """The systems' section: each system's means and whether the judge orders them as people
    do (no lines without systems)."""
    lines: list[str] = []
    systems = figures.get("systems") or {}
    if systems:
        lines += [
            "",
            "## Systems",
            "",
            "| system | human mean | 95 % interval | judge mean | 95 % interval |",
            "|---|---|---|---|---|",
        ]
        for name, means in systems.items():
            human, judge = means["human"], means["judge"]
            lines.append(
                f"| {_cell(name)} | {_num(human.get('value'))} | {_interval(human)} | "
                f"{_num(judge.get('value'))} | {_interval(judge)} |"
            )
        same = figures.get("same_order")
        tau = (figures.get("figures") or {}).get("kendall_tau_systems") or {}
        why = tau.get("note") or "fewer than two systems"
        said = f"n/a ({why})" if same is None else ("yes" if same else "no")
        lines += ["", f"The judge orders the systems as people do: {said}."]
    return lines


def _md_counts(data: Mapping[str, Any], counts: Mapping[str, Any]) -> list[str]:
    """The counts' section: units and summaries used and left out, the first skipped records."""
    lines = [
        "",
        "## Counts",
        "",
        "| units | used | without human label | unjudged | used without probability "
        "| summaries scored | summaries unscored | skipped records |",
        "|---|---|---|---|---|---|---|---|",
        "| "
        + " | ".join(
            str(x)
            for x in (
                counts.get("n_units"),
                counts.get("n_used"),
                counts.get("n_no_human"),
                counts.get("n_unjudged"),
                counts.get("n_no_p"),
                counts.get("n_summaries_used"),
                counts.get("n_summaries_unscored"),
                (data.get("skipped") or {}).get("count", 0),
            )
        )
        + " |",
    ]
    for item in (data.get("skipped") or {}).get("first") or []:
        lines.append(f"- skipped {item.get('where')}: {item.get('reason')}")
    return lines


def write_card(card: Mapping[str, Any], out_dir: str | Path) -> tuple[str, str]:
    """Write `<stem>.json` and `<stem>.md` into `out_dir` (a folder, made if missing, or a
    store URL); return where they went.

    Raises:
        StoreError: When they cannot be written there; the message names the place.
    """
    folder = resolve(str(out_dir))
    stem = card_stem(card)
    json_path = join(folder, f"{stem}.json")
    md_path = join(folder, f"{stem}.md")
    write_text(json_path, render_json(card))
    write_text(md_path, render_markdown(card))
    return json_path, md_path


def load_card(path: str | Path) -> dict[str, Any]:
    """Read a card file and check its version and required keys.

    Raises:
        CardError: naming the file and what is wrong with it.
    """
    file = Path(path)
    try:
        card = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise CardError(f"no judge card at {file}") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CardError(f"{file} is not a judge card: {e}") from e
    if not isinstance(card, dict):
        raise CardError(f"{file} is not a judge card: a JSON object expected")
    version = card.get("card_version")
    if version != CARD_VERSION:
        raise CardError(f"{file}: card_version {version!r}; this suite reads {CARD_VERSION}")
    for where, keys, found in (
        ("", REQUIRED_KEYS, card),
        ("data.", REQUIRED_DATA_KEYS, card.get("data")),
        ("headline.", REQUIRED_HEADLINE_KEYS, card.get("headline")),
    ):
        if not isinstance(found, dict):
            raise CardError(f"{file}: {where.rstrip('.')} must be an object")
        missing = [f"{where}{k}" for k in keys if k not in found]
        if missing:
            raise CardError(f"{file} is not a complete judge card: missing {', '.join(missing)}")
    if not isinstance(card["figures"], dict) or not isinstance(
        card["figures"].get("figures"), dict
    ):
        raise CardError(f"{file}: figures must be an object with its own figures")
    return card
