"""A sentence the summary repeats word for word: counted once (`once`, the default, as the
official package's `get_score` counts it) or at each occurrence (`each`); the same judge calls
either way, so the dry run's estimate is the run under both rules (issue 51)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from helpers import OFFLINE_RULES
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.text_check import check_text
from longform_evals.models.step_usage import step_usage
from longform_evals.runs.estimate import variant_cost
from longform_evals.scorers.booookscore import booookscore_values, counted_indices
from longform_evals.scorers.results import result_values
from longform_evals.tasks.arguments import TaskParameterError
from longform_evals.tasks.booookscore import booookscore as booookscore_task

RULES = ("once", "each")
LAMP, LOFT = "Ada lights the lamp.", "Piet sleeps in the loft."


def _verdict(i: int, sentence: str, confused: bool | None, types: tuple[str, ...] = ()) -> Any:
    """A read verdict (``confused`` None: unread)."""
    if confused is None:
        return SentenceVerdict(i, sentence)
    return SentenceVerdict(i, sentence, parsed=True, confused=confused, types=list(types))


def official_get_score(verdicts: list[SentenceVerdict]) -> float:
    """The official package on these verdicts, x100: `get_annot` writes each sentence's entry
    at each occurrence in order into a dict keyed by the sentence (a repeat overwrites it),
    `get_score` counts the entries with questions or types over all entries."""
    annotations: dict[str, SentenceVerdict] = {}
    for verdict in verdicts:
        annotations[verdict.sentence] = verdict
    confusing = sum(1 for v in annotations.values() if v.confused)
    return 100 * (1 - confusing / len(annotations))


_TEXTS = st.sampled_from(["A.", "B.", "C.", "D."])
_READ = st.lists(st.tuples(_TEXTS, st.booleans()), min_size=1, max_size=12)


def _read(pairs: list[tuple[str, bool]]) -> list[SentenceVerdict]:
    types = ("duplication",)
    return [_verdict(i, s, c, types if c else ()) for i, (s, c) in enumerate(pairs)]


@given(_READ)
def test_once_is_the_official_get_score(pairs: list[tuple[str, bool]]) -> None:
    verdicts = _read(pairs)
    values = booookscore_values(verdicts, 0, "once")
    assert values["booookscore"] == pytest.approx(official_get_score(verdicts))
    distinct = len({s for s, _ in pairs})
    assert values["sentences"] == len(pairs)  # every occurrence was judged
    flagged_last = {s: c for s, c in pairs}  # the last occurrence's verdict
    assert values["rate_duplication"] == pytest.approx(sum(flagged_last.values()) / distinct)


@given(_READ)
def test_each_counts_every_occurrence(pairs: list[tuple[str, bool]]) -> None:
    values = booookscore_values(_read(pairs), 0, "each")
    clean = sum(1 for _, c in pairs if not c)
    assert values["booookscore"] == pytest.approx(100 * clean / len(pairs))


@given(st.lists(st.booleans(), min_size=1, max_size=8))
def test_without_repeats_the_rules_agree(flags: list[bool]) -> None:
    verdicts = [
        _verdict(i, f"Sentence {i}.", c, ("salience",) if c else ()) for i, c in enumerate(flags)
    ]
    once, each = (booookscore_values(verdicts, 3, rule) for rule in RULES)  # type: ignore[arg-type]
    assert once == each


@given(_READ, st.integers(1, 5))
def test_repeating_a_clean_sentence_moves_only_each(
    pairs: list[tuple[str, bool]], copies: int
) -> None:
    base = [*pairs, ("E.", False)]
    more = [*base, *[("E.", False)] * copies]
    once = [booookscore_values(_read(p), 0, "once")["booookscore"] for p in (base, more)]
    each = [booookscore_values(_read(p), 0, "each")["booookscore"] for p in (base, more)]
    assert once[0] == once[1]
    assert each[1] >= each[0] and (each[1] > each[0]) == (each[0] < 100)


def test_once_takes_the_last_occurrences_verdict() -> None:
    flagged_first = [_verdict(0, LAMP, True), _verdict(1, LOFT, False), _verdict(2, LAMP, False)]
    assert counted_indices(flagged_first, "once") == [1, 2]
    assert booookscore_values(flagged_first, 3, "once")["booookscore"] == 100.0
    assert booookscore_values(flagged_first, 3, "each")["booookscore"] == pytest.approx(200 / 3)
    flagged_last = [_verdict(0, LAMP, False), _verdict(1, LOFT, False), _verdict(2, LAMP, True)]
    assert booookscore_values(flagged_last, 3, "once")["booookscore"] == 50.0
    assert official_get_score(flagged_first) == 100.0
    assert official_get_score(flagged_last) == 50.0


def test_once_takes_the_last_readable_verdict_and_an_unread_sentence_fails_once() -> None:
    verdicts = [
        _verdict(0, LAMP, True),
        _verdict(1, LAMP, None),  # unread: the earlier read verdict counts
        _verdict(2, LOFT, None),
        _verdict(3, LOFT, None),  # never read: one parse failure, its last occurrence
    ]
    assert counted_indices(verdicts, "once") == [0, 3]
    values = booookscore_values(verdicts, 4, "once")
    assert values["booookscore"] == 0.0 and values["parse_failure_rate"] == 0.5
    each = booookscore_values(verdicts, 4, "each")
    assert each["booookscore"] == 0.0 and each["parse_failure_rate"] == 0.75


def test_sentences_are_told_apart_as_the_official_file_keys_them() -> None:
    # sent_tokenize keeps a summary's leading whitespace on its first sentence, and a sentence's
    # line breaks: the official file keys those apart from the same words elsewhere.
    summary = f"\n\n{LAMP} {LOFT}\nShe waits. {LAMP} Piet sleeps in\nthe loft."
    check = check_text(summary, judged=True)
    assert check.sentences == [LAMP, LOFT, "She waits.", LAMP, LOFT]
    loft = "Piet sleeps in\nthe loft."
    assert check.sentence_keys == [f"\n\n{LAMP}", LOFT, "She waits.", LAMP, loft]
    verdicts = [_verdict(i, s, i == 0) for i, s in enumerate(check.sentences)]
    assert counted_indices(verdicts, "once") == [2, 3, 4]  # by the judged text
    assert counted_indices(verdicts, "once", check.sentence_keys) == [0, 1, 2, 3, 4]
    official = {k: v for k, v in zip(check.sentence_keys, verdicts, strict=True)}
    assert booookscore_values(verdicts, 5, "once", check.sentence_keys)["booookscore"] == (
        pytest.approx(100 * (1 - sum(v.confused for v in official.values()) / len(official)))
    )
    with pytest.raises(ValueError, match="2 sentence keys for 5 verdicts"):
        counted_indices(verdicts, "once", ["a", "b"])


def test_an_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown rule for repeated sentences 'twice'"):
        counted_indices([], "twice")  # type: ignore[arg-type]


# --- through the task ----------------------------------------------------------------------

SUMMARY = f"{LAMP} {LOFT} {LAMP}"


def _summaries(tmp_path: Path, summary: str = SUMMARY) -> str:
    path = tmp_path / "summaries.jsonl"
    path.write_text(json.dumps({"id": "s1", "summary": summary}) + "\n")
    return str(path)


def _batched_answer(prompt: str, _: int) -> str:
    listed = prompt.rsplit("<sentences>", 1)[1].split("</sentences>", 1)[0]
    numbers = re.findall(r"(?m)^(\d+)\. ", listed)
    return json.dumps([{"sentence": int(n), "confusion": False} for n in numbers])


def _run(tmp_path: Path, rules: list[dict[str, Any]], **args: Any) -> tuple[EvalLog, Any]:
    judge = get_model("scripted/repeats", rules=rules, memoize=False)
    task = booookscore_task(score_only=True, data=_summaries(tmp_path), **args)
    [log] = inspect_eval(
        task, model=judge, log_dir=str(tmp_path / "logs"), display="none", score_display=False
    )
    assert log.status == "success", log.error
    assert log.samples
    return log, task


@pytest.mark.parametrize("rule", RULES)
def test_the_task_counts_by_the_rule_and_the_log_says_which(tmp_path: Path, rule: str) -> None:
    # The numbered layout names each occurrence by its number: the third is flagged alone.
    judge = [
        {"pattern": "Sentence to judge: 3$", "response": "Questions: Again?\nTypes: duplication"},
        {"pattern": "Sentence to judge", "response": "No confusion."},
    ]
    log, _ = _run(
        tmp_path,
        judge,
        judge_mode="sentence",
        judge_layout="numbered",
        judge_readings=False,
        repeated_sentences=rule,
    )
    assert log.samples
    score = log.samples[0].scores["booookscore"]  # type: ignore[index]
    assert isinstance(score.value, dict) and score.metadata is not None
    expected = {"once": 50.0, "each": 200 / 3}[rule]
    assert score.value["booookscore"] == pytest.approx(expected)
    assert score.value["judge_calls"] == 3 and score.value["sentences"] == 3
    assert score.metadata["repeated_sentences"] == rule
    counted = [s["counted"] for s in score.metadata["sentences"]]
    assert counted == ([False, True, True] if rule == "once" else [True, True, True])
    assert score.metadata["counted_sentences"] == sum(counted)
    assert ("repeated sentence(s) counted once" in str(score.explanation)) == (rule == "once")
    assert log.results is not None  # the figure Inspect computed from the values
    mean = result_values(log.results.scores)[("booookscore", "booookscore")]["mean"]
    assert mean == pytest.approx(expected)


def test_the_task_refuses_an_unknown_rule(tmp_path: Path) -> None:
    with pytest.raises(TaskParameterError, match="repeated_sentences"):
        booookscore_task(score_only=True, data=_summaries(tmp_path), repeated_sentences="twice")


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("mode", ["sentence", "batched", "probe"])
def test_repeats_change_no_judge_call_so_the_estimate_is_the_run(
    tmp_path: Path, mode: str, rule: str
) -> None:
    # Every occurrence is judged under both rules (the quoted layout's repeated prompt too,
    # through the judge cache): the estimate, which counts sentences, is what the run made.
    judge = [{"pattern": "numbered sentences to check", "response": _batched_answer}]
    judge += [r for r in OFFLINE_RULES if "default" not in r]
    args = {"judge_mode": mode, "repeated_sentences": rule}
    log, task = _run(tmp_path, judge, **args)
    assert log.samples
    made = sum(step_usage(s)["judge"]["calls"] for s in log.samples)
    args |= {"score_only": True, "data": _summaries(tmp_path)}
    estimate = variant_cost("booookscore", args, list(task.dataset), "scripted/repeats").steps
    assert made == estimate["judge"] > 0
    value = log.samples[0].scores["booookscore"].value  # type: ignore[index]
    assert isinstance(value, dict) and not math.isnan(value["booookscore"])
