"""One reader for the small files a plan keeps in its log store: claims and their heartbeats,
budget grants and what was spent of them.

Any process, any person and any sync tool can leave a file in a shared store, so every such
file is read here and nowhere else, and read as untrusted: names are plain ASCII numbers,
numbers are finite and within bounds, fields are the known ones. A file that is not what it
should be is never a crash and never a silent wait: the reader returns a :class:`BadFile`
and says so once per file and process, in one line that names it and what to do.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_PID",
    "BadFile",
    "Field",
    "numbered",
    "parse_record",
    "say_once",
]

logger = logging.getLogger(__name__)

MAX_PID = 2**31 - 1
"""The largest process id any system hands out (a C ``int``; Linux stops at 2**22)."""

_said: set[str] = set()


@dataclass(frozen=True)
class BadFile:
    """A store file that cannot be read as what its name says."""

    location: str
    problem: str

    def line(self, action: str) -> str:
        return f"longform run: {self.location}: {self.problem}; {action}"


def say_once(bad: BadFile, action: str) -> None:
    """Log ``bad`` as one warning line, once per file and process (a poll reads it again)."""
    if bad.location in _said:
        return
    _said.add(bad.location)
    logger.warning(bad.line(action))


def numbered(names: Iterable[str], suffix: str) -> tuple[dict[int, str], list[str]]:
    """The files of ``names`` ending in ``suffix`` (``".claim"``) whose stem is a number of
    ASCII digits, by number; and the other names with that suffix (``"abc.grant"``,
    ``"².claim"``: not written by this package)."""
    pattern = re.compile(r"([0-9]{1,18})" + re.escape(suffix))
    found: dict[int, str] = {}
    strays: list[str] = []
    for name in names:
        if not name.endswith(suffix):
            continue
        match = pattern.fullmatch(name)
        if match is None:
            strays.append(name)
        else:
            found[int(match.group(1))] = name
    return found, strays


@dataclass(frozen=True)
class Field:
    """A field of a record: how to check its value, and whether it may be left out."""

    check: Callable[[Any], str | None]
    """None when the value is good, else what is wrong with it."""
    optional: bool = False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_record(
    location: str, text: str | None, fields: Mapping[str, Field]
) -> dict[str, Any] | BadFile:
    """The JSON object in ``text`` with exactly the known ``fields`` (optional ones may be
    missing; unknown ones are refused), each passing its check; else a :class:`BadFile`."""
    if text is None:
        return BadFile(location, "cannot be read")
    if not text.strip():
        return BadFile(location, "is empty")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        return BadFile(location, f"is not JSON ({str(e)[:80]})")
    problem = _problem(data, fields)
    return data if problem is None else BadFile(location, problem)


def _problem(data: Any, fields: Mapping[str, Field]) -> str | None:
    """What is wrong with ``data`` as an object of exactly ``fields`` (None: nothing)."""
    if not isinstance(data, dict):
        return f"holds a {type(data).__name__}, not an object"
    unknown = sorted(set(data) - set(fields))
    if unknown:
        return f"has unknown field(s) {', '.join(map(repr, unknown[:5]))}"
    for name, spec in fields.items():
        if name not in data:
            if spec.optional:
                continue
            return f"has no {name!r}"
        problem = spec.check(data[name])
        if problem is not None:
            return f"{name!r} {problem}"
    return None


def finite(low: float, high: float) -> Callable[[Any], str | None]:
    """A check: a finite number (not a bool) from ``low`` to ``high``."""

    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"is {value!r}, not a number"
        if not math.isfinite(value) or not low <= value <= high:
            return f"is {value!r}, not a finite number from {low:g} to {high:g}"
        return None

    return check


def whole(low: int, high: int) -> Callable[[Any], str | None]:
    """A check: a whole number (not a bool) from ``low`` to ``high``."""

    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"is {value!r}, not a whole number from {low} to {high}"
        return None

    return check


def text(value: Any) -> str | None:
    """A check: a string of at most 1,000 characters."""
    if not isinstance(value, str) or len(value) > 1000:
        return f"is {str(value)[:40]!r}, not a text"
    return None


def text_or_none(value: Any) -> str | None:
    return None if value is None else text(value)


def record(fields: Mapping[str, Field]) -> Callable[[Any], str | None]:
    """A check: a nested object with exactly ``fields``."""

    def check(value: Any) -> str | None:
        return _problem(value, fields)

    return check
