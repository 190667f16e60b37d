"""A judged run killed by a real signal and retried keeps each sample's own output.

Inspect rebuilds a sample it recovers from its buffer after a crash with the output of the
last model call of the role its first call had. Judges that called the evaluated model under
no role of their own made that the judge's last answer ("Yes, partially" as a summary), and a
re-scoring of the log then judged the judge's text. Judges are now logged under their role.
The run and the retry are those of the benchmark's ``interrupted`` fault class.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest
from inspect_ai.model import get_model

from helpers import BENCHMARKS
from longform_evals.models.grader import grader_model

sys.path.insert(0, str(BENCHMARKS))
from fault_cases.interrupted import killed_and_retried


@pytest.mark.parametrize(
    ("sig", "judge", "bind"),
    [
        (signal.SIGKILL, "", False),
        (signal.SIGTERM, "", False),
        (signal.SIGKILL, "scripted/x", False),
    ],
    ids=["SIGKILL-unbound", "SIGTERM-unbound", "SIGKILL-named"],
)
def test_a_sample_recovered_after_a_signal_keeps_its_own_output(
    tmp_path: Path, sig: signal.Signals, judge: str, bind: bool
) -> None:
    outputs = killed_and_retried(tmp_path, sig, judge=judge, bind=bind)
    assert outputs == {"s0": "The summary of s0.", "s1": "The summary of s1."}


def test_a_judge_falling_back_to_the_evaluated_model_is_logged_under_its_role() -> None:
    evaluated = get_model("scripted/x")
    assert grader_model(evaluated).role == "grader"
    assert grader_model(evaluated, "verifier").role == "verifier"
    assert evaluated.role is None  # the evaluated model itself is left as it was
