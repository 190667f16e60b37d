"""Inputs whose judging costs more than their size in characters says: floods of short
sentences, many source documents, one very long sentence, whitespace and punctuation floods.

Every case scores one summary with a scripted judge (no real model) through the tasks that
exist before and after the work limits: BooookScore score-only in `sentence`, `batched` and
`probe` mode, and LongFormFact. Over a limit the sample must be refused before any judge call:
counted `over_limit` with the limit named (``counted``), or refused at load with a clear line
(``error``). Under the limits it must be scored (``loaded``), in the case's time.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

from fault_cases._case import Case, refused

CLASS = "bounds"
DESCRIPTION = "work per sample bounded by sentences, calls and judged text, not only characters"

_WORDS = [
    *("keeper", "ledger", "harbour", "ship", "lamp", "gull"),
    *("tide", "rope", "crate", "mast", "sail", "anchor"),
]
_LIMIT_WORDS = ("limit", "LONGFORM_MAX_")


def _sentences(rng: random.Random, n: int, words: int = 2) -> str:
    out = []
    for i in range(n):
        body = " ".join(rng.choice(_WORDS) for _ in range(words))
        out.append(f"{body.capitalize()} {i}.")
    return " ".join(out)


def _batched_answer(text: str, _: int) -> str:
    block = text.rsplit("<sentences>", 1)[-1]
    count = sum(1 for line in block.splitlines() if line[:1].isdigit())
    return json.dumps([{"sentence": n, "confusion": False} for n in range(1, count + 1)])


_RULES: list[dict[str, Any]] = [
    {"pattern": "<sentences>", "response": _batched_answer},
    {"pattern": "Sentence to judge", "response": "No confusion."},
    {"pattern": "<statement>", "response": "Yes."},
    {"pattern": ".", "response": "No", "top_logprobs": {"No": -0.05, "Yes": -3.0}},
]


def _ending(scorer: str, folder: Path, task: Any, over: bool) -> str:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    model = get_model(f"scripted/{CLASS}", rules=_RULES, memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(folder / "logs"), display="none")
    if log.status != "success" or not log.samples or not log.samples[0].scores:
        message = str(log.error.message if log.error else log.status)
        return "error" if over and all(w in message for w in _LIMIT_WORDS) else "silent"
    score = log.samples[0].scores[scorer]
    value = score.value if isinstance(score.value, dict) else {}
    reason = str((score.metadata or {}).get("over_limit") or "")
    if over:
        named = all(w in reason for w in _LIMIT_WORDS)
        return "counted" if value.get("over_limit") == 1 and named else "silent"
    headline = value.get(scorer)
    scored = isinstance(headline, float) and not math.isnan(headline)
    return "loaded" if scored and not value.get("over_limit") else "silent"


def _coherence(summary: str, mode: str, over: bool) -> Any:
    def run(folder: Path) -> str:
        from longform_evals.tasks.booookscore import booookscore

        path = folder / "summaries.jsonl"
        path.write_text(json.dumps({"id": "s1", "summary": summary}) + "\n", encoding="utf-8")
        try:
            task = booookscore(score_only=True, data=str(path), judge_mode=mode, judge_cache=False)
        except Exception as exc:  # a refusal at load
            return refused(exc, "summaries.jsonl") if over else "silent"
        return _ending("booookscore", folder, task, over)

    return run


def _support(documents: list[str], summary: str, over: bool, full: bool = False) -> Any:
    def run(folder: Path) -> str:
        from longform_evals.tasks.longformfact import longformfact

        row = {"documents": documents, "summary": summary, "faithfulness": 1}
        (folder / "qmsum.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
        try:
            task = longformfact(data_dir=str(folder), include_full=full, chunking="natural")
        except Exception as exc:
            return refused(exc, "qmsum.jsonl") if over else "silent"
        return _ending("faithfulness", folder, task, over)

    return run


def _flood_cases(rng: random.Random) -> list[Case]:
    """Summaries of far more short sentences than the sentence limit (2,000)."""
    cases = []
    for mode in ("sentence", "batched", "probe"):
        for n in (rng.randint(2_200, 6_000), rng.randint(40_000, 90_000)):
            summary = _sentences(rng, n, words=rng.randint(1, 3))
            cases.append(Case(f"{mode}-{n}-tiny-sentences", _coherence(summary, mode, True), 120))
    for n in (rng.randint(2_500, 5_000), rng.randint(60_000, 120_000)):
        doc = _sentences(rng, 30, words=4)
        summary = _sentences(rng, n, words=1)
        cases.append(Case(f"longformfact-{n}-tiny-sentences", _support([doc], summary, True), 120))
    return cases


def _cost_cases(rng: random.Random) -> list[Case]:
    """Within the sentence limit, but too many calls or too much judged text."""
    cases = []
    # A long summary of long sentences: each sentence-mode call shows it whole.
    n = rng.randint(1_500, 1_900)
    summary = _sentences(rng, n, words=rng.randint(14, 20))
    cases.append(Case(f"sentence-{n}-long-summary", _coherence(summary, "sentence", True), 120))
    cases.append(Case(f"probe-{n}-long-summary", _coherence(summary, "probe", True), 120))
    # Many source documents times the sentences: too many support calls.
    docs = [_sentences(rng, 2, words=5) for _ in range(rng.randint(400, 900))]
    summary = _sentences(rng, rng.randint(60, 120), words=3)
    cases.append(Case(f"longformfact-{len(docs)}-documents", _support(docs, summary, True), 120))
    cases.append(
        Case(f"longformfact-{len(docs)}-documents-full", _support(docs, summary, True, True), 120)
    )
    # Few documents, each one huge (natural chunking shows it whole in every call).
    big = [_sentences(rng, rng.randint(30_000, 45_000), words=3) for _ in range(2)]
    cases.append(Case("longformfact-huge-documents", _support(big, "Ship 1 sailed.", True), 120))
    # One sentence longer than any call may show.
    for chars in (rng.randint(500_000, 900_000), rng.randint(2_000_000, 4_000_000)):
        words = " ".join(rng.choice(_WORDS) for _ in range(chars // 6))
        long_one = f"The {words} sailed."
        for mode in ("sentence", "probe"):
            cases.append(
                Case(f"{mode}-one-sentence-{chars}", _coherence(long_one, mode, True), 120)
            )
        cases.append(
            Case(f"longformfact-one-sentence-{chars}", _support(["A ship."], long_one, True), 120)
        )
    # A run of asides: each is judged with the sentence it follows and the asides between,
    # so the judged text grows with the square of the run.
    note = " ".join(rng.choice(_WORDS) for _ in range(8))
    asides = "Ship 0 sailed. " + " ".join(f"(Note {i}: {note}.)" for i in range(1_990))
    cases.append(Case("longformfact-aside-run", _support(["Ship 0 sailed."], asides, True), 120))
    return cases


def _flood_of_nothing(rng: random.Random) -> list[Case]:
    """Whitespace- and punctuation-only floods: no words, refused at load or counted."""
    cases = []
    for chars in (rng.randint(200_000, 400_000), rng.randint(3_000_000, 6_000_000)):
        for label, unit in (("spaces", " \n\t"), ("punctuation", "!? ... "), ("dots", "..")):
            flood = (unit * (chars // len(unit) + 1))[:chars]
            mode = rng.choice(("sentence", "batched", "probe"))
            cases.append(Case(f"{mode}-{label}-{chars}", _nothing(flood, mode), 120))
    return cases


def _nothing(flood: str, mode: str) -> Any:
    def run(folder: Path) -> str:
        from longform_evals.tasks.booookscore import booookscore

        path = folder / "summaries.jsonl"
        path.write_text(json.dumps({"id": "s1", "summary": flood}) + "\n", encoding="utf-8")
        try:
            task = booookscore(score_only=True, data=str(path), judge_mode=mode, judge_cache=False)
        except Exception as exc:
            return refused(exc, "summaries.jsonl", "summary")
        from inspect_ai import eval as inspect_eval
        from inspect_ai.model import get_model

        model = get_model(f"scripted/{CLASS}", rules=_RULES, memoize=False)
        [log] = inspect_eval(task, model=model, log_dir=str(folder / "logs"), display="none")
        if log.status != "success" or not log.samples or not log.samples[0].scores:
            return "silent"
        value = log.samples[0].scores["booookscore"].value
        value = value if isinstance(value, dict) else {}
        unjudged = value.get("no_sentences") == 1 or value.get("empty_summary") == 1
        return "counted" if unjudged and value.get("judge_calls") == 0 else "silent"

    return run


def _valid_cases(rng: random.Random) -> list[Case]:
    """Unusual but within the limits: judged, in time."""
    cases = []
    for mode, n in (("sentence", rng.randint(150, 300)), ("batched", rng.randint(800, 1_500))):
        summary = _sentences(rng, n, words=rng.randint(1, 4))
        cases.append(Case(f"{mode}-{n}-under-limit", _coherence(summary, mode, False), 120))
    n = rng.randint(60, 120)
    cases.append(
        Case(f"probe-{n}-under-limit", _coherence(_sentences(rng, n), "probe", False), 120)
    )
    docs = [_sentences(rng, 3, words=5) for _ in range(rng.randint(20, 40))]
    summary = _sentences(rng, rng.randint(20, 40), words=2)
    cases.append(Case(f"longformfact-{len(docs)}-docs-under-limit", _support(docs, summary, False)))
    asides = "Ship 0 sailed. " + " ".join(f"(Note {i}.)" for i in range(rng.randint(500, 900)))
    cases.append(Case("longformfact-aside-run-under-limit", _support(["A ship."], asides, False)))
    long_one = "The " + " ".join(rng.choice(_WORDS) for _ in range(3_000)) + " sailed."
    cases.append(
        Case("sentence-one-long-sentence-under-limit", _coherence(long_one, "sentence", False))
    )
    return cases


def cases() -> list[Case]:
    rng = random.Random(4949)
    return [*_flood_cases(rng), *_cost_cases(rng), *_flood_of_nothing(rng), *_valid_cases(rng)]
