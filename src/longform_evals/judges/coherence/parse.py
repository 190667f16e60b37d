"""Reading a coherence judge's answers: one sentence per answer, or a JSON list for a batch.

Accepted single-sentence answers (case-insensitive; markdown emphasis and a leading
"Answer:" are ignored):

    No confusion.

    Questions: Who is Harlan? Why is he at the trial?
    Types: entity_omission, causal_omission

Types may be separated by commas, semicolons, slashes or "and", and written with spaces or
underscores ("entity omission"); a few common synonyms are accepted (see error_types.py).
A "Types" line is required for a confusion; the "Questions" line may be missing (its
questions are then empty). "No confusion" must stand alone: an answer that says it and also
names types or asks a question, on the same line or another ("No confusion, but who is Owen?
Types: entity omission"), contradicts itself and is a parse failure, not read either way
("Questions: none" is allowed). The official BooookScore prompt asks for "no confusion" on both
lines, and that shape is read as no confusion too:

    Questions: no confusion
    Types: no confusion

but only when both lines say it (or the Questions line is empty or "none"); "no confusion" on
one line with questions or types on the other is a contradiction, as above. Anything else
raises `JudgementParseError` with the reason, which the judge sends back to the model when it
asks again.

Every parser here is linear in the answer's length (no backtracking regex over unbounded runs),
and a batched answer's JSON that is too deep or holds a number too long to convert fails with
`JudgementParseError` like any other malformed answer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field

from longform_evals.judges.coherence.error_types import normalize_type


class JudgementParseError(ValueError):
    """A judge's answer is not in the required format; the message says why."""


class _Item(dict[str, object]):
    """A JSON object of a batched answer, with the keys it gave more than once."""

    repeated: tuple[str, ...] = ()
    pairs: tuple[tuple[str, object], ...] = ()


def _object(pairs: list[tuple[str, object]]) -> _Item:
    """Build a JSON object keeping track of repeated keys (json keeps the last one silently);
    keys that differ only in case, width or surrounding spaces are the same key."""
    item = _Item(pairs)
    seen: set[str] = set()
    repeated: list[str] = []
    for key, _ in pairs:
        folded = unicodedata.normalize("NFKC", key).strip().casefold()
        if folded in seen and key not in repeated:
            repeated.append(key)
        seen.add(folded)
    item.repeated = tuple(repeated)
    item.pairs = tuple(pairs)
    return item


@dataclass(frozen=True)
class Judgement:
    """One sentence's verdict as the judge gave it."""

    confused: bool
    questions: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)


_QUOTE = "\"'`\u2018-\u201f\u00ab\u00bb\u2039\u203a\u300c-\u300f"
_NO_CONFUSION = re.compile(
    rf"^[^\w{_QUOTE}]*no\s+confusion\b(?![-\u2010\u2011'\u2019]\w)(?![{_QUOTE}])",
    re.IGNORECASE,
)
""""No confusion" in answer position: not quoted ('"No confusion" is what it claims'), not
the start of a longer word ("No confusion-free reading")."""
_LABEL = re.compile(r"^\W*(questions?|types?)\s*:\s*(.*)$", re.IGNORECASE)
_ANSWER_PREFIX = re.compile(r"^\W*(answer|verdict|output)\s*:\s*", re.IGNORECASE)
_TYPE_SPLIT = re.compile(r",|;|/|\band\b|\n", re.IGNORECASE)
_INLINE_LABEL = re.compile(r"\b(questions?|types?)\s*:([^\n]*)", re.IGNORECASE)
_NO_QUESTIONS = ("", "none", "n/a", "na", "nil")


def _clean_lines(text: str) -> list[str]:
    lines = []
    for raw in text.replace("**", "").replace("__", "").splitlines():
        line = _ANSWER_PREFIX.sub("", raw.strip())
        if line:
            lines.append(line)
    return lines


def parse_types(text: str) -> list[str]:
    """Canonical type keys from a "Types:" value; unknown names raise JudgementParseError."""
    names = [n.strip() for n in _TYPE_SPLIT.split(text.strip().strip(".")) if n.strip(" .-*")]
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
    *asked, rest = text.strip().split("?")
    found = [(q + "?").strip() for q in asked if q.strip(" ")]
    rest = rest.strip(" .-")
    return found + ([rest] if rest else [])


