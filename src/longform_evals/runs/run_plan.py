# inspect-evals-lint: ignore-file[IEBP001] -- opens the plan's models to pass to eval_set
"""Run a plan: every model on every task variant, one fixed judge, shared by any number of
processes on any number of machines that use the same log folder.

Each cell (a model on a task variant) is an Inspect eval set in its own folder below the plan's
log folder (:mod:`longform_evals.runs.cells`); a process claims a cell before running it
(:mod:`longform_evals.runs.claims`), so started N times on one plan, local or in an object
store, the processes share the cells and none is run twice. Running the same plan again finds
the logs there: finished cells are left alone, and a cell whose run was killed is retried by
Inspect, which takes the samples that finished from the log in the store (they are written
there as they finish, ``log_buffer``) and, through the strategies' model cache, the calls a
half-done sample had made on this machine. Each task carries its plan's variant name and judge
in its metadata, which is what the leaderboard groups and checks by.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import eval_set, task_with
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model
from inspect_ai.solver import chain

from longform_evals.log_keys import BUDGET_ERROR, PLAN_METADATA
from longform_evals.models import spend_gate
from longform_evals.runs import budget
from longform_evals.runs.budget import GrantBook, Ledger, budget_gate
from longform_evals.runs.cells import (
    BuiltVariant,
    Cell,
    cell_logs,
    plan_cells,
    plan_logs,
    variant_content,
)
from longform_evals.runs.claims import DEFAULT_TIMEOUT, Claim, Claims, Heartbeat
from longform_evals.runs.estimate import Cost, variant_cost
from longform_evals.runs.plan_file import Plan, Variant
from longform_evals.tasks.cards import TASK_CARDS

POLL_SECONDS = 3.0
"""How often a process waiting for cells that others hold looks again: a listing and a small
read per such cell, and the cell's end seen within seconds."""

__all__ = [
    "BuiltVariant",
    "PlanRun",
    "build_plan",
    "build_variant",
    "estimate_lines",
    "open_models",
    "refused_samples",
    "run_plan",
    "unfinished_cells",
    "variant_args",
]


def variant_args(plan: Plan, variant: Variant) -> dict[str, Any]:
    """The task arguments of ``variant``, with the plan's judge mode where the task takes one."""
    args = dict(variant.args)
    if plan.judge.mode is not None and TASK_CARDS[variant.task].judge_mode:
        args.setdefault("judge_mode", plan.judge.mode)
    return args


def build_variant(plan: Plan, variant: Variant) -> BuiltVariant:
    """Make the Inspect task of one variant, its dataset cut to the plan's samples and limit.

    Raises:
        ValueError: When the task cannot be made (a missing data file, a bad argument) or a
            sample the plan names is not in its dataset; the message names the variant.
    """
    args = variant_args(plan, variant)
    try:
        task = TASK_CARDS[variant.task].factory(**args)
    except Exception as e:
        raise ValueError(f"plan {plan.path}: task {variant.label}: {e}") from e
    samples = list(task.dataset)
    if variant.samples is not None:
        by_id = {str(s.id): s for s in samples}
        missing = [i for i in variant.samples if i not in by_id]
        if missing:
            raise ValueError(
                f"plan {plan.path}: task {variant.label}: no sample {', '.join(missing)}; "
                f"its samples: {', '.join(list(by_id)[:10])}{'...' if len(by_id) > 10 else ''}"
            )
        samples = [by_id[i] for i in variant.samples]
    limit = variant.limit or plan.limit
    if limit is not None:
        samples = samples[:limit]
    _check_settings(plan, variant, args, samples)
    judge = plan.judge.model or "self"
    metadata = {
        **(task.metadata or {}),
        PLAN_METADATA: {
            "plan": plan.name,
            "variant": variant.label,
            # the leaderboard's column order, and the samples it names the experiment by
            "position": plan.variants.index(variant),
            "samples": list(variant.samples) if variant.samples is not None else None,
            "limit": limit,
            "task": variant.task,
            "args": {k: str(v) for k, v in args.items()},
            "judge": judge if TASK_CARDS[variant.task].graded else None,
            "judge_mode": plan.judge.mode,
            "task_version": str(task.version),
            "content": variant_content(variant, samples),
        },
    }
    built = task_with(
        task,
        dataset=MemoryDataset(samples, name=task.dataset.name),
        solver=chain(budget_gate(), task.solver),
        metadata=metadata,
    )
    return BuiltVariant(variant, built, len(samples))


def _check_settings(plan: Plan, variant: Variant, args: dict[str, Any], samples: list[Any]) -> None:
    """Refuse a variant whose arguments no sample of one kind (dataset and kind of document)
    can run with, such as pages whose largest size is under the dataset's smallest: the
    estimate of one sample of each kind resolves every setting as the run would.

    Raises:
        ValueError: naming the variant and the setting.
    """
    kinds: dict[tuple[str, str], Any] = {}
    for s in samples:
        meta = s.metadata or {}
        kinds.setdefault((str(meta.get("dataset")), str(meta.get("doc_kind"))), s)
    try:
        variant_cost(variant.task, args, list(kinds.values()))
    except ValueError as e:
        raise ValueError(f"plan {plan.path}: task {variant.label}: {e}") from e


