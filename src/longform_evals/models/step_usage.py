"""Tokens of every model call, tallied per step kind in the sample's store.

Inspect's own ``model_usage`` sums a sample's tokens per model; a multi-step strategy spends
them on steps of different kinds, and comparing strategies needs that split. Every call of the
package goes through :func:`longform_evals.models.calls.generate`, which passes its output to
:func:`record_step_usage` with its kind, and the tally goes to the sample's store
(``inspect_ai.util.store()``) under :data:`STEP_USAGE_KEY`, so it is logged as
``EvalSample.store["longform_step_usage"]``, a plain dict::

    {kind: {"calls": n, "calls_without_usage": m, "input_tokens": ...,
            "output_tokens": ..., "input_tokens_cache_read": ...}}

:func:`step_usage` reads it back from a logged sample. Judge calls made by scorers land in the
same store (Inspect logs the store after scoring), under ``judge``.

Step kinds are an open registry: the module that defines a strategy or a judge registers the
kinds of its calls with :func:`register_step_kind` (the summary steps in
``solvers/common/recording.py``, the reading steps in ``solvers/reading/``, ``judge`` in
``judges/steps.py``), and :func:`record_step_usage` refuses a kind nobody registered.
:func:`render_step_kinds` lists them for ``docs/running.md`` (a test keeps the two equal).

Every try counts as a call, retries included. Token fields follow Inspect's ``ModelUsage``
(``input_tokens`` leaves out the cache reads where the provider reports them apart). A call
without usage counts with 0 tokens and in ``calls_without_usage``.

Work shared between samples (ReadAgent's pages and gists of a document, computed once) is
charged to the sample whose calls made it, so a sum over samples counts every call once.
"""

from __future__ import annotations

import contextvars
import re
from typing import Any, Final, TypeAlias

from inspect_ai.log import EvalSample
from inspect_ai.model import ModelOutput
from inspect_ai.util import Store, store

__all__ = [
    "STEP_USAGE_FIELDS",
    "STEP_USAGE_KEY",
    "StepKind",
    "check_step_kind",
    "is_judgement",
    "record_step_usage",
    "register_step_kind",
    "render_step_kinds",
    "step_kinds",
    "step_usage",
]

StepKind: TypeAlias = str
"""A registered step kind's name (:func:`register_step_kind`)."""

_KINDS: dict[str, str] = {}
"""Every registered kind and its description, in order of registration."""
_JUDGEMENTS: set[str] = set()
"""The registered kinds whose calls are a judge's (:func:`is_judgement`)."""
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def register_step_kind(name: str, description: str, *, judgement: bool = False) -> StepKind:
    """Register the step kind ``name`` (its calls are tallied under it) and return the name.

    ``judgement`` marks the calls of a judge: the call path then checks that the judge's
    settings reached its provider and keeps its errors short
    (:mod:`~longform_evals.models.judge_requests`). Registering a kind again the same way does
    nothing, so a module may be imported twice.

    Raises:
        ValueError: If ``name`` is not a lowercase identifier, the description is empty, or
            ``name`` is registered with another description or judgement flag.
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"step kind {name!r}: use lowercase letters, digits and underscores")
    if not description.strip():
        raise ValueError(f"step kind {name!r}: the description is empty")
    new = name not in _KINDS
    known = _KINDS.setdefault(name, description)
    if known != description:
        raise ValueError(
            f"step kind {name!r} is already registered as {known!r}, not {description!r}"
        )
    if new and judgement:
        _JUDGEMENTS.add(name)
    elif not new and judgement != (name in _JUDGEMENTS):
        raise ValueError(f"step kind {name!r} is already registered with judgement={not judgement}")
    return name


def step_kinds() -> dict[str, str]:
    """Every registered kind and its description, in order of registration."""
    return dict(_KINDS)


def is_judgement(kind: StepKind) -> bool:
    """Whether ``kind`` was registered as a judge's calls (``judgement=True``)."""
    return kind in _JUDGEMENTS


def check_step_kind(kind: StepKind) -> None:
    """Raise ValueError, naming the registered kinds, unless ``kind`` is registered."""
    if kind not in _KINDS:
        known = ", ".join(_KINDS) or "none"
        raise ValueError(f"unknown step kind {kind!r}; register it first (registered: {known})")


def render_step_kinds() -> str:
    """The registered kinds as a Markdown list sorted by name (``docs/running.md``)."""
    return "\n".join(f"- `{name}`: {_KINDS[name]}" for name in sorted(_KINDS))


STEP_USAGE_KEY: Final = "longform_step_usage"
"""The store key of the tally."""

STEP_USAGE_FIELDS: Final = (
    "calls",
    "calls_without_usage",
    "input_tokens",
    "output_tokens",
    "input_tokens_cache_read",
)
"""The counts kept per kind."""

# Outside a sample, store() falls back to one process-wide Store (its ContextVar's default);
# a fresh context shows that default, so writes there can be told apart and skipped.
_NO_SAMPLE_STORE: Final[Store] = contextvars.Context().run(store)


def record_step_usage(kind: StepKind, output: ModelOutput) -> None:
    """Add one call of ``kind`` and its tokens to the current sample's tally.

    A no-op outside a sample (a judge or solver called directly). An output Inspect's cache
    replayed is recorded too, with the usage it was stored with: it is a call the strategy
    makes, and the tally should not depend on what an earlier run left in the cache.

    Raises:
        ValueError: If ``kind`` is not registered (:func:`register_step_kind`).
    """
    check_step_kind(kind)
    current = store()
    if current is _NO_SAMPLE_STORE:
        return
    tally: dict[str, dict[str, int]] = current.get(STEP_USAGE_KEY) or {}
    row = tally.setdefault(kind, dict.fromkeys(STEP_USAGE_FIELDS, 0))
    row["calls"] += 1
    usage = output.usage
    if usage is None:
        row["calls_without_usage"] += 1
    else:
        row["input_tokens"] += usage.input_tokens
        row["output_tokens"] += usage.output_tokens
        row["input_tokens_cache_read"] += usage.input_tokens_cache_read or 0
    current.set(STEP_USAGE_KEY, tally)


def step_usage(sample: EvalSample) -> dict[str, dict[str, int]]:
    """The tally of a logged sample: every field of :data:`STEP_USAGE_FIELDS` per kind (0 when
    absent); an empty dict for a sample without one (logged before the tally existed)."""
    raw: Any = (sample.store or {}).get(STEP_USAGE_KEY)
    if not isinstance(raw, dict):
        return {}
    result: dict[str, dict[str, int]] = {}
    for kind, row in raw.items():
        if isinstance(row, dict):
            result[str(kind)] = {f: _count(row.get(f)) for f in STEP_USAGE_FIELDS}
    return result


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
