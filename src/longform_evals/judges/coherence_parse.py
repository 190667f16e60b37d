"""Reading a coherence judge's answers: one sentence per answer, or a JSON list for a batch.

Accepted single-sentence answers (case-insensitive; markdown emphasis and a leading
"Answer:" are ignored):

    No confusion.

    Questions: Who is Harlan? Why is he at the trial?
    Types: entity_omission, causal_omission

Types may be separated by commas, semicolons, slashes or "and", and written with spaces or
underscores ("entity omission"); a few common synonyms are accepted (see coherence_types).
A "Types" line is required for a confusion; the "Questions" line may be missing (its
questions are then empty). Anything else raises `JudgementParseError` with the reason, which
the judge sends back to the model when it asks again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from longform_evals.judges.coherence_types import normalize_type


class JudgementParseError(ValueError):
    """A judge's answer is not in the required format; the message says why."""


@dataclass(frozen=True)
class Judgement:
    """One sentence's verdict as the judge gave it."""

    confused: bool
    questions: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)


_NO_CONFUSION = re.compile(r"^\W*no\s+confusion\b", re.IGNORECASE)
_LABEL = re.compile(r"^\W*(questions?|types?)\s*:\s*(.*)$", re.IGNORECASE)
_ANSWER_PREFIX = re.compile(r"^\W*(answer|verdict|output)\s*:\s*", re.IGNORECASE)
_TYPE_SPLIT = re.compile(r"\s*(?:,|;|/|\band\b|\n)\s*", re.IGNORECASE)
_QUESTION = re.compile(r"[^?]*\?")


def _clean_lines(text: str) -> list[str]:
    lines = []
    for raw in text.replace("**", "").replace("__", "").splitlines():
        line = _ANSWER_PREFIX.sub("", raw.strip())
        if line:
            lines.append(line)
    return lines


def parse_types(text: str) -> list[str]:
    """Canonical type keys from a "Types:" value; unknown names raise JudgementParseError."""
    names = [n for n in _TYPE_SPLIT.split(text.strip().strip(".")) if n.strip(" .-*")]
    if not names:
        raise JudgementParseError("the Types line names no error type")
    types: list[str] = []
    for name in names:
        key = normalize_type(name)
        if key is None:
            raise JudgementParseError(f"unknown error type {name.strip()!r}")
        if key not in types:
            types.append(key)
    return types


def split_questions(text: str) -> list[str]:
    """Questions from a "Questions:" value (each ends with '?'; the rest kept as one)."""
    text = text.strip()
    found = [q.strip() for q in _QUESTION.findall(text) if q.strip(" ?")]
    rest = _QUESTION.sub("", text).strip(" .-")
    return found + ([rest] if rest else [])


def parse_judgement(text: str) -> Judgement:
    """Parse one answer about one sentence (see the module docstring for accepted shapes)."""
    lines = _clean_lines(text)
    if not lines:
        raise JudgementParseError("the answer is empty")
    labelled = [m for m in (_LABEL.match(line) for line in lines) if m]
    if _NO_CONFUSION.match(lines[0]):
        if any(m.group(1).lower().startswith("type") for m in labelled):
            raise JudgementParseError("the answer says 'No confusion' but also lists types")
        return Judgement(confused=False)
    questions: list[str] = []
    types: list[str] | None = None
    current: str | None = None
    for line in lines:
        match = _LABEL.match(line)
        if match:
            current = "types" if match.group(1).lower().startswith("type") else "questions"
            value = match.group(2)
        elif current is not None:
            value = line  # a continuation of the previous labelled value
        else:
            continue  # preamble before the first label
        if current == "types":
            types = (types or []) + parse_types(value) if value.strip() else (types or [])
        else:
            questions.extend(split_questions(value))
    if types is None:
        raise JudgementParseError("the answer neither says 'No confusion' nor has a 'Types:' line")
    if not types:
        raise JudgementParseError("the Types line names no error type")
    return Judgement(confused=True, questions=questions, types=types)


_JSON_ARRAY = re.compile(r"\[.*\]", re.DOTALL)


def parse_batch(text: str, count: int) -> tuple[dict[int, Judgement], dict[int, str]]:
    """Parse a batched answer: a JSON list with one object per numbered sentence.

    Each object is {"sentence": n, "confusion": false} or
    {"sentence": n, "confusion": true, "questions": [...], "types": [...]}, n from 1 to
    `count`.

    Returns:
        (judgements by 1-based sentence number, problems by sentence number). Sentences that
        are missing from the answer appear in the problems. A reply that holds no JSON list
        at all raises JudgementParseError.
    """
    match = _JSON_ARRAY.search(text)
    if match is None:
        raise JudgementParseError("the answer holds no JSON list")
    try:
        items = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise JudgementParseError(f"the JSON list does not parse: {exc.msg}") from None
    if not isinstance(items, list):
        raise JudgementParseError("the answer's JSON is not a list")
    judgements: dict[int, Judgement] = {}
    problems: dict[int, str] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("sentence"), int):
            continue  # unattributable; the sentence it meant shows up as missing
        number = item["sentence"]
        if not 1 <= number <= count or number in judgements:
            continue
        try:
            judgements[number] = _judgement_from_item(item)
        except JudgementParseError as exc:
            problems[number] = str(exc)
    for number in range(1, count + 1):
        if number not in judgements and number not in problems:
            problems[number] = "no verdict given"
    return judgements, problems


def _judgement_from_item(item: dict[str, object]) -> Judgement:
    confusion = item.get("confusion")
    if not isinstance(confusion, bool):
        raise JudgementParseError("'confusion' must be true or false")
    if not confusion:
        return Judgement(confused=False)
    raw_types = item.get("types")
    if isinstance(raw_types, str):
        raw_types = [raw_types]
    if not isinstance(raw_types, list) or not raw_types:
        raise JudgementParseError("a confusion needs a non-empty 'types' list")
    types = parse_types(", ".join(str(t) for t in raw_types))
    raw_questions = item.get("questions") or []
    if isinstance(raw_questions, str):
        raw_questions = [raw_questions]
    questions = (
        [str(q).strip() for q in raw_questions if str(q).strip()]
        if isinstance(raw_questions, list)
        else []
    )
    return Judgement(confused=True, questions=questions, types=types)