def build_plan(plan: Plan) -> list[BuiltVariant]:
    return [build_variant(plan, v) for v in plan.variants]


def open_models(plan: Plan) -> tuple[list[Model], dict[str, str | Model]]:
    """The plan's models and its judge role, built before anything runs, so that a model
    refusing its arguments stops the run with its message rather than mid-run.

    Raises:
        ValueError, TypeError: from a model provider refusing the plan's arguments.
    """
    roles: dict[str, str | Model] = {}
    if plan.judge.model is not None:
        roles["grader"] = get_model(plan.judge.model, **dict(plan.judge.args))
    return [get_model(m.name, **dict(m.args)) for m in plan.models], roles


def fixed_judge_notes(plan: Plan) -> list[str]:
    """A line for each task variant whose evaluated model is the judge under study
    (LongFormFact) when the plan fixes a judge: the grader role then judges every row, so
    each model's cell measures that one judge, and the models are never called."""
    if plan.judge.model is None:
        return []
    return [
        f"warning: task variant {v.label} measures its judge, and the plan's fixed judge "
        f"{plan.judge.model} judges every row: all {len(plan.models)} model cells measure "
        f"{plan.judge.model} (the models are not called); write `judge: self` in the plan to "
        "measure each model as a judge"
        for v in plan.variants
        if TASK_CARDS[v.task].judged_by == "evaluated"
    ]


def estimate_lines(plan: Plan, built: list[BuiltVariant]) -> list[str]:
    """The dry run's grid: one line per model x variant with its estimated calls and tokens."""
    lines = [
        "| model | task variant | samples | calls | input tokens | output tokens | judge calls "
        "| judge input tokens |",
        "|---|---|---|---|---|---|---|---|",
    ]
    total = Cost()
    for b in built:
        args = variant_args(plan, b.variant)
        by_judge: dict[str, Cost] = {}  # documents are counted once per judge, not per model
        for m in plan.models:
            judge = plan.judge.model or m.name
            if judge not in by_judge:
                cost = variant_cost(b.variant.task, args, list(b.task.dataset), judge)
                by_judge[judge] = cost.scaled(plan.epochs)
            cost = by_judge[judge]
            total += cost
            lines.append(
                f"| {m.name} | {b.variant.label} | {b.samples * plan.epochs} | "
                f"{cost.calls:,.0f} | {cost.input_tokens:,.0f} | {cost.output_tokens:,.0f} | "
                f"{cost.judge_calls:,.0f} | {cost.judge_input_tokens:,.0f} |"
            )
    lines.append(
        f"| all ({len(plan.models)} models x {len(built)} variants) | | | {total.calls:,.0f} | "
        f"{total.input_tokens:,.0f} | {total.output_tokens:,.0f} | {total.judge_calls:,.0f} | "
        f"{total.judge_input_tokens:,.0f} |"
    )
    judge = plan.judge.model or "each model judges itself"
    lines.append(f"\njudge (grader role): {judge}; mode: {plan.judge.mode or 'task default'}")
    lines.extend(fixed_judge_notes(plan))
    lines.append(f"log folder: {plan.log_dir}")
    return lines


@dataclass
class PlanRun:
    """What one ``longform run`` process did, and the state of the whole plan after it."""

    ran: dict[str, str] = field(default_factory=dict)
    """Cells this process ran (label -> outcome: success, error, cancelled)."""
    logs: list[EvalLog] = field(default_factory=list)
    """The headers of the plan's logs in the store (every cell's state is read from them)."""
    interrupted: bool = False
    """Stopped by Ctrl-C: what it did is in the store, the run is not complete."""


def _ledger(plan: Plan) -> Ledger:
    """The process's ledger of the plan's budget, its grants kept in the plan's store."""
    ledger = Ledger(plan.budget_tokens, plan.budget_money, plan.prices)
    if ledger.active:
        ledger.book = GrantBook(plan.log_dir, ledger.limit())
    return ledger


