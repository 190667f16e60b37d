"""The dry run's estimate is the run: every task x strategy x judge mode runs on its snapshot
fixture with a scripted model, and the calls the log tallies per step kind are compared with
`runs.estimate.variant_cost` on the same samples (issue 50).

What the estimate cannot know is what the model writes. The scripted summarizer here writes a
summary of the length the estimate assumes (`tasks/costs.generated_summary_tokens`), the
scripted reader ends every page at its largest size (the estimate's page), and the scripted
judge answers readably the first time; then a step kind's count is determined and must be
equal. The kinds that depend on the text or the answers are bounded (:data:`BOUNDS`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from helpers import OFFLINE_RULES, has_module
from longform_evals.judges.coherence.judges import coherence_modes
from longform_evals.models.step_usage import step_usage
from longform_evals.runs.estimate import variant_cost
from longform_evals.solvers.reading.memory import clear_reading_cache
from longform_evals.tasks.cards import TASK_CARDS
from longform_evals.tasks.costs import assumed_sentences, generated_summary_tokens

JUDGE = "scripted/estimate"

Bound = Callable[[float, float], bool]

BOUNDS: dict[str, tuple[str, Bound]] = {
    "pagination": (
        "page breaks: the scripted reader takes the largest page, and the estimate counts "
        "tokens where the reader counts words: within one page or a quarter",
        lambda made, est: abs(made - est) <= max(1.0, 0.25 * est),
    ),
    "gist": (
        "a gist per page (as pagination)",
        lambda made, est: abs(made - est) <= max(1.0, 0.25 * est),
    ),
    "lookup": (
        "a sequential reader stops when it has read enough: at most",
        lambda made, est: made <= est,
    ),
    "preprocess": (
        "NexusSum rewrites only the chunks with dialogue: at most",
        lambda made, est: made <= est,
    ),
    "compression": (
        "rounds run while the summary is longer than asked (at most 10 rounds)",
        lambda made, est: made <= 10 * max(est, 1.0),
    ),
    "artifact_removal": (
        "only a summary with narration artifacts is cleaned: at most one per summary",
        lambda made, est: made <= max(est, 1.0),
    ),
}
"""Step kinds whose count depends on the text or the model's answers: why, and the bound."""

STRATEGY_BOUNDS: dict[tuple[str, str], tuple[str, Bound]] = {
    ("nexus_sum", "judge"): (
        "NexusSum's summary is its chunk summaries joined, each asked for its stretch's share "
        "of the words and compressed when the whole is over the target: the sentences judged "
        "are at most the estimate's (a summary of the target length)",
        lambda made, est: made <= est,
    ),
}
"""Where one strategy's count of a step kind depends on what the model writes."""

NOT_RUN = {
    ("booookscore", "fitted"): "needs a packaged fitted judge (the embedded model's), which a "
    "scripted judge is not; the fitted entry's cost is tested in tests/runs/test_estimate.py",
}


_WORDS_PER_SENTENCE = 9


def _summary(sentences: int) -> str:
    """A summary of ``sentences`` plain sentences (no suspect piece: no extra readings)."""
    said = (f"Ines Calloway counts {i + 2} frozen trees in the orchard." for i in range(sentences))
    return " ".join(said)


def _batched_answer(text: str, _: int) -> str:
    listed = text.rsplit("<sentences>", 1)[1].split("</sentences>", 1)[0]
    numbers = re.findall(r"(?m)^(\d+)\. ", listed)
    return json.dumps([{"sentence": int(n), "confusion": False} for n in numbers])


def _within_the_asked_words(sentences: int) -> Callable[[str, int], str]:
    """A summarizer that writes ``sentences`` sentences (the estimate's summary), or fewer
    where the prompt asks for at most fewer words (a stretch of a text summarized on its
    own, as NexusSum's chunk summaries are, whose concatenation is the summary)."""

    def write(text: str, _: int) -> str:
        asked = re.findall(r"at most (\d+) words", text)
        room = min((int(n) for n in asked), default=10**9) // _WORDS_PER_SENTENCE
        return _summary(max(1, min(sentences, room)))

    return write


def _rules(summary: str | Callable[[str, int], str]) -> list[dict[str, Any]]:
    rules = [dict(r) for r in OFFLINE_RULES if "default" not in r]
    for rule in rules:  # the reader ends each page at the last break point offered
        if "Break point: <number>" in str(rule.get("pattern")):
            rule["pattern"] = r"(?s)Passage:.*<(\d+)>.*Break point: <number>"
    return [
        {"pattern": "numbered sentences to check", "response": _batched_answer},
        *rules,
        {"default": summary},
    ]


def _cases() -> list[Any]:
    cases = []
    for name, card in TASK_CARDS.items():
        modes: list[dict[str, Any]] = [{}]
        if name == "booookscore":
            modes = [{"judge_mode": m} for m in coherence_modes()]
        elif card.family == "summary":
            modes = [{"coherence": False}, {"coherence": True}]
        for strategy in card.strategies or (None,):
            for mode in modes:
                label = "-".join([name, str(strategy), *(str(v) for v in mode.values())])
                reason = NOT_RUN.get((name, str(mode.get("judge_mode"))))
                marks = [pytest.mark.skip(reason=reason)] if reason else []
                cases.append(pytest.param(name, strategy, mode, id=label, marks=marks))
    return cases


@pytest.mark.parametrize(("task", "strategy", "mode"), _cases())
def test_the_estimate_counts_the_calls_the_run_makes(
    tmp_path: Path, task: str, strategy: str | None, mode: dict[str, Any]
) -> None:
    card = TASK_CARDS[task]
    fixture = card.snapshot
    assert fixture is not None
    missing = [m for m in fixture.needs if not has_module(m)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    args = {**fixture.args(tmp_path), **mode}
    if strategy is not None:
        args["strategy"] = strategy
    completed = card.completed(args)
    writes = card.family in ("summary", "multidoc")
    sentences = assumed_sentences(generated_summary_tokens(completed)) if writes else 1
    clear_reading_cache()
    model = get_model(JUDGE, rules=_rules(_within_the_asked_words(sentences)), memoize=False)
    task_obj = card.factory(**args)
    chosen: dict[str, Any] = (
        {"sample_id": fixture.sample_id} if fixture.sample_id else {"limit": fixture.limit or 1}
    )
    [log] = inspect_eval(
        task_obj,
        model=model,
        model_roles={"grader": model},
        log_dir=str(tmp_path / "logs"),
        display="none",
        **chosen,
    )
    assert log.status == "success", log.error
    assert log.samples
    made: dict[str, float] = {}
    for sample in log.samples:
        for kind, row in step_usage(sample).items():
            made[kind] = made.get(kind, 0) + row["calls"]
    run_ids = {str(s.id) for s in log.samples}
    samples = [s for s in task_obj.dataset if str(s.id) in run_ids]
    estimate = variant_cost(task, args, samples, JUDGE).steps
    for kind in sorted(set(made) | set(estimate)):
        m, e = made.get(kind, 0.0), estimate.get(kind, 0.0)
        bound = STRATEGY_BOUNDS.get((str(strategy), kind)) or BOUNDS.get(kind)
        if bound is not None:
            why, holds = bound
            assert holds(m, e), f"{kind}: made {m}, estimated {e} ({why})"
        else:
            assert m == pytest.approx(e), f"{kind}: made {m}, estimated {e}"
