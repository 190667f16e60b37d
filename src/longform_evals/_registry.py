"""Entry point for Inspect: importing this module registers the package's tasks, scorers, solvers
and model providers.

Inspect only logs a warning when this import fails, so it is kept light (heavy dependencies
are imported lazily inside the registered factories) and is covered by a test.
"""

from longform_evals.judges.health import register_judge_health
from longform_evals.models.providers import gguf, lmeval, replay, scripted
from longform_evals.progress import register_plain_progress
from longform_evals.scorers.bertscore import bertscore
from longform_evals.scorers.booookscore import booookscore as booookscore_scorer
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.scorers.length_control import length_control
from longform_evals.scorers.limited import limited
from longform_evals.scorers.llm_raters import llm_raters
from longform_evals.scorers.qa_accuracy import choice_accuracy
from longform_evals.scorers.reading_stats import reading_stats
from longform_evals.scorers.rescoring import register_log_names
from longform_evals.scorers.rouge import rouge
from longform_evals.scorers.summary_stats import summary_statistics
from longform_evals.solvers import (
    bm25_pages,
    embedding_pages,
    full_context,
    full_text,
    gist_memory,
    hierarchical_merge,
    incremental_update,
    multidoc_summary,
    nexus_compress,
    nexus_preprocess,
    nexus_sum,
    nexus_summarize,
    read_agent_parallel,
    read_agent_sequential,
    remove_artifacts,
    truncated,
)
from longform_evals.tasks.booookscore import booookscore
from longform_evals.tasks.hello import hello_longform
from longform_evals.tasks.judge_agreement import judge_agreement
from longform_evals.tasks.longformfact import longformfact
from longform_evals.tasks.narrative import booksum, squality
from longform_evals.tasks.positional_bias import positional_bias
from longform_evals.tasks.reading import narrativeqa, qmsum, quality

PlainProgress = register_plain_progress()
"""Progress lines for `inspect eval` runs whose display shows none (docs/running.md)."""
JudgeHealth = register_judge_health()
"""At a run's end, a judge none of whose answers could be read (docs/judges.md)."""

__all__ = [
    "JudgeHealth",
    "PlainProgress",
    "bertscore",
    "bm25_pages",
    "booksum",
    "booookscore",
    "booookscore_scorer",
    "choice_accuracy",
    "embedding_pages",
    "faithfulness",
    "full_context",
    "full_text",
    "gguf",
    "gist_memory",
    "hello_longform",
    "hierarchical_merge",
    "incremental_update",
    "judge_agreement",
    "length_control",
    "limited",
    "llm_raters",
    "lmeval",
    "longformfact",
    "multidoc_summary",
    "narrativeqa",
    "nexus_compress",
    "nexus_preprocess",
    "nexus_sum",
    "nexus_summarize",
    "positional_bias",
    "qmsum",
    "quality",
    "read_agent_parallel",
    "read_agent_sequential",
    "reading_stats",
    "remove_artifacts",
    "replay",
    "rouge",
    "scripted",
    "squality",
    "summary_statistics",
    "truncated",
]

register_log_names(
    [
        bertscore,
        booookscore_scorer,
        choice_accuracy,
        faithfulness,
        length_control,
        limited,
        llm_raters,
        reading_stats,
        rouge,
        summary_statistics,
    ]
)
