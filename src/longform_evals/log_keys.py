"""Words that `longform run` writes into Inspect logs and the leaderboard reads back: one
definition for the writer and the reader, which sit side by side in the layers."""

PLAN_METADATA = "longform_plan"
"""Task metadata key written by ``longform run`` (plan, variant, judge)."""
BUDGET_ERROR = "longform budget exhausted"
"""Words in the error of a sample that ``longform run``'s budget did not start."""
