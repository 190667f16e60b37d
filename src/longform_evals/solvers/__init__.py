"""Summarization and reading strategies as Inspect solvers: the ones a user puts in a Task.

Families, one subpackage each (helpers they share are in ``common/``):

* ``summarize/``: :func:`full_context` (one call, truncated to the window),
  :func:`hierarchical_merge` (summarize chunks, then merge level by level),
  :func:`incremental_update` (one running summary, updated chunk by chunk),
  :func:`remove_artifacts` (clean "in this segment"-style phrases) and :func:`given_summary`
  (no call: score the summary in ``metadata["summary"]``);
* ``nexus/``: :func:`nexus_sum` (NexusSum) and its stages :func:`nexus_preprocess`,
  :func:`nexus_summarize`, :func:`nexus_compress`;
* ``reading/`` (question answering, docs/reading.md): :func:`gist_memory`,
  :func:`read_agent_parallel`, :func:`read_agent_sequential` (ReadAgent), :func:`full_text`,
  :func:`truncated`, :func:`bm25_pages`, :func:`embedding_pages`, and :func:`reading` to pick
  one by name from :data:`READING_STRATEGIES`;
* ``multidoc/``: :func:`multidoc_summary`, whose :data:`MULTIDOC_STRATEGIES` include the
  focus and order-calibration strategies against positional bias.

:func:`summary_solver` builds a summarization strategy by name (:data:`SUMMARY_STRATEGIES`)
from the shared :class:`SummarySettings`, for tasks that take ``-T strategy=...``; every
family's strategies are entries (:class:`Strategy`) of one registry, which
:func:`register_strategy` extends and :func:`strategy_names` lists
(``solvers/strategies.py``). Reading strategies take :class:`ReadingSettings` first, the
multi-document ones :class:`MultidocSettings`.

Each summarizer reads ``metadata["document"]`` (else the input), writes the summary to
``state.output`` and ``metadata["summary"]``, and logs every intermediate summary in
``metadata["summary_trace"]`` with counters in ``metadata["summary_stats"]``.
See docs/strategies.md. Code inside the package imports from the defining modules.
"""

from longform_evals.solvers.multidoc.summary import (
    MULTIDOC_STRATEGIES,
    multidoc_summary,
)
from longform_evals.solvers.nexus.pipeline import nexus_sum
from longform_evals.solvers.nexus.stages import nexus_compress, nexus_preprocess, nexus_summarize
from longform_evals.solvers.reading.read_agent import (
    gist_memory,
    read_agent_parallel,
    read_agent_sequential,
)
from longform_evals.solvers.reading.retrieval import (
    bm25_pages,
    embedding_pages,
    full_text,
    truncated,
)
from longform_evals.solvers.reading.strategies import READING_STRATEGIES, reading
from longform_evals.solvers.settings import MultidocSettings, ReadingSettings, SummarySettings
from longform_evals.solvers.strategies import (
    SUMMARY_STRATEGIES,
    Strategy,
    register_strategy,
    strategy_names,
    summary_solver,
)
from longform_evals.solvers.summarize.artifacts import remove_artifacts
from longform_evals.solvers.summarize.full_context import full_context
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.solvers.summarize.hierarchical import hierarchical_merge
from longform_evals.solvers.summarize.incremental import incremental_update

__all__ = [
    "MULTIDOC_STRATEGIES",
    "READING_STRATEGIES",
    "SUMMARY_STRATEGIES",
    "MultidocSettings",
    "ReadingSettings",
    "Strategy",
    "SummarySettings",
    "bm25_pages",
    "embedding_pages",
    "full_context",
    "full_text",
    "gist_memory",
    "given_summary",
    "hierarchical_merge",
    "incremental_update",
    "multidoc_summary",
    "nexus_compress",
    "nexus_preprocess",
    "nexus_sum",
    "nexus_summarize",
    "read_agent_parallel",
    "read_agent_sequential",
    "reading",
    "register_strategy",
    "remove_artifacts",
    "strategy_names",
    "summary_solver",
    "truncated",
]
