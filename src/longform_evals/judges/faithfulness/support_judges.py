"""The faithfulness support judges, registered by name (`judges/registry.py`): the judges
the `faithfulness` scorer asks.

A new judge is a module with a class that has the
:class:`~longform_evals.judges.faithfulness.support.SupportJudge` shape and takes
:class:`~longform_evals.judges.faithfulness.support.JudgeOptions`, plus one entry registered
here (or, from outside the package, with `registry.register_judge`).
"""

from __future__ import annotations

from functools import partial

from longform_evals.judges.faithfulness.llm import LLMSupportJudge
from longform_evals.judges.faithfulness.minicheck import MINICHECK_MODELS, MiniCheckSupportJudge
from longform_evals.judges.faithfulness.support import JudgeOptions, SupportJudge
from longform_evals.judges.registry import (
    JudgeEntry,
    JudgeWork,
    judge_entry,
    judge_names,
    register_judge,
)

__all__ = ["check_judge", "support_judge"]

_CARD_SETTINGS = ("judge", "threshold", "chunking", "retrieval", "prompts_dir")


def _asked(work: JudgeWork) -> float:
    """One call per statement and unit read."""
    return float(work.items * work.units)


register_judge(
    JudgeEntry(
        "faithfulness",
        "llm",
        LLMSupportJudge,
        JudgeOptions,
        _asked,
        calibration_kind="faithfulness",
        card_settings=_CARD_SETTINGS,
    )
)
"""`llm`: the `grader` model's yes/no answers (`judges/faithfulness/llm.py`)."""
for _name in MINICHECK_MODELS:
    register_judge(
        JudgeEntry(
            "faithfulness",
            _name,
            partial(MiniCheckSupportJudge, _name),
            JudgeOptions,
            lambda work: 0.0,  # a local classifier: no model call
            steps=(),
            card_settings=_CARD_SETTINGS,
        )
    )
"""`minicheck-*`: the MiniCheck classifiers and Bespoke-MiniCheck-7B (`minicheck.py`)."""


def check_judge(name: str) -> str:
    """``name`` if it names a registered faithfulness judge.

    Raises:
        ValueError: naming the unknown judge and the known ones.
    """
    if name not in judge_names("faithfulness"):
        known = ", ".join(judge_names("faithfulness"))
        raise ValueError(f"unknown faithfulness judge {name!r}; available: {known}")
    return name


def support_judge(name: str, options: JudgeOptions | None = None) -> SupportJudge:
    """The support judge ``name`` names, built with ``options`` (default options when None).

    Raises:
        ValueError: for an unknown judge name or an option it rejects (an unknown prompt).
    """
    built: SupportJudge = judge_entry("faithfulness", check_judge(name)).run(
        options or JudgeOptions()
    )
    return built
