"""Run the behaviour checks and render their results as a markdown table or JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

from longform_evals.checks.judge import JudgeChoice, using_judge
from longform_evals.checks.spec import Check, Result


def shipped_checks() -> list[Check]:
    """Every check the package ships, metric by metric."""
    # Imported here: the check modules pull in the scorers, rouge_score and the fixtures.
    from longform_evals.checks.booookscore_checks import BOOOOKSCORE_CHECKS
    from longform_evals.checks.faithfulness_checks import FAITHFULNESS_CHECKS
    from longform_evals.checks.metric_checks import METRIC_CHECKS
    from longform_evals.checks.rater_checks import RATER_CHECKS
    from longform_evals.checks.scorer_checks import SCORER_CHECKS
    from longform_evals.checks.support_checks import SUPPORT_CHECKS

    return [
        *SCORER_CHECKS,
        *SUPPORT_CHECKS,
        *METRIC_CHECKS,
        *BOOOOKSCORE_CHECKS,
        *FAITHFULNESS_CHECKS,
        *RATER_CHECKS,
    ]


def metrics(checks: Iterable[Check]) -> list[str]:
    """The metric names of `checks`, in first-seen order."""
    return list(dict.fromkeys(check.metric for check in checks))


def run_checks(
    only: Sequence[str] | None = None,
    checks: Sequence[Check] | None = None,
    judge: JudgeChoice | None = None,
) -> list[Result]:
    """Run `checks` (the shipped ones by default), or only those of the metrics in `only`;
    the judged ones with `judge` (default: the packaged recording, replayed).

    Raises:
        ValueError: If `only` names a metric no check covers (a typo would otherwise pass
            by running nothing).
    """
    chosen = list(shipped_checks() if checks is None else checks)
    if only is not None:
        known = metrics(chosen)
        unknown = [name for name in only if name not in known]
        if unknown:
            raise ValueError(f"no checks for metric(s) {unknown}; known: {', '.join(known)}")
        chosen = [check for check in chosen if check.metric in only]
    with using_judge(judge or JudgeChoice()):
        return [check.run() for check in chosen]


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def format_table(results: Sequence[Result]) -> str:
    """A markdown table: check, kind, expected, observed, pass/fail (with the failure's detail),
    and a closing line counting failures."""
    lines = [
        "| check | kind | expected | observed | result |",
        "|---|---|---|---|---|",
    ]
    for result in results:
        verdict = result.verdict
        if result.skipped is not None:
            verdict += f": {result.skipped}"
        elif result.known_gap is not None:
            verdict += f": {result.known_gap}"
        elif not result.passed and result.detail:
            verdict += f": {result.detail}"
        cells = (result.check.id, result.check.kind, result.check.expected, result.observed)
        lines.append("| " + " | ".join(map(_cell, (*cells, verdict))) + " |")
    lines.append("")
    summary = summary_line(results)
    lines.append(summary + ".")
    return "\n".join(lines) + "\n"


def counts(results: Sequence[Result]) -> dict[str, int]:
    """How many checks passed, failed, are known gaps of this judge, or were skipped for a
    missing optional extra (each check in exactly one)."""
    gaps = sum(r.known_gap is not None for r in results)
    skipped = sum(r.skipped is not None and r.known_gap is None for r in results)
    failed = sum(not r.passed for r in results)
    return {
        "checks": len(results),
        "passed": len(results) - failed - gaps - skipped,
        "failed": failed,
        "known_gaps": gaps,
        "skipped": skipped,
    }


def summary_line(results: Sequence[Result]) -> str:
    """`60 of 68 checks passed, 0 failed, 8 known gaps of this judge` (and skipped ones)."""
    n = counts(results)
    line = f"{n['passed']} of {n['checks']} checks passed, {n['failed']} failed"
    if n["known_gaps"]:
        line += f", {n['known_gaps']} known gap{'s' * (n['known_gaps'] != 1)} of this judge"
    if n["skipped"]:
        line += f", {n['skipped']} skipped for a missing optional extra"
    return line


def junit_xml(results: Sequence[Result]) -> str:
    """JUnit XML: one testsuite per metric, one testcase per check; a failed check has a
    `<failure>` (an `<error>` when its computation raised) with the observed value."""
    root = ET.Element("testsuites", name="longform check")
    root.set("tests", str(len(results)))
    root.set("failures", str(sum(not r.passed and r.error is None for r in results)))
    root.set("errors", str(sum(r.error is not None for r in results)))
    root.set("skipped", str(_skipped(results)))
    for metric in metrics(r.check for r in results):
        mine = [r for r in results if r.check.metric == metric]
        suite = ET.SubElement(root, "testsuite", name=metric, tests=str(len(mine)))
        suite.set("failures", str(sum(not r.passed and r.error is None for r in mine)))
        suite.set("errors", str(sum(r.error is not None for r in mine)))
        suite.set("skipped", str(_skipped(mine)))
        for result in mine:
            case = ET.SubElement(
                suite, "testcase", name=result.check.name, classname=f"checks.{metric}"
            )
            ET.SubElement(
                case, "system-out"
            ).text = (
                f"{result.check.kind}: expected {result.check.expected}; observed {result.observed}"
            )
            if result.skipped is not None:
                ET.SubElement(case, "skipped", message=result.skipped)
            elif result.known_gap is not None:
                ET.SubElement(case, "skipped", message=f"known gap: {result.known_gap}")
            elif result.error is not None:
                ET.SubElement(case, "error", message=result.error).text = result.error
            elif not result.passed:
                message = f"expected {result.check.expected}; observed {result.observed}"
                ET.SubElement(case, "failure", message=message).text = result.detail
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _skipped(results: Sequence[Result]) -> int:
    """JUnit's skipped count: known gaps (with their reason) and checks a missing extra kept
    from running."""
    return sum(r.known_gap is not None or r.skipped is not None for r in results)