def _eval_options(plan: Plan, ledger: Ledger, eval_options: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {
        "epochs": plan.epochs,
        "metadata": {PLAN_METADATA: plan.name},
        # finished samples reach the store as they finish, so a resume anywhere reuses them
        "log_buffer": plan.log_buffer,
        **eval_options,
    }
    for key in ("max_connections", "max_samples"):
        value = getattr(plan, key)
        if value is not None:
            options[key] = value
    if ledger.active:
        # A sample refused by the budget errors; its cell runs on (refusing the rest) and
        # ends as an error log, which the next `longform run` retries, reusing what finished.
        options.setdefault("fail_on_error", True)
        options.setdefault("continue_on_fail", True)
        options.setdefault("retry_attempts", 0)
    return options


def _logged_success(cell: Cell) -> bool:
    """Whether the cell's folder holds a finished log (from a run before claims were kept)."""
    return any(log.status == "success" for log in cell_logs(cell))


@dataclass
class _Worker:
    """One process's share of a plan: which cells are finished, tried, or held elsewhere."""

    cells: list[Cell]
    claims: Claims
    finished: set[str] = field(default_factory=set)
    tried: set[str] = field(default_factory=set)

    def next_cell(self) -> tuple[Cell, Claim, str] | int:
        """The next cell this process claimed (with its claim and why it was free), or how
        many unfinished cells other processes hold (0: nothing is left for this process)."""
        held = 0
        for cell in self.cells:
            if cell.key in self.finished or cell.key in self.tried:
                continue
            found = self.claims.current(cell.key)
            current = found[1] if found is not None else None
            if (current is not None and current.released == "success") or (
                found is None and _logged_success(cell)
            ):
                self.finished.add(cell.key)
                continue
            claim, why = self.claims.try_claim(cell.key, found)
            if claim is None:
                held += 1
                continue
            self.tried.add(cell.key)
            return cell, claim, why
        return held


def _run_cell(
    cell: Cell, claim: Claim, claims: Claims, models: dict[str, Model], options: dict[str, Any]
) -> str:
    """Run one claimed cell as an eval set in its folder, heartbeat going; its outcome."""
    outcome = "cancelled"
    try:
        with Heartbeat(claims, claim):
            done, _ = eval_set(
                tasks=[cell.built.task],
                model=[models[cell.model.name]],
                log_dir=cell.folder,
                **options,
            )
        outcome = "success" if done else "error"
    finally:
        claims.release(claim, outcome)
    return outcome


def run_plan(
    plan: Plan,
    built: list[BuiltVariant],
    opened: tuple[list[Model], dict[str, str | Model]] | None = None,
    *,
    claim_timeout: float = DEFAULT_TIMEOUT,
    wait: bool = True,
    poll: float | None = None,
    say: Callable[[str], None] = lambda line: None,
    **eval_options: Any,
) -> PlanRun:
    """Run the cells of the plan this process can claim, one at a time, until every cell is
    finished or was tried here once (with `opened`: the models `open_models` built).

    With ``wait``, a process that finds the remaining cells held by others waits for them
    (polling every ``poll`` seconds), taking over a cell whose claim goes stale after
    ``claim_timeout`` seconds; without, it stops. ``say`` receives a line per step.
    """
    models, roles = opened or open_models(plan)
    by_name = {m.name: model for m, model in zip(plan.models, models, strict=True)}
    cells = plan_cells(plan, built)
    claims = Claims(plan.log_dir, claim_timeout)
    worker = _Worker(cells, claims)
    ledger = _ledger(plan)
    options = {**_eval_options(plan, ledger, eval_options), "model_roles": roles or None}
    interval = poll if poll is not None else min(POLL_SECONDS, max(0.1, claim_timeout / 4))
    run = PlanRun()
    budget.LEDGER = ledger  # what the budget's usage hook and sample gate read
    if ledger.active:
        spend_gate.install(ledger)
    try:
        while True:
            found = worker.next_cell()
            if isinstance(found, int):
                if found == 0:
                    break
                if not wait:
                    say(f"{found} cell(s) held by other processes; not waiting")
                    break
                time.sleep(interval)
                continue
            cell, claim, why = found
            say(f"running {cell.label} ({cell.key}; claim {claim.generation}: {why})")
            ledger.new_event_loop()
            run.ran[cell.label] = _run_cell(cell, claim, claims, by_name, options)
    finally:
        spend_gate.install(None)
        ledger.finish()
        budget.LEDGER = Ledger()
    run.logs = plan_logs(plan)
    return run


def unfinished_cells(plan: Plan, built: list[BuiltVariant], logs: list[EvalLog]) -> list[str]:
    """Every cell (task variant x model) of the plan without a successful log among ``logs``,
    as ``"<variant> / <model>: <status>"`` (``not started`` when it has no log at all).

    Inspect's eval set may report success for a run stopped by Ctrl-C; this reads the logs."""
    status: dict[tuple[str, str], str] = {}
    for log in logs:
        meta: Any = (log.eval.metadata or {}).get(PLAN_METADATA)
        variant = str(meta.get("variant")) if isinstance(meta, dict) else log.eval.task
        key = (variant, log.eval.model)
        if status.get(key) != "success":
            status[key] = log.status
    lines = []
    for b in built:
        for model in plan.models:
            found = status.get((b.variant.label, model.name), "not started")
            if found != "success":
                lines.append(f"{b.variant.label} / {model.name}: {found}")
    return lines


def refused_samples(logs: list[EvalLog]) -> int:
    """Samples of ``logs`` that the budget refused (from their errors; reads whole logs)."""
    from inspect_ai.log import read_eval_log

    count = 0
    for header in logs:
        if header.status == "success" or not header.location:
            continue
        log = read_eval_log(header.location)
        count += sum(
            1 for s in log.samples or [] if s.error is not None and BUDGET_ERROR in s.error.message
        )
    return count
