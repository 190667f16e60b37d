"""A leaderboard from a folder of Inspect logs: one row per model x task variant.

Logs are read with Inspect's dataframe API (``evals_df``/``samples_df``, one extra column
that pulls scores, judge, usage and model calls out of each full sample). Per row and headline
metric: the mean over the samples that have a value, a 95 % bootstrap interval and N (from
``analysis.intervals``, the same function as every other interval of the package), and the
share of samples without a value (errors, refusals by the budget, unreadable verdicts).
Ranks are per task variant and metric, shared where rows cannot be told apart (a paired
bootstrap over the samples both rows scored), and only among rows with the same judge.
"""

from __future__ import annotations

import errno
import inspect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from inspect_ai.log import EvalSample

from longform_evals.analysis.intervals import Interval, bootstrap_interval, shared_ranks
from longform_evals.data.sources import DATA_SOURCE_KEY
from longform_evals.judges.calibration_files import read_calibration
from longform_evals.judges.cards import card_headline
from longform_evals.judges.coherence.judges import MODE_NOTE
from longform_evals.judges.text_check import READING_DECIDED
from longform_evals.log_keys import BUDGET_ERROR, PLAN_METADATA
from longform_evals.log_store import StoreError, check_readable, is_url, resolve
from longform_evals.models.step_usage import step_usage
from longform_evals.reports.leaderboard_settings import (
    Experiment,
    differing,
    run_settings,
    what_differs,
)
from longform_evals.reports.leaderboard_settings import loads as _loads
from longform_evals.reports.leaderboard_settings import present as _present
from longform_evals.scorers.results import result_values
from longform_evals.tasks.card import Headline
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.parameters import path_names

PARSE_FLAG = 0.10
"""A row whose parse-failure rate is above this is flagged."""


HEADLINES: dict[str, list[Headline]] = {
    name: list(card.headlines) for name, card in TASK_CARDS.items()
}
"""Per task, the metrics its leaderboard columns show (its card's headlines)."""

PARSE_KEYS = {
    "booookscore": "parse_failure_rate",
    "choice_accuracy": "unparsed",
    "llm_raters": "unparsed",
    "faithfulness": "missing_rate",
}
"""Per scorer, its per-sample share of unreadable verdicts or answers."""

CARD_METADATA = "judge_card"
"""Score metadata key where judged scorers name the packaged judge card that applies."""
AD_HOC = "ad hoc"
"""The plan of a log no plan made (`inspect eval`, `longform quickstart`)."""
NO_JUDGE = "no judge"
NO_CARD = "no card"


class LeaderboardError(ValueError):
    """No leaderboard can be made from the folder; the message says why."""


@dataclass
class Row:
    """One model on one task variant."""

    model: str
    variant: str
    task: str
    judge: str | None
    judge_mode: str | None
    judge_quality: str
    log: str
    status: str
    samples: int
    planned: int
    errors: int
    budget_refused: int
    parse_failure_rate: float
    self_judged: bool = False
    mode_note: str | None = None
    """Why the judge was asked in another mode than its name calls for (`auto` without the
    log-probabilities the packaged judge's probe method reads), as its scores record it."""
    reading_decided: int = 0
    """Sentences whose score came from a reading without suspect pieces rather than from the
    sentence as written (`READING_DECIDED`, summed over the samples' judged scores)."""
    judge_card: str = NO_JUDGE
    """The headline of the judge card that applies, `no card` or `no judge`."""
    judge_card_names: list[str | None] = field(default_factory=list)
    """The card names the samples' scores give, each once, in order (None: no card)."""
    metrics: dict[str, Interval] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)
    per_sample: dict[str, dict[str, float]] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    cache_read_tokens: float = 0.0
    judge_tokens: float = 0.0
    calls: float = 0.0
    judge_calls: float = 0.0
    steps: dict[str, dict[str, float]] = field(default_factory=dict)
    wall_seconds: float = math.nan
    identity: RunIdentity | None = None
    """What was run: when, under which plan, with which versions, on which data."""

    @property
    def partial(self) -> bool:
        """Not every sample the run set out to score was scored (an error, a stopped run, a
        budget); a `--limit` run of fewer samples is complete."""
        return self.status != "success" or self.samples < self.planned or self.budget_refused > 0

    @property
    def flags(self) -> list[str]:
        out = []
        if self.partial:
            out.append("partial")
        if self.parse_failure_rate > PARSE_FLAG:
            out.append(f"parse failures {100 * self.parse_failure_rate:.0f} %")
        if self.self_judged:
            out.append("self-judged")
        if self.mode_note:
            out.append(f"judge mode {self.judge_mode}: no log-probabilities from its provider")
        if self.reading_decided:
            n = self.reading_decided
            out.append(f"{n} sentence{'s' if n != 1 else ''} scored by a reading")
        return out

    @property
    def tokens(self) -> float:
        """Tokens the evaluated model processed per sample: its input, cache reads included
        (Inspect counts them apart from ``input_tokens``), and its output."""
        return self.input_tokens + self.cache_read_tokens + self.output_tokens


