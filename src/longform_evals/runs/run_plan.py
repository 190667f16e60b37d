# inspect-evals-lint: ignore-file[IEBP001] -- opens the plan's models to pass to eval_set
"""Run a plan as one Inspect ``eval_set``: every model on every task variant, one fixed judge.

The eval set's log folder is the plan's ``log_dir``. Running the same plan again finds the
logs there: finished cells are left alone, and a cell whose run was killed is retried by
Inspect, which reuses the samples that finished and, through the strategies' model cache, the
calls a half-done sample had made. Each task carries its plan's variant name and judge in its
metadata, which is what the leaderboard groups and checks by.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_set, task_with
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import Model, get_model
from inspect_ai.solver import chain

from longform_evals.log_keys import PLAN_METADATA
from longform_evals.runs.budget import LEDGER, budget_gate, usage_cost
from longform_evals.runs.catalogue import TASKS
from longform_evals.runs.estimate import Cost, variant_cost
from longform_evals.runs.plan_file import Plan, Variant


@dataclass(frozen=True)
class BuiltVariant:
    """A plan's task variant as an Inspect task, with the samples it will run."""

    variant: Variant
    task: Task
    samples: int


def variant_args(plan: Plan, variant: Variant) -> dict[str, Any]:
    """The task arguments of ``variant``, with the plan's judge mode where the task takes one."""
    args = dict(variant.args)
    if plan.judge.mode is not None and TASKS[variant.task].judge_mode:
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
        task = TASKS[variant.task].factory(**args)
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
    judge = plan.judge.model or "self"
    metadata = {
        **(task.metadata or {}),
        PLAN_METADATA: {
            "plan": plan.name,
            "variant": variant.label,
            "task": variant.task,
            "args": {k: str(v) for k, v in args.items()},
            "judge": judge if TASKS[variant.task].graded else None,
            "judge_mode": plan.judge.mode,
        },
    }
    built = task_with(
        task,
        dataset=MemoryDataset(samples, name=task.dataset.name),
        solver=chain(budget_gate(), task.solver),
        metadata=metadata,
    )
    return BuiltVariant(variant, built, len(samples))


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
    lines.append(f"log folder: {plan.log_dir}")
    return lines


def spent_in(log_dir: Path, prices: Mapping[str, Any]) -> tuple[int, float]:
    """Tokens and money already spent by the logs in ``log_dir`` (for the budget)."""
    tokens, money = 0, 0.0
    if not log_dir.exists():
        return tokens, money
    for info in list_eval_logs(str(log_dir)):
        log = read_eval_log(info, header_only=True)
        for model, usage in (log.stats.model_usage or {}).items():
            tokens += usage.input_tokens + usage.output_tokens
            money += usage_cost(model, usage, prices) or 0.0
    return tokens, money


def run_plan(
    plan: Plan,
    built: list[BuiltVariant],
    opened: tuple[list[Model], dict[str, str | Model]] | None = None,
    **eval_options: Any,
) -> tuple[bool, list[EvalLog]]:
    """Run the plan's grid as one eval set (with `opened`: the models `open_models` built);
    True when every cell finished."""
    models, roles = opened or open_models(plan)
    LEDGER.max_tokens, LEDGER.max_money = plan.budget_tokens, plan.budget_money
    LEDGER.prices = plan.prices
    LEDGER.tokens, LEDGER.money = spent_in(plan.log_dir, plan.prices)
    options: dict[str, Any] = {
        "log_dir": str(plan.log_dir),
        "model": models,
        "model_roles": roles or None,
        "epochs": plan.epochs,
        "metadata": {PLAN_METADATA: plan.name},
        **eval_options,
    }
    if plan.max_connections is not None:
        options["max_connections"] = plan.max_connections
    if plan.max_samples is not None:
        options["max_samples"] = plan.max_samples
    if plan.max_tasks is not None:
        options["max_tasks"] = plan.max_tasks
    if LEDGER.active:
        # A sample refused by the budget errors; its cell runs on (refusing the rest) and
        # ends as an error log, which the next `longform run` retries, reusing what finished.
        options.setdefault("fail_on_error", True)
        options.setdefault("continue_on_fail", True)
        options.setdefault("retry_attempts", 0)
    try:
        return eval_set(tasks=[b.task for b in built], **options)
    finally:
        LEDGER.max_tokens = LEDGER.max_money = None


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


def logs_in(log_dir: Path) -> list[EvalLog]:
    """The headers of the readable logs in ``log_dir`` (none when it does not exist)."""
    if not log_dir.is_dir():
        return []
    found = []
    for info in list_eval_logs(str(log_dir)):
        try:
            found.append(read_eval_log(info, header_only=True))
        except Exception:  # an unreadable log finished nothing
            continue
    return found
