"""Calibrated decision thresholds of the LLM raters (LR-1 / LR-2), stored per grader model.

A small grader reads the permissive prompt as a request to agree: it says a plain "Yes" to
nearly every answer, and by the paper's rule (exact when either rater says so) every answer
then counts as an exact match. With a calibration file the raters are read differently: the
strict rater's P(YES) (first answer token, from log-probabilities) decides *exact* against a
threshold, and the permissive rater's P(Yes) - which covers both "Yes" and "Yes, partially" -
decides *at least partial* against another. The thresholds are chosen on the calibration split
of the project's planted answers (`data/raters/planted_answers.jsonl`) by
`benchmarks/llm_raters.py --calibrate`, never on data that is reported.

Graders without a file are read by their verdict words, as the paper does; scores say which
rule was used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from longform_evals.judges.calibration_files import load_calibration_file

RaterRule = Literal["auto", "verdicts", "calibrated"]
RATER_RULES: tuple[str, ...] = ("auto", "verdicts", "calibrated")


@dataclass(frozen=True)
class RaterCalibration:
    """What a rater calibration file says about one grader model.

    Attributes:
        source: where it came from (`packaged raters_<model>.json`, a path, or `uncalibrated`).
        exact_threshold: strict rater P(YES) at or above which an answer is an exact match.
        partial_threshold: permissive rater P(Yes) at or above which an answer is at least a
            partial match.
    """

    source: str
    exact_threshold: float = 0.5
    partial_threshold: float = 0.5

    @property
    def calibrated(self) -> bool:
        return self.source != "uncalibrated"


def _parse(data: object, source: str) -> RaterCalibration:
    try:
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        exact, partial = float(data["exact_threshold"]), float(data["partial_threshold"])
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(
            f"rater calibration {source} is malformed ({err!r}); it needs exact_threshold and "
            "partial_threshold"
        ) from err
    for name, value in (("exact_threshold", exact), ("partial_threshold", partial)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"rater calibration {source}: {name} must be in [0, 1], got {value}")
    return RaterCalibration(source=source, exact_threshold=exact, partial_threshold=partial)


@lru_cache(maxsize=16)
def load_rater_calibration(model: str, path: str | None = None) -> RaterCalibration:
    """The rater calibration of a grader model (`gguf/qwen2.5-coder-1.5b`), or of a file;
    errors as :func:`~longform_evals.judges.calibration_files.load_calibration_file`."""
    uncalibrated = RaterCalibration(source="uncalibrated")
    return load_calibration_file("raters", model, path, _parse, uncalibrated)


def check_rule(rule: str) -> str:
    """``rule``, if it is one of :data:`RATER_RULES`.

    Raises:
        ValueError: naming the unknown rule and the known ones.
    """
    if rule not in RATER_RULES:
        raise ValueError(f"unknown rater rule {rule!r}; use one of {', '.join(RATER_RULES)}")
    return rule


def resolve_rule(rule: str, calibration: RaterCalibration, grader: str) -> bool:
    """Whether to read P(yes) against thresholds (True) or verdict words (False).

    Raises:
        ValueError: for an unknown rule, or `calibrated` with a grader that has no calibration.
    """
    check_rule(rule)
    if rule == "calibrated" and not calibration.calibrated:
        raise ValueError(
            f"rule=calibrated needs a rater calibration for grader {grader}: none is packaged; "
            "make one with benchmarks/llm_raters.py --calibrate and pass it as calibration=FILE"
        )
    return rule == "calibrated" or (rule == "auto" and calibration.calibrated)