@dataclass(frozen=True)
class RunIdentity:
    """What a row's log says was run, for a page a reader can cite."""

    plan: str
    """The plan's name, or `ad hoc` for a log no plan made."""
    plan_variant: str | None
    """The plan's name of the variant (None: ad hoc)."""
    started: str
    completed: str
    versions: dict[str, str]
    """Package versions the log records (longform-evals, inspect_ai)."""
    task_version: str
    data: dict[str, Any]
    """Where the samples came from (`data.sources`: a file's name and sha256, or a dataset,
    its revision and split), with the items the run set out to score."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "plan": self.plan,
            "plan_variant": self.plan_variant,
            "started_at": self.started,
            "completed_at": self.completed,
            "versions": self.versions,
            "task_version": self.task_version,
            "data": self.data,
        }


@dataclass
class Leaderboard:
    """Rows grouped by task variant, the metrics shown per variant, and the skipped logs."""

    rows: list[Row]
    metrics: dict[str, list[Headline]]
    skipped: list[tuple[str, str]]
    notes: list[str] = field(default_factory=list)

    def variants(self) -> list[str]:
        return list(dict.fromkeys(r.variant for r in self.rows))


def _sample_facts(sample: EvalSample) -> dict[str, Any]:
    """What the leaderboard needs of one full sample, as JSON."""
    scores = {}
    judges: list[str] = []
    mode = note = None
    cards = []
    for name, score in (sample.scores or {}).items():
        value = score.value
        scores[name.split("/")[-1]] = value if isinstance(value, dict) else {"value": value}
        meta = score.metadata or {}
        # the model (or classifier) that judged, as each judged scorer records it
        used = meta.get("judge") or meta.get("grader")
        if isinstance(used, str) and used and used not in judges:
            judges.append(used)
        mode = mode or meta.get("mode")
        note = note or meta.get(MODE_NOTE)
        if CARD_METADATA in meta:
            cards.append(meta[CARD_METADATA])
    model_events = [e for e in sample.events if e.event == "model"]
    grader = (sample.role_usage or {}).get("grader")
    # The evaluated model's own tokens: all usage less the grader role's.
    usage = {"input": 0, "output": 0, "cache_read": 0}
    for sign, counted in [
        (1, (sample.model_usage or {}).values()),
        (-1, [grader] if grader else []),
    ]:
        for u in counted:
            usage["input"] += sign * u.input_tokens
            usage["output"] += sign * u.output_tokens
            usage["cache_read"] += sign * (u.input_tokens_cache_read or 0)
    return {
        "scores": scores,
        "judges": judges,
        "mode": mode,
        "mode_note": note,
        "judge_cards": cards,
        "error": sample.error.message if sample.error else None,
        "calls": len(model_events),
        "usage": usage,
        "grader_tokens": (grader.input_tokens + grader.output_tokens) if grader else 0,
        "steps": step_usage(sample),
    }


def _frames(log_dir: str) -> tuple[Any, Any, list[tuple[str, str]]]:
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as e:
        raise LeaderboardError(
            f"the leaderboard reads logs with Inspect's dataframe API, which needs {e.name}: "
            'pip install "longform-evals[leaderboard]"'
        ) from e
    from inspect_ai.analysis import (
        EvalColumn,
        EvalDataset,
        EvalInfo,
        EvalModel,
        EvalResults,
        EvalTask,
        SampleColumn,
        evals_df,
        samples_df,
    )
    from inspect_ai.log import list_eval_logs

    try:
        listed = [info.name for info in list_eval_logs(log_dir)]
    except FileNotFoundError:  # a store folder with nothing in it yet
        listed = []
    linked, odd = ([], []) if is_url(log_dir) else _local_extras(log_dir, listed)
    listed += linked
    if not listed and not odd:
        raise LeaderboardError(f"no Inspect logs in {log_dir}")
    logs, unreadable = _readable_logs(listed)
    unreadable = odd + unreadable
    if logs:
        samples, logs = _sample_frames(logs, samples_df, SampleColumn, unreadable)
    if not logs:
        reasons = "; ".join(f"{Path(name).name}: {why}" for name, why in unreadable[:5])
        raise LeaderboardError(f"no readable Inspect logs in {log_dir} ({reasons})")
    evals = evals_df(
        logs,
        columns=[
            *EvalInfo,
            *EvalTask,
            *EvalModel,
            *EvalResults,
            *EvalDataset,
            EvalColumn("task_args_json", path="eval.task_args"),
            EvalColumn("packages", path="eval.packages"),
            EvalColumn("started_at", path="stats.started_at"),
            EvalColumn("completed_at", path="stats.completed_at"),
            EvalColumn("limit", path="eval.config.limit"),
            EvalColumn("epochs", path="eval.config.epochs"),
            # EvalModel's `model_args` column reads the base URL (Inspect 0.3.285)
            EvalColumn("model_args_json", path="eval.model_args"),
            EvalColumn("sample_id", path="eval.config.sample_id"),
        ],
        strict=False,
    )[0]
    return evals, samples, unreadable


def _sample_frames(
    logs: Sequence[str], samples_df: Any, column: Any, unreadable: list[tuple[str, str]]
) -> tuple[Any, list[str]]:
    """The samples of every log, read log by log: a log with a sample that cannot be read
    (a broken sample file inside a good header) is skipped with its reason, the others kept."""
    import pandas as pd

    columns = [
        column("id", path="id", required=True, type=str),
        column("epoch", path="epoch", required=True),
        column("facts", path=_sample_facts, full=True),
    ]
    frames, kept = [], []
    for name in logs:
        try:
            frames.append(samples_df([name], columns=columns, strict=False)[0])
        except Exception as exc:  # any sample that fails to read is a reason to skip the log
            unreadable.append((name, f"unreadable sample{_failing_sample(name, exc)}"))
        else:
            kept.append(name)
    return (pd.concat(frames, ignore_index=True) if frames else None), kept


def _failing_sample(name: str, exc: BaseException) -> str:
    """`` s1 (epoch 1) (JSONDecodeError: ...)``: the first sample of the log that cannot be
    read, and why (the data frame's error does not say which sample it was)."""
    from inspect_ai.log import read_eval_log_sample, read_eval_log_sample_summaries

    which = ""
    try:
        for summary in read_eval_log_sample_summaries(name):
            try:
                read_eval_log_sample(name, summary.id, summary.epoch)
            except Exception as inner:
                which, exc = f" {summary.id} (epoch {summary.epoch})", inner
                break
    except Exception as inner:  # not even the list of samples reads
        exc = inner
    return f"{which} ({_reason(exc)})"


def _reason(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:160]


LOG_SUFFIXES = (".eval", ".json")
"""The names of Inspect's log files."""


def _local_extras(folder: str, listed: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """What Inspect's listing of a local folder leaves out without a word: the ``.eval`` files
    reached through a symbolic link (read like the others), and the log names that are no
    file to read (a broken or looping link, a pipe, a device, a folder), with the reason."""
    import os
    import stat

    from longform_evals.log_store import local_form

    seen = {os.path.realpath(local_form(n)) for n in listed}
    linked: list[str] = []
    odd: list[tuple[str, str]] = []
    for root, dirs, files in os.walk(folder):
        for name in sorted(files + dirs):
            if not name.endswith(LOG_SUFFIXES):
                continue
            path = os.path.join(root, name)
            try:
                mode = os.stat(path).st_mode
            except OSError as exc:
                what = "looping" if exc.errno == errno.ELOOP else "broken"
                odd.append((path, f"unreadable log ({what} symbolic link: {exc.strerror})"))
                continue
            if not stat.S_ISREG(mode):
                kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                odd.append((path, f"unreadable log ({kind})"))
            elif (
                os.path.islink(path)
                and name.endswith(".eval")
                and os.path.realpath(path) not in seen
            ):
                seen.add(os.path.realpath(path))
                linked.append(path)
    return linked, odd


def _readable_logs(names: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The logs whose header Inspect can read, and the others with the reason (a truncated,
    empty or garbage file beside good logs is skipped and reported, not a crash)."""
    from inspect_ai.log import read_eval_log

    readable: list[str] = []
    unreadable: list[tuple[str, str]] = []
    for name in names:
        try:
            read_eval_log(name, header_only=True)
        except Exception as exc:  # any failure to read is a reason to skip
            unreadable.append((name, f"unreadable log ({_reason(exc)})"))
        else:
            readable.append(name)
    return readable, unreadable


def experiment(
    task: str, metadata: Mapping[str, Any], args: Mapping[str, Any], config: Mapping[str, Any]
) -> tuple[str, str]:
    """The run's experiment: a label naming the task, the arguments that differ from the
    task's defaults (a file by its name) and the samples it was cut to, and the identity of
    its data (a digest, or a dataset and revision). A plan's run and an `inspect eval` of the
    same experiment get the same pair, so they share a column; a file edited between runs does
    not."""
    factory = TASK_CARDS[task].factory
    defaults = {n: p.default for n, p in inspect.signature(factory).parameters.items()}
    paths = set(path_names(factory))
    shown = []
    for name in sorted(args):
        value = args[name]
        if name in defaults and _same(value, defaults[name]):
            continue
        if name in paths and isinstance(value, str):
            value = PurePath(value).name
        shown.append(f"{name}={_plain(value)}")
    plan = metadata.get(PLAN_METADATA) or {}
    plan = plan if isinstance(plan, dict) else {}
    limit = plan.get("limit") if plan.get("limit") is not None else config.get("limit")
    ids = plan.get("samples") if plan.get("samples") is not None else config.get("sample_id")
    if ids is not None:
        shown.append(f"samples={','.join(map(str, ids)) if isinstance(ids, list) else ids}")
    if limit is not None:
        shown.append(f"limit={_plain(limit)}")
    source = metadata.get(DATA_SOURCE_KEY) or {}
    data = source.get("sha256") or "@".join(
        str(source[k]) for k in ("dataset", "revision", "split") if source.get(k)
    )
    return task + (f"[{','.join(shown)}]" if shown else ""), str(data)


def _same(value: Any, default: Any) -> bool:
    """Whether a logged argument is its default (a log may hold 512.0 for 512)."""
    if isinstance(value, float) and isinstance(default, int) and not isinstance(default, bool):
        return value == default
    return (type(value) is type(default) and value == default) or value is default


def _plain(value: Any) -> Any:
    """5 for 5.0, a list as `a,b`."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return ",".join(map(str, value))
    return value


def bound_judge(task: str, args: Mapping[str, Any], roles: Mapping[str, Any]) -> str | None:
    """The judge actually bound for a task run with ``args``, read from the log's model roles
    (None: the evaluated model judges, or nobody does)."""
    if not TASK_CARDS[task].judged(args):
        return None  # a grader bound to an unjudged run (a plan binds it to all) judges nothing
    grader = (roles.get("grader") or {}).get("model")
    return str(grader) if grader else None


def judge_quality(task: str, judge: str | None, mode: str | None) -> str:
    """The judge's measured quality, from its packaged calibration file."""
    kind = TASK_CARDS[task].calibration_kind
    if kind is None:
        return "no judge"
    if judge is None:
        return "self-judged: not measured"
    if kind == "coherence_probe" and mode not in (None, "probe"):
        return f"{mode} mode: not calibrated"
    found = read_calibration(kind, judge)
    if found is None:
        return f"no calibration file for {judge}"
    data, _ = found
    if kind == "raters":
        test = data.get("figures", {}).get("test", {})
        return (
            f"raters on held-out answers: strict BACC {test.get('strict_bacc_exact', math.nan):.0f}"
            f", permissive BACC {test.get('permissive_bacc_partial', math.nan):.0f}"
        )
    if kind == "faithfulness":
        sentence = data.get("figures", {}).get("sentence", {})
        return (
            f"sentence AUC {sentence.get('test_auc', math.nan):.2f}, "
            f"BACC {sentence.get('test_bacc', math.nan):.0f} (held-out planted set)"
        )
    probes = list(data.get("probes", {}).values())
    enabled = [p for p in probes if p.get("enabled")]
    return (
        f"probe judge: {len(enabled)} of {len(probes)} probes calibrated to a "
        f"{100 * data.get('target_false_flag_rate', math.nan):.0f} % false-flag rate"
    )


def judge_card_text(task: str, names: Sequence[str | None], recorded: bool) -> str:
    """The judge card column of a row: the headline of the first card its samples name,
    `no card` for a judged row without one, `no judge` for a task nobody judges.

    Args:
        task: The row's task.
        names: The card names the samples' scores give, in order (None: no card).
        recorded: Whether any score of the row said which card applies (older logs do not).
    """
    card = TASK_CARDS[task]
    if not recorded and card.judged_by == "nobody":
        return NO_JUDGE
    name = names[0] if names else None
    if name is None:
        return NO_CARD
    try:
        return card_headline(name)
    except FileNotFoundError:
        return f"card {name} not packaged"
    except ValueError:
        return f"card {name} unreadable"


def _card_names(facts: Sequence[Mapping[str, Any]]) -> tuple[list[str | None], bool]:
    """The distinct card names the samples give, in order, and whether any sample gave one."""
    seen: list[str | None] = []
    recorded = False
    for f in facts:
        for name in f.get("judge_cards") or []:
            recorded = True
            name = None if name is None else str(name)
            if name not in seen:
                seen.append(name)
    return seen, recorded


def card_notes(rows: Sequence[Row]) -> list[str]:
    """A note per row whose samples name different judge cards (the column shows the first)."""
    return [
        f"{r.variant} / {r.model}: samples name different judge cards "
        f"({', '.join(n or NO_CARD for n in r.judge_card_names)}); the first is shown"
        for r in rows
        if len(r.judge_card_names) > 1
    ]


def _value(scores: Mapping[str, Any], metric: Headline) -> float:
    raw: Any = (scores.get(metric.scorer) or {}).get(metric.key)
    try:
        x = float(raw)
    except (TypeError, ValueError):
        return math.nan
    return x * metric.scale


def build_leaderboard(log_dir: str | Path) -> Leaderboard:
    """Read every log in ``log_dir`` (and its subfolders; a local folder or a store URL such
    as ``s3://bucket/runs``) into a leaderboard.

    Raises:
        LeaderboardError: When the folder cannot be reached or has no logs, or none of them is
            of this package.
    """
    folder = resolve(str(log_dir))
    try:
        check_readable(folder)
    except StoreError as e:
        raise LeaderboardError(str(e)) from e
    evals, samples, unreadable = _frames(folder)
    skipped: list[tuple[str, str]] = list(unreadable)
    chosen: dict[tuple[str, Experiment, str | None, str], Any] = {}
    for _, ev in evals.sort_values("created").iterrows():
        task = str(ev["task_name"]).split("/")[-1]
        if task not in HEADLINES:
            skipped.append((str(ev["log"]), f"task {task!r} is not a longform-evals task"))
            continue
        metadata = _loads(ev.get("metadata")) or {}
        args = _loads(ev.get("task_args_json")) or {
            k.removeprefix("task_arg_"): ev[k]
            for k in evals.columns
            if k.startswith("task_arg_") and _present(ev[k])
        }
        roles = _loads(ev.get("model_roles")) or {}
        judge = bound_judge(task, args, roles)
        config = {k: _loads(ev.get(k)) for k in ("limit", "sample_id")}
        label, data = experiment(task, metadata, args, config)
        settings = run_settings(ev, roles if judge else {})
        exp = Experiment(label, data, settings.column)
        key = (str(ev["model"]), exp, judge, settings.row_digest)
        earlier = chosen.get(key)
        if earlier is not None:
            if earlier["status"] == "success" and ev["status"] != "success":
                skipped.append((str(ev["log"]), f"{ev['status']} run of a finished cell"))
                continue
            skipped.append((str(earlier["log"]), "superseded by a later run of the same cell"))
        chosen[key] = {
            **ev.to_dict(),
            "task": task,
            "args": args,
            "judge": judge,
            "metadata": metadata,
            "settings": settings,
            **config,
        }
    if not chosen:
        raise LeaderboardError(
            f"none of the {len(evals)} logs in {folder} is a longform-evals task"
        )
    for ev in chosen.values():
        if ev["status"] != "success":
            skipped.append((str(ev["log"]), f"{ev['status']}: shown as a partial row"))
    names, order = _variant_names(chosen)
    models = _model_names(chosen)
    rows = [
        _row(
            (models[key], names[key[1]], key[2]),
            ev,
            samples[samples["eval_id"] == ev["eval_id"]],
        )
        for key, ev in sorted(chosen.items(), key=lambda item: order[item[0][1]])
    ]
    metrics = _shown_metrics(rows)
    notes = _rank(rows, metrics) + card_notes(rows)
    return Leaderboard(rows, metrics, skipped, notes)


def _plan_of(ev: Mapping[str, Any]) -> dict[str, Any]:
    plan = ev["metadata"].get(PLAN_METADATA)
    return plan if isinstance(plan, dict) else {}


def _variant_names(
    chosen: Mapping[tuple[str, Experiment, str | None, str], Mapping[str, Any]],
) -> tuple[dict[Experiment, str], dict[Experiment, tuple[Any, ...]]]:
    """Each experiment's column name and its place on the page.

    The name is the plan's name of the variant where a plan ran it, else its label; where two
    experiments would share a name, each is named by what differs: its arguments, its data's
    digest, its task version, epochs or judge settings. The plans' columns come first, in each
    plan's order, then the others in the order they were first run."""
    names: dict[Experiment, str] = {}
    order: dict[Experiment, tuple[Any, ...]] = {}
    plans: list[str] = []
    for (_, exp, _, _), ev in chosen.items():  # in creation order
        plan = _plan_of(ev)
        if plan.get("variant") and exp not in names:
            names[exp] = str(plan["variant"])
        if plan.get("plan") and plan["plan"] not in plans:
            plans.append(str(plan["plan"]))
        position = plan.get("position")
        place = (
            (0, plans.index(str(plan["plan"])), int(position))
            if plan.get("plan") and isinstance(position, int)
            else (1, len(order), 0)
        )
        order[exp] = min(order.get(exp, place), place)
    for exp in order:
        names.setdefault(exp, exp.label)
    clashes: dict[str, list[Experiment]] = {}
    for exp, name in names.items():
        clashes.setdefault(name, []).append(exp)
    for name, group in clashes.items():
        if len(group) > 1:
            for exp, told in zip(group, what_differs(group), strict=True):
                names[exp] = f"{name} ({told})"
    return names, order


def _model_names(
    chosen: Mapping[tuple[str, Experiment, str | None, str], Mapping[str, Any]],
) -> dict[tuple[str, Experiment, str | None, str], str]:
    """Each row's model name: the model, and where one model has two rows in one column (run
    with other settings), the settings that differ."""
    groups: dict[tuple[str, Experiment, str | None], list[tuple[Any, ...]]] = {}
    for key in chosen:
        groups.setdefault(key[:3], []).append(key)
    names: dict[tuple[str, Experiment, str | None, str], str] = {}
    for (model, _, _), keys in groups.items():
        if len(keys) == 1:
            names[keys[0]] = model
            continue
        shown = differing([chosen[k]["settings"].row for k in keys])
        for k, told in zip(keys, shown, strict=True):
            names[k] = f"{model} ({told})"
    return names


def _row(key: tuple[str, str, str | None], ev: Mapping[str, Any], frame: Any) -> Row:
    model, variant, grader = key
    task = ev["task"]
    # Without a grader role a graded task is judged by the evaluated model itself; the
    # meta-evaluation task's evaluated model is the judge under study.
    card = TASK_CARDS[task]
    judged = card.judged(ev["args"])
    facts = [(f"{r['id']}#{r['epoch']}", _loads(r["facts"]) or {}) for _, r in frame.iterrows()]
    # The judges the scorers recorded win over the role: a scorer given `model=` judges with
    # that model whatever the grader role holds.
    used = sorted({str(j) for _, f in facts for j in f.get("judges") or ()})
    actual = ", ".join(used) if used else grader
    self_judged = judged and card.graded and (model in used if used else grader in (None, model))
    judge = (actual or f"{model} (self)") if judged and card.graded else None
    if self_judged and used == [model]:
        judge = f"{model} (self)"
    if judged and card.judged_by == "evaluated":
        judge = actual or model
    modes = {str(f["mode"]) for _, f in facts if f.get("mode")}
    mode = next(iter(modes)) if len(modes) == 1 else (", ".join(sorted(modes)) or None)
    errors = [f for _, f in facts if f.get("error")]
    refused = sum(1 for f in errors if BUDGET_ERROR in str(f["error"]))
    parse = [
        float(f["scores"][s][k])
        for _, f in facts
        for s, k in PARSE_KEYS.items()
        if s in f.get("scores", {}) and _finite(f["scores"][s].get(k))
    ]
    by_reading = [
        score[READING_DECIDED]
        for _, f in facts
        for score in (f.get("scores") or {}).values()
        if _finite(score.get(READING_DECIDED))
    ]
    n = max(1, len(facts))
    started, completed = ev.get("started_at"), ev.get("completed_at")
    costs = _costs([f for _, f in facts], n)
    cards, recorded = _card_names([f for _, f in facts])
    row = Row(
        model=model,
        variant=variant,
        task=task,
        judge=judge,
        judge_mode=mode or ev["args"].get("judge_mode"),
        judge_quality=judge_quality(task, used[0] if len(used) == 1 else grader or model, mode),
        self_judged=self_judged,
        judge_card=judge_card_text(task, cards, recorded),
        judge_card_names=cards,
        log=str(ev["log"]),
        status=str(ev["status"]),
        samples=len(facts) - len(errors),
        planned=_planned(ev),
        errors=len(errors),
        budget_refused=refused,
        parse_failure_rate=sum(parse) / len(parse) if parse else 0.0,
        reading_decided=round(sum(by_reading)),
        mode_note=next((str(f["mode_note"]) for _, f in facts if f.get("mode_note")), None),
        input_tokens=costs["input_tokens"],
        output_tokens=costs["output_tokens"],
        cache_read_tokens=costs["cache_read_tokens"],
        judge_tokens=costs["judge_tokens"],
        calls=costs["calls"],
        judge_calls=costs["judge_calls"],
        steps=_steps([f.get("steps") or {} for _, f in facts], n),
        wall_seconds=_seconds(started, completed),
        identity=_identity(ev),
    )
    _add_metrics(row, facts, _results(str(ev["log"])))
    return row


def _identity(ev: Mapping[str, Any]) -> RunIdentity:
    plan = _plan_of(ev)
    source = ev["metadata"].get(DATA_SOURCE_KEY)
    data = dict(source) if isinstance(source, dict) else {"dataset": str(ev.get("dataset_name"))}
    data["items"] = _planned(ev)
    versions = _loads(ev.get("packages")) or {}
    return RunIdentity(
        plan=str(plan.get("plan") or AD_HOC),
        plan_variant=str(plan["variant"]) if plan.get("variant") else None,
        started=str(ev.get("started_at") or ""),
        completed=str(ev.get("completed_at") or ""),
        versions={str(k): str(v) for k, v in versions.items()},
        task_version=str(ev.get("task_version") or ""),
        data=data,
    )


def _add_metrics(
    row: Row, facts: list[tuple[str, dict[str, Any]]], results: Mapping[tuple[str, str], Any]
) -> None:
    """The row's headline metrics: the log's own result, with an interval over the samples'
    values for a per-sample metric, and each metric's count of samples without a value."""
    scored = any(f.get("scores") for _, f in facts)
    for index, metric in enumerate(HEADLINES[row.task]):
        if not any(metric.scorer in f.get("scores", {}) for _, f in facts):
            if not scored and facts and index == 0:  # every sample failed or was refused:
                row.missing[metric.label] = len(facts)  # counted, not dropped
            continue
        values = {k: _value(f.get("scores", {}), metric) for k, f in facts if not f.get("error")}
        readable = {k: v for k, v in values.items() if not math.isnan(v)}
        row.missing[metric.label] = len(facts) - len(readable)
        # The number is the log's own result (Inspect computed it once, from the per-sample
        # values); a per-sample metric's interval and rank come from those values.
        point = results.get((metric.scorer, metric.key), {}).get(metric.result, math.nan)
        if metric.per_sample and readable:
            row.per_sample[metric.label] = readable
            spread = bootstrap_interval(list(readable.values()))
            # a log without results (a run that ended in an error) keeps its samples' mean
            value = spread.value if math.isnan(point) else point * metric.scale
            row.metrics[metric.label] = replace(spread, value=value)
        elif not metric.per_sample and not math.isnan(point):
            scaled = point * metric.scale
            row.metrics[metric.label] = Interval(scaled, math.nan, math.nan, n=len(readable))


def _results(log: str) -> dict[tuple[str, str], dict[str, float]]:
    """The log's results by (scorer, value key) (`scorers.results.result_values`)."""
    from inspect_ai.log import read_eval_log

    header = read_eval_log(log, header_only=True)
    return result_values(header.results.scores) if header.results else {}


def _planned(ev: Mapping[str, Any]) -> int:
    """Samples the run set out to score: the dataset, or the part `--limit` / `--sample-id`
    chose, times the epochs (a limited run is a complete run of fewer samples)."""
    samples = int(ev.get("dataset_samples") or 0)
    limit, ids = ev.get("limit"), ev.get("sample_id")
    if isinstance(ids, list):
        samples = min(samples, len(ids)) if samples else len(ids)
    elif ids is not None:
        samples = 1
    if isinstance(limit, int | float) and not isinstance(limit, bool):
        samples = min(samples, int(limit))
    elif isinstance(limit, list) and len(limit) == 2:
        samples = min(samples, int(limit[1]) - int(limit[0]))
    return samples * int(ev.get("epochs") or 1)


def _costs(facts: Sequence[Mapping[str, Any]], n: int) -> dict[str, float]:
    """Tokens and calls per sample of the strategy and of the judge.

    From the per-step tally where a sample has one: it counts every call the strategy made,
    including calls answered from Inspect's cache (a resumed run reads its earlier calls back,
    and their cost was paid once all the same). Older logs fall back to Inspect's usage,
    which leaves cached calls out, with the grader role's usage as the judge's.
    """
    totals = dict.fromkeys(("input", "output", "cache_read", "judge", "calls", "judge_calls"), 0.0)
    for f in facts:
        steps = f.get("steps") or {}
        if steps:
            for kind, c in steps.items():
                tokens = float(c.get("input_tokens", 0)) + float(c.get("output_tokens", 0))
                if kind == "judge":
                    totals["judge"] += tokens
                    totals["judge_calls"] += float(c.get("calls", 0))
                    continue
                totals["input"] += float(c.get("input_tokens", 0))
                totals["output"] += float(c.get("output_tokens", 0))
                totals["cache_read"] += float(c.get("input_tokens_cache_read", 0))
                totals["calls"] += float(c.get("calls", 0))
        elif "usage" in f:
            totals["input"] += f["usage"]["input"]
            totals["output"] += f["usage"]["output"]
            totals["cache_read"] += f["usage"]["cache_read"]
            totals["judge"] += f.get("grader_tokens", 0)
            totals["calls"] += f.get("calls", 0)
    return {
        "input_tokens": totals["input"] / n,
        "output_tokens": totals["output"] / n,
        "cache_read_tokens": totals["cache_read"] / n,
        "judge_tokens": totals["judge"] / n,
        "calls": totals["calls"] / n,
        "judge_calls": totals["judge_calls"] / n,
    }


def _finite(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _steps(per_sample: Sequence[Mapping[str, Any]], n: int) -> dict[str, dict[str, float]]:
    """Per step kind, calls and tokens per sample (summed over samples, then divided)."""
    total: dict[str, dict[str, float]] = {}
    for steps in per_sample:
        for kind, counts in steps.items():
            mine = total.setdefault(kind, {})
            for name, value in counts.items():
                mine[name] = mine.get(name, 0.0) + float(value)
    return {kind: {k: v / n for k, v in counts.items()} for kind, counts in total.items()}


def _seconds(started: Any, completed: Any) -> float:
    from datetime import datetime

    try:
        return (
            datetime.fromisoformat(str(completed)) - datetime.fromisoformat(str(started))
        ).total_seconds()
    except ValueError:
        return math.nan


def _shown_metrics(rows: Sequence[Row]) -> dict[str, list[Headline]]:
    shown: dict[str, list[Headline]] = {}
    for row in rows:
        present = [m for m in HEADLINES[row.task] if m.label in row.metrics]
        known = shown.setdefault(row.variant, [])
        known.extend(m for m in present if m not in known)
    return shown


def rank_group(row: Row) -> str:
    """The rows a row is ranked against are those of its variant with this same key (its
    judge): every surface that groups ranked rows asks here."""
    return str(row.judge)


def _rank(rows: Sequence[Row], metrics: Mapping[str, list[Headline]]) -> list[str]:
    """Rank rows per variant and metric among rows with the same judge; say where not."""
    notes = []
    for variant, shown in metrics.items():
        group = [r for r in rows if r.variant == variant]
        judges = sorted({rank_group(r) for r in group})
        if len(judges) > 1:
            notes.append(
                f"{variant}: rows judged by different judges ({', '.join(judges)}) are ranked "
                "only against rows with the same judge"
            )
        for judge in judges:
            same = [r for r in group if rank_group(r) == judge]
            for metric in shown:
                ranks = shared_ranks(
                    [r.per_sample.get(metric.label, {}) for r in same],
                    higher_is_better=metric.higher_is_better,
                )
                for r, rank in zip(same, ranks, strict=True):
                    if rank:
                        r.ranks[metric.label] = rank
    return notes
