"""Tokens of every model call, tallied per step kind in the sample's store.

Inspect's own ``model_usage`` sums a sample's tokens per model; a multi-step strategy spends
them on steps of different kinds, and comparing strategies needs that split. Every call site
of the package passes its output to :func:`record_step_usage` with its kind, and the tally
goes to the sample's store (``inspect_ai.util.store()``) under :data:`STEP_USAGE_KEY`, so it
is logged as ``EvalSample.store["longform_step_usage"]``, a plain dict::

    {kind: {"calls": n, "calls_without_usage": m, "input_tokens": ...,
            "output_tokens": ..., "input_tokens_cache_read": ...}}

:func:`step_usage` reads it back from a logged sample. Judge calls made by scorers land in the
same store (Inspect logs the store after scoring), under ``judge``.

Step kinds (:data:`STEP_KINDS`):

* ``chunk_summary``: the summary of one chunk, scene group or document on its own
  (hierarchical merging's level 0, incremental updating's first chunk, NexusSum's
  summarizer, the multi-document strategies' per-document summaries);
* ``merge``: a summary of summaries (hierarchical levels above 0, multi-document merges and
  the calibration strategy's combination);
* ``update``: a running summary updated with the next chunk or document;
* ``compression``: a summary shortened (incremental updating, NexusSum's compressor);
* ``full_summary``: the whole (possibly truncated) text summarized in one call;
* ``preprocess``: NexusSum's dialogue-to-prose rewrite;
* ``rewrite``: NexusSum's final readability rewrite;
* ``artifact_removal``: a summary cleaned of narration artifacts;
* ``pagination``: ReadAgent's choice of a page break;
* ``gist``: ReadAgent's gist of one page;
* ``lookup``: ReadAgent's request for pages to read in full;
* ``answer``: the answer to a reading question;
* ``judge``: every judge call of a scorer (coherence, probes, faithfulness, MiniCheck,
  LLM raters).

Every try counts as a call, retries included. Token fields follow Inspect's ``ModelUsage``
(``input_tokens`` leaves out the cache reads where the provider reports them apart). A call
without usage counts with 0 tokens and in ``calls_without_usage``.

Work shared between samples (ReadAgent's pages and gists of a document, computed once) is
charged to the sample whose calls made it, so a sum over samples counts every call once.
"""

from __future__ import annotations

import contextvars
from typing import Any, Final, Literal, get_args

from inspect_ai.log import EvalSample
from inspect_ai.model import ModelOutput
from inspect_ai.util import Store, store

__all__ = [
    "ANSWER",
    "ARTIFACT_REMOVAL",
    "CHUNK_SUMMARY",
    "COMPRESSION",
    "FULL_SUMMARY",
    "GIST",
    "JUDGE",
    "LOOKUP",
    "MERGE",
    "PAGINATION",
    "PREPROCESS",
    "REWRITE",
    "STEP_KINDS",
    "STEP_USAGE_FIELDS",
    "STEP_USAGE_KEY",
    "UPDATE",
    "StepKind",
    "record_step_usage",
    "step_usage",
]

StepKind = Literal[
    "chunk_summary",
    "merge",
    "update",
    "compression",
    "full_summary",
    "preprocess",
    "rewrite",
    "artifact_removal",
    "pagination",
    "gist",
    "lookup",
    "answer",
    "judge",
]
STEP_KINDS: Final[tuple[StepKind, ...]] = get_args(StepKind)

CHUNK_SUMMARY: Final = "chunk_summary"
MERGE: Final = "merge"
UPDATE: Final = "update"
COMPRESSION: Final = "compression"
FULL_SUMMARY: Final = "full_summary"
PREPROCESS: Final = "preprocess"
REWRITE: Final = "rewrite"
ARTIFACT_REMOVAL: Final = "artifact_removal"
PAGINATION: Final = "pagination"
GIST: Final = "gist"
LOOKUP: Final = "lookup"
ANSWER: Final = "answer"
JUDGE: Final = "judge"

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
        ValueError: If ``kind`` is not one of :data:`STEP_KINDS`.
    """
    if kind not in STEP_KINDS:
        raise ValueError(f"unknown step kind {kind!r}; use one of {', '.join(STEP_KINDS)}")
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
