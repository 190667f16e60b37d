"""A task card: everything the rest of the package needs to know about one task, said once.

Each task module declares the card of each of its ``@task`` functions beside it, and
`tasks/cards.py` collects them into one table. `longform run` (the plan check and the cost
estimate), the leaderboard (headline columns, who judges, the judge's calibration) and the
lm-eval adapter read that table instead of keeping their own lists of tasks.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from inspect_ai import Task
from inspect_ai.log import HeadlineMetric

from longform_evals.solvers.strategies import StrategyFamily, strategy_entry, strategy_names

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample

    from longform_evals.data.sources import Published
    from longform_evals.tasks.costs import Cost
    from longform_evals.tasks.snapshot_fixtures import SnapshotFixture

Family = Literal["summary", "reading", "multidoc", "judge"]
"""What a task asks of the model: summarize a document, answer questions on one, summarize
several documents, or judge given summaries (the model under evaluation is the judge)."""

JudgedBy = Literal["grader", "evaluated", "nobody"]
"""Who judges a task's outputs: the ``grader`` role (the evaluated model itself when no grader
is bound), the evaluated model because it is the judge under study, or nobody."""


@dataclass(frozen=True)
class Headline:
    """A headline metric: one result of a key of one scorer's value, as the log records it."""

    scorer: str
    key: str
    label: str
    higher_is_better: bool = True
    scale: float = 1.0
    result: str = "point"
    """Which of the key's results (`scorers.results.result_values`): ``point`` (its mean,
    accuracy or count; the interval is a bootstrap over the per-sample values), or a metric's
    own result such as ``bacc_avg`` (no per-sample values: no interval, no rank)."""

    @property
    def per_sample(self) -> bool:
        return self.result == "point"

    def inspect_headline(self) -> HeadlineMetric:
        """Where Inspect's results hold it, as a task's `headline_metric` (what Inspect shows
        while the task runs and lists a log by): the value's entry, or the scorer's own entry
        for the value named after its scorer (`scorers/scorer_table.py`); its first metric
        (the mean or accuracy) for ``point``."""
        metric = None if self.per_sample else self.result
        return HeadlineMetric(scorer=self.scorer, score=self.key, metric=metric)


def always(_: Mapping[str, Any]) -> bool:
    return True


def with_coherence(args: Mapping[str, Any]) -> bool:
    """Judged only when the task's ``coherence`` argument turns BooookScore on."""
    return str(args.get("coherence", False)).strip().lower() in ("true", "1")


CostFunction = Callable[[Mapping[str, Any], "Sample", int, "str | None"], "Cost"]
"""(task arguments, sample, questions on the sample's document, judge) -> estimated cost."""


@dataclass(frozen=True)
class TaskCard:
    """One task of the suite."""

    name: str
    factory: Callable[..., Task]
    """The ``@task`` function."""
    family: Family
    headlines: tuple[Headline, ...]
    """The metrics its leaderboard columns show (a scorer not in a log is left out)."""
    cost: CostFunction
    """Calls and tokens of one sample, for ``longform run --dry-run``."""
    title: str = field(kw_only=True)
    """What the task measures, in a line (the descriptor, ``eval.yaml``)."""
    papers: tuple[str, ...] = field(kw_only=True)
    """The papers of its method and its data (`tasks/papers.py`)."""
    published: Published | None = field(default=None, kw_only=True)
    """The published copy it reads when given no data, at a pinned revision
    (`data/sources.py`); None: the data is bundled or required."""
    strategy_family: StrategyFamily | None = None
    """The family of the strategy registry (`solvers/strategies.py`) its ``strategy``
    argument names (None: it has no such argument)."""
    judged_by: JudgedBy = "nobody"
    judged_when: Callable[[Mapping[str, Any]], bool] = always
    """Given the task's arguments, whether its judge is called at all."""
    judge_mode: bool = False
    """Whether it takes ``judge_mode`` (a plan's ``judge.mode`` is passed there)."""
    calibration_kind: str | None = None
    """The kind of packaged calibration file that says how good its judge is
    (`judges/calibration/<kind>_<model>.json`)."""
    data_parameter: str = "data"
    """The parameter naming its data (``data`` or ``data_dir``)."""
    data_required: bool = False
    """No published copy is read when the data is omitted."""
    lm_eval: bool = True
    """Whether the lm-eval adapter offers it (``longform_<name>``)."""
    snapshot: SnapshotFixture | None = None
    """What it runs on for its metric snapshot (`checks/snapshots.py`; None: no snapshot)."""

    @property
    def strategies(self) -> tuple[str, ...] | None:
        """The names its ``strategy`` argument accepts now (a strategy registered later
        included; None: it has no such argument)."""
        if self.strategy_family is None:
            return None
        return strategy_names(self.strategy_family)

    def parameters(self) -> list[str]:
        """The task function's parameter names."""
        return [
            name
            for name, p in inspect.signature(self.factory).parameters.items()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        ]

    def completed(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments a call with ``args`` runs with, as far as they are known before it
        runs: each parameter not given takes the task function's default, and an option of
        the chosen strategy left unset takes that strategy's own default
        (:meth:`Strategy.defaults`). Parameters still unset (None) are left out."""
        params = inspect.signature(self.factory).parameters
        out = {n: p.default for n, p in params.items() if p.default is not p.empty}
        out.update(args)
        if self.strategy_family is not None and out.get("strategy") is not None:
            entry = strategy_entry(self.strategy_family, str(out["strategy"]))
            out.update({k: v for k, v in entry.defaults().items() if out.get(k) is None})
        return {k: v for k, v in out.items() if v is not None}

    def judged(self, args: Mapping[str, Any]) -> bool:
        """Whether a run with these arguments calls a judge."""
        return self.judged_by != "nobody" and self.judged_when(args)

    @property
    def graded(self) -> bool:
        """Whether the ``grader`` role judges it (when its arguments call a judge)."""
        return self.judged_by == "grader"