def _contradicts_no_confusion(rest: str) -> str | None:
    """Why the text after "No confusion" contradicts it (types, or questions), else None."""
    for match in _INLINE_LABEL.finditer(rest):
        if match.group(1).lower().startswith("type"):
            return "the answer says 'No confusion' but also lists types"
        if match.group(2).strip(" .-*").lower() not in _NO_QUESTIONS:
            return "the answer says 'No confusion' but also asks questions"
    if "?" in rest:
        return "the answer says 'No confusion' but also asks questions"
    return None


def _labelled_values(lines: list[str]) -> dict[str, list[str]]:
    """The "Questions"/"Types" values in order, continuation lines joined to their label;
    lines before the first label are preamble and ignored."""
    values: dict[str, list[str]] = {}
    current: str | None = None
    for line in lines:
        match = _LABEL.match(line)
        if match:
            current = "types" if match.group(1).lower().startswith("type") else "questions"
            values.setdefault(current, []).append(match.group(2))
        elif current is not None:
            values[current].append(line)
    return values


def _says_no_confusion(value: str) -> bool:
    return _NO_CONFUSION.match(value) is not None


def _official_no_confusion(values: dict[str, list[str]]) -> Judgement:
    """The official two-line "no confusion" answer; anything beside it is a contradiction."""
    types = " ".join(values.get("types", []))
    questions = " ".join(values.get("questions", []))
    if not _says_no_confusion(types):
        if "types" in values and types.strip(" .-*"):
            raise JudgementParseError("the answer says 'no confusion' but also lists types")
        raise JudgementParseError(
            "the Questions line says 'no confusion' but the Types line does not"
        )
    if not _says_no_confusion(questions) and questions.strip(" .-*").lower() not in _NO_QUESTIONS:
        raise JudgementParseError("the answer says 'no confusion' but also asks questions")
    for value in (types, questions):
        match = _NO_CONFUSION.match(value)
        if match and _contradicts_no_confusion(value[match.end() :]):
            raise JudgementParseError("the answer says 'no confusion' but also asks questions")
    return Judgement(confused=False)


def parse_judgement(text: str) -> Judgement:
    """Parse one answer about one sentence (see the module docstring for accepted shapes)."""
    lines = _clean_lines(text)
    if not lines:
        raise JudgementParseError("the answer is empty")
    no_confusion = _NO_CONFUSION.match(lines[0])
    if no_confusion:
        rest = "\n".join([lines[0][no_confusion.end() :], *lines[1:]])
        contradiction = _contradicts_no_confusion(rest)
        if contradiction:
            raise JudgementParseError(contradiction)
        return Judgement(confused=False)
    values = _labelled_values(lines)
    said_none = [_says_no_confusion(" ".join(v)) for v in values.values()]
    if any(said_none):
        return _official_no_confusion(values)
    questions: list[str] = []
    for value in values.get("questions", []):
        questions.extend(split_questions(value))
    types: list[str] | None = None
    if "types" in values:
        types = []
        for value in values["types"]:
            if value.strip():
                types += [t for t in parse_types(value) if t not in types]
    if types is None:
        raise JudgementParseError("the answer neither says 'No confusion' nor has a 'Types:' line")
    if not types:
        raise JudgementParseError("the Types line names no error type")
    return Judgement(confused=True, questions=questions, types=types)


