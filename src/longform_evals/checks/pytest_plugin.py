"""pytest plugin: run the suite's metric behaviour checks inside a user's own test suite.

Installed with the package (entry point `pytest11`), it adds three options and two fixtures:

* `--longform-judge MODEL`: judge the checks of LLM-judged metrics with this real model (the
  user's own judge, e.g. `openai/gpt-4o-mini`); default: the packaged recording, replayed.
* `--longform-record`: with `--longform-judge`, append every call the recording lacks to it.
* `--longform-recording FILE`: the replay file to read or write.
* fixture `longform_judge`: the :class:`~longform_evals.checks.judge.JudgeChoice` the options
  make.
* fixture `longform_checks`: a function `(only=None) -> list[Result]` running the shipped
  checks (of the metrics in `only`) with that judge; :func:`assert_checks_pass` fails a test
  with the table of results when any check fails.

For one pytest test per check, parametrize over :func:`check_params`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pytest

# pytest loads this plugin before any conftest: the package (and Inspect, which it imports) is
# imported only when a fixture or helper is used, so a user's conftest still sets the
# environment first.
if TYPE_CHECKING:
    from longform_evals.checks.judge import JudgeChoice
    from longform_evals.checks.spec import Check, Result


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("longform", "longform-evals metric behaviour checks")
    group.addoption(
        "--longform-judge",
        default=None,
        metavar="MODEL",
        help="judge the checks of LLM-judged metrics with this model (default: the recording)",
    )
    group.addoption(
        "--longform-record",
        action="store_true",
        help="with --longform-judge, append the calls the recording lacks to it",
    )
    group.addoption(
        "--longform-recording",
        default=None,
        metavar="FILE",
        help="the replay file to read or write (default: the packaged recording)",
    )


@pytest.fixture(scope="session")
def longform_judge(request: pytest.FixtureRequest) -> JudgeChoice:
    """The judge the `--longform-*` options choose."""
    from longform_evals.checks.judge import JudgeChoice

    config = request.config
    return JudgeChoice(
        live=config.getoption("--longform-judge"),
        record=bool(config.getoption("--longform-record")),
        recording=config.getoption("--longform-recording"),
    )


@pytest.fixture(scope="session")
def longform_checks(
    longform_judge: JudgeChoice,
) -> Callable[[Sequence[str] | None], list[Result]]:
    """Run the shipped checks (of the metrics named, or all) with the chosen judge."""
    from longform_evals.checks.runner import run_checks

    def run(only: Sequence[str] | None = None) -> list[Result]:
        return run_checks(only=only, judge=longform_judge)

    return run


def check_params(only: Sequence[str] | None = None) -> list[object]:
    """The shipped checks (of the metrics in `only`) as `pytest.param`s with their ids, for
    `@pytest.mark.parametrize("check", check_params())`; run each with :func:`run_check`."""
    from longform_evals.checks.runner import shipped_checks

    checks = [c for c in shipped_checks() if only is None or c.metric in only]
    return [pytest.param(check, id=check.id) for check in checks]


def run_check(check: Check, judge: JudgeChoice) -> Result:
    """Run one check with `judge`."""
    from longform_evals.checks.judge import using_judge

    with using_judge(judge):
        return check.run()


def assert_checks_pass(results: Sequence[Result]) -> None:
    """Fail the calling test, showing the results table, unless every check passed."""
    from longform_evals.checks.runner import format_table

    if not all(r.passed for r in results):
        pytest.fail("metric behaviour checks failed:\n" + format_table(results), pytrace=False)
