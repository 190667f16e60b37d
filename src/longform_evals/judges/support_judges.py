"""The faithfulness support judges by name: the one table the `faithfulness` scorer reads.

A new judge is a module with a class that has the :class:`~longform_evals.judges.support.
SupportJudge` shape and takes :class:`~longform_evals.judges.support.JudgeOptions`, plus one
line of :data:`SUPPORT_JUDGES`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from longform_evals.judges.faithfulness import LLMSupportJudge
from longform_evals.judges.minicheck import MINICHECK_MODELS, MiniCheckSupportJudge
from longform_evals.judges.support import JudgeOptions, SupportJudge

__all__ = ["SUPPORT_JUDGES", "check_judge", "support_judge"]

SUPPORT_JUDGES: dict[str, Callable[[JudgeOptions], SupportJudge]] = {
    "llm": LLMSupportJudge,
    **{name: partial(MiniCheckSupportJudge, name) for name in MINICHECK_MODELS},
}
"""Judge name -> how to build it from its options. `llm`: the `grader` model's yes/no answers
(`judges/faithfulness.py`); `minicheck-*`: the MiniCheck classifiers and Bespoke-MiniCheck-7B
(`judges/minicheck.py`)."""


def check_judge(name: str) -> str:
    """``name`` if it is a key of :data:`SUPPORT_JUDGES`.

    Raises:
        ValueError: naming the unknown judge and the known ones.
    """
    if name not in SUPPORT_JUDGES:
        known = ", ".join(SUPPORT_JUDGES)
        raise ValueError(f"unknown faithfulness judge {name!r}; available: {known}")
    return name


def support_judge(name: str, options: JudgeOptions | None = None) -> SupportJudge:
    """The support judge ``name`` names, built with ``options`` (default options when None).

    Raises:
        ValueError: for an unknown judge name or an option it rejects (an unknown prompt).
    """
    return SUPPORT_JUDGES[check_judge(name)](options or JudgeOptions())