def parse_batch(text: str, count: int) -> tuple[dict[int, Judgement], dict[int, str]]:
    """Parse a batched answer: a JSON list with one object per numbered sentence.

    Each object is {"sentence": n, "confusion": false} or
    {"sentence": n, "confusion": true, "questions": [...], "types": [...]}, n from 1 to
    `count`. The official BooookScore batched prompt's shape is read too:
    {"sentence_num": n, "sentence": "<text>", "questions": null, "types": null} for no
    confusion, or with the questions and types as text ("entity omission, salience").

    Returns:
        (judgements by 1-based sentence number, problems by sentence number). Sentences that
        are missing from the answer appear in the problems, and so do those an item names
        by anything but an integer (`"sentence": true` names no sentence), and those given
        two different verdicts (neither is read). A reply that holds no JSON list, or one that
        does not parse (including nesting too deep for the parser and numbers too long to
        convert), raises JudgementParseError.
    """
    # The list runs from the first "[" to the last "]" (what a greedy `\[.*\]` finds, without
    # its quadratic backtracking when no "]" follows).
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end < start:
        raise JudgementParseError("the answer holds no JSON list")
    try:
        items = json.loads(text[start : end + 1], object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise JudgementParseError(f"the JSON list does not parse: {exc.msg}") from None
    except RecursionError:
        raise JudgementParseError("the JSON list does not parse: nested too deep") from None
    except ValueError:  # an integer past Python's 4,300-digit conversion limit
        raise JudgementParseError("the JSON list does not parse: a number is too long") from None
    if not isinstance(items, list):
        raise JudgementParseError("the answer's JSON is not a list")
    judgements: dict[int, Judgement] = {}
    problems: dict[int, str] = {}
    contradicted: set[int] = set()
    for item in items:
        if isinstance(item, _Item) and item.repeated:
            _refuse_repeated(item, count, judgements, problems, contradicted)
            continue
        number = _item_number(item)
        if number is None or not 1 <= number <= count or number in contradicted:
            continue  # unattributable; the sentence it meant shows up as missing
        try:
            judgement = _judgement_from_item(item)
        except JudgementParseError as exc:
            if number not in judgements:
                problems.setdefault(number, str(exc))
            continue
        if number in judgements and judgements[number] != judgement:
            contradicted.add(number)
            del judgements[number]
            problems[number] = "the answer gives this sentence two different verdicts"
        elif number not in problems:
            judgements[number] = judgement
    for number in range(1, count + 1):
        if number not in judgements and number not in problems:
            problems[number] = "no verdict given"
    return judgements, problems


def _refuse_repeated(
    item: _Item,
    count: int,
    judgements: dict[int, Judgement],
    problems: dict[int, str],
    contradicted: set[int],
) -> None:
    """An item that gives a key twice is unreadable, and so is every sentence it may name
    (whatever another item says of it): which of its values is meant cannot be known."""
    keys = ", ".join(repr(k) for k in item.repeated)
    for number in _numbers_named(item):
        if 1 <= number <= count:
            judgements.pop(number, None)
            contradicted.add(number)
            problems[number] = f"the answer gives the key {keys} twice in this sentence's item"


def _numbers_named(item: _Item) -> set[int]:
    """Every sentence number an item's number keys hold, repeated ones included."""
    return {
        value
        for key, value in item.pairs
        if unicodedata.normalize("NFKC", key).strip().casefold() in ("sentence", "sentence_num")
        and isinstance(value, int)
        and not isinstance(value, bool)
    }


def _item_number(item: object) -> int | None:
    """The sentence number an item names: `sentence`, or the official prompt's
    `sentence_num` (its `sentence` holds the text); None when it names none."""
    if not isinstance(item, dict):
        return None
    for key in ("sentence", "sentence_num"):
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _official_item(item: dict[str, object]) -> Judgement:
    """An item of the official batched prompt: null (or empty, or "no confusion") questions
    and types for no confusion; otherwise types are required, as text or a list."""
    questions, types = item.get("questions"), item.get("types")

    def empty(value: object) -> bool:
        return (
            value is None
            or (isinstance(value, str | list) and not value)
            or (isinstance(value, str) and _says_no_confusion(value))
        )

    if empty(types):
        if not empty(questions):
            raise JudgementParseError("the item asks questions but names no type")
        return Judgement(confused=False)
    if isinstance(types, str):
        types = [types]
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise JudgementParseError("'types' must be type names")
    asked = split_questions(questions) if isinstance(questions, str) else []
    return Judgement(confused=True, questions=asked, types=parse_types(", ".join(types)))


def _judgement_from_item(item: dict[str, object]) -> Judgement:
    if "confusion" not in item and "sentence_num" in item:
        return _official_item(item)
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
    if not all(isinstance(t, str) for t in raw_types):
        raise JudgementParseError("'types' must be a list of type names")
    types = parse_types(", ".join(raw_types))
    raw_questions = item.get("questions") or []
    if isinstance(raw_questions, str):
        raw_questions = [raw_questions]
    # Only text counts as a question (a nested list or object is dropped, never printed).
    questions = (
        [q.strip() for q in raw_questions if isinstance(q, str) and q.strip()]
        if isinstance(raw_questions, list)
        else []
    )
    return Judgement(confused=True, questions=questions, types=types)
