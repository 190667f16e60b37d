"""Summarization strategies as Inspect solvers (BooookScore, Appendix A).

* :func:`full_context`: the whole document in one call, truncated to the window if needed;
* :func:`hierarchical_merge`: summarize chunks, then merge summaries level by level;
* :func:`incremental_update`: one running summary updated chunk by chunk, compressed when long;
* :func:`remove_artifacts`: clean "in this segment"-style phrases and front matter;
* :func:`given_summary`: no call, the summary in ``metadata["summary"]`` (scoring only);
* :func:`summary_solver`: a summarization strategy by name (:data:`SUMMARY_STRATEGIES`) with
  the shared :class:`SummarySettings`, for tasks that take ``-T strategy=...``;
* :func:`multidoc_summary`: multi-document strategies against positional bias;
* reading (question answering over long documents, docs/reading.md): :func:`gist_memory`,
  :func:`read_agent_parallel`, :func:`read_agent_sequential` (ReadAgent), :func:`full_text`,
  :func:`truncated`, :func:`bm25_pages`, :func:`embedding_pages`, and :func:`reading` to pick
  one by name;
* :func:`nexus_sum` (NexusSum: dialogue preprocessing, scene-chunk summaries, compression to a
  target length) and its stages :func:`nexus_preprocess`, :func:`nexus_summarize`,
  :func:`nexus_compress`.

Each reads ``metadata["document"]`` (else the input), writes the summary to ``state.output``
and ``metadata["summary"]``, and logs every intermediate summary in
``metadata["summary_trace"]`` with counters in ``metadata["summary_stats"]``.
See docs/strategies.md.
"""

from longform_evals.solvers.artifacts import clean_artifacts, has_artifacts, remove_artifacts
from longform_evals.solvers.full_context import full_context
from longform_evals.solvers.given import given_summary
from longform_evals.solvers.hierarchical import hierarchical_merge, join_summaries
from longform_evals.solvers.incremental import growth_target, incremental_update
from longform_evals.solvers.limits import (
    Candidate,
    choose_best,
    count_words,
    is_finished,
    retry_word_limit,
    summary_problems,
    word_limit,
)
from longform_evals.solvers.multidoc import (
    MULTIDOC_STRATEGIES,
    MultidocStrategy,
    calibration_orders,
    join_documents,
    multidoc_summary,
)
from longform_evals.solvers.nexus_stages import nexus_compress, nexus_preprocess, nexus_summarize
from longform_evals.solvers.nexus_sum import nexus_sum
from longform_evals.solvers.packing import (
    chunk_summary_tokens,
    group_overflows,
    pack_merge_groups,
    trim_prior_context,
)
from longform_evals.solvers.pagination import PAGE_LIMITS, page_limits
from longform_evals.solvers.read_agent import (
    gist_memory,
    read_agent_parallel,
    read_agent_sequential,
)
from longform_evals.solvers.reading import READING_STRATEGIES, reading
from longform_evals.solvers.reading_memory import clear_reading_cache
from longform_evals.solvers.recording import Outcome, SummaryRun, TraceEntry, document_of
from longform_evals.solvers.retrieval import bm25_pages, embedding_pages, full_text, truncated
from longform_evals.solvers.scenes import Scene, group_scenes, has_dialogue, split_scenes
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.strategies import (
    SUMMARY_STRATEGIES,
    check_strategy,
    strategy_options,
    summary_solver,
)
from longform_evals.solvers.truncation import Truncated, TruncationPolicy, truncate_to_budget

__all__ = [
    "MULTIDOC_STRATEGIES",
    "PAGE_LIMITS",
    "READING_STRATEGIES",
    "SUMMARY_STRATEGIES",
    "Candidate",
    "MultidocStrategy",
    "Outcome",
    "Scene",
    "SummaryRun",
    "SummarySettings",
    "TraceEntry",
    "Truncated",
    "TruncationPolicy",
    "bm25_pages",
    "calibration_orders",
    "check_strategy",
    "choose_best",
    "chunk_summary_tokens",
    "clean_artifacts",
    "clear_reading_cache",
    "count_words",
    "document_of",
    "embedding_pages",
    "full_context",
    "full_text",
    "gist_memory",
    "given_summary",
    "group_overflows",
    "group_scenes",
    "growth_target",
    "has_artifacts",
    "has_dialogue",
    "hierarchical_merge",
    "incremental_update",
    "is_finished",
    "join_documents",
    "join_summaries",
    "multidoc_summary",
    "nexus_compress",
    "nexus_preprocess",
    "nexus_sum",
    "nexus_summarize",
    "pack_merge_groups",
    "page_limits",
    "read_agent_parallel",
    "read_agent_sequential",
    "reading",
    "remove_artifacts",
    "retry_word_limit",
    "split_scenes",
    "strategy_options",
    "summary_problems",
    "summary_solver",
    "trim_prior_context",
    "truncate_to_budget",
    "truncated",
    "word_limit",
]
