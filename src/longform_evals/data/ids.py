"""Sample ids: what every loader accepts as one, checked when the data is loaded.

An id is written into Inspect's log as part of a member name (``samples/<id>_epoch_<n>.json``)
and shown in every table of results. Measured with Inspect 0.3: an id holding a NUL character
is scored, but its sample cannot be found in the log afterwards; an id of 100,000 characters
ends the run with an error (a zip member name holds at most 65,535 bytes). So an id must be

- printable: no character of the Unicode categories Cc (control characters, tab and line
  ends included), Cf (format characters: zero-width spaces, bidirectional marks, the byte
  order mark), Zl and Zp (line and paragraph separators), Cs (surrogates), Co (private use)
  or Cn (unassigned). Zero-width joiner and non-joiner (U+200C, U+200D) are allowed: some
  scripts (Persian, Indic, emoji sequences) need them to spell a word;
- not blank (at least one character other than white space);
- at most :data:`MAX_ID_CHARS` characters;
- unique within the loaded dataset, counting as Inspect does: ``"7"`` and ``"007"`` are the
  same sample to Inspect (an id of digits is read as a number), so they are the same id here;
  and counting as a reader does: ids that look the same are the same id, so they are compared
  after Unicode's compatibility normalisation (NFKC: composed and decomposed ``café``,
  full-width letters), without zero-width joiners and non-joiners and without surrounding
  white space. Two records whose ids collide so are refused, naming both.

The limit of 256 characters is far above every id of the supported datasets (published ids
are under 40 characters; ids the package builds from titles and file names, such as
``fables/<book>/<model>``, stay under 200) and far below what breaks a log (256 characters
of 4 UTF-8 bytes are 1 KiB of a zip member name's 64 KiB), while keeping ids readable in
tables and on the command line.
"""

from __future__ import annotations

import unicodedata

from longform_evals.data.files import DataError

__all__ = ["MAX_ID_CHARS", "SampleIds", "check_sample_id", "id_key", "spelled_as"]

MAX_ID_CHARS = 256
"""The most characters of a sample id (see the module docstring for the reason)."""

_REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
_JOINERS = {"\u200c", "\u200d"}


def _unprintable(value: str) -> tuple[int, str] | None:
    """The first refused character of ``value`` and its position, or None."""
    for index, char in enumerate(value):
        if char in _JOINERS:
            continue
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return index, char
    return None


def check_sample_id(value: str, where: str, field: str = "id") -> str:
    """``value`` if it is a valid sample id (module docstring), else a DataError.

    Args:
        value: The id.
        where: Names the record (``"file:line"``, ``"<origin> row <n>"``).
        field: The field (or fields) the id was read or built from, for the message.

    Raises:
        DataError: naming ``where``, the field and what is wrong (the character and its
            position, or the length and the limit).
    """
    if len(value) > MAX_ID_CHARS:
        raise DataError(
            f"{where}: {field} {value[:40]!r}... is {len(value):,} characters long; a sample id "
            f"may have at most {MAX_ID_CHARS}"
        )
    if not value.strip():
        raise DataError(f"{where}: {field} {value!r} is blank; a sample id needs a character")
    bad = _unprintable(value)
    if bad is not None:
        index, char = bad
        name = unicodedata.name(char, unicodedata.category(char))
        raise DataError(
            f"{where}: {field} {value!r} holds U+{ord(char):04X} ({name}) at character {index}; "
            "a sample id must be printable (no control, format or separator characters)"
        )
    if value.isdigit() and not value.isdecimal():
        raise DataError(
            f"{where}: {field} {value!r} is digits Inspect cannot read as a number "
            "(use decimal digits or add a letter)"
        )
    return value


def id_key(value: str) -> str:
    """The id as samples are told apart: as a reader sees it (NFKC, no joiners, no surrounding
    white space), and an id of digits as the number Inspect reads it as."""
    seen = unicodedata.normalize("NFKC", value)
    seen = "".join(c for c in seen if c not in _JOINERS).strip()
    return str(int(seen)) if seen.isdecimal() and seen.isascii() else seen


def _why_same(first: str, second: str) -> str:
    if first.strip().isdecimal() and second.strip().isdecimal():
        return "Inspect reads both as one number"
    return (
        f"written {first!a} and {second!a}, the two look the same once "
        "Unicode-normalised (NFKC), without joiners and surrounding spaces"
    )


def spelled_as(first: str, second: str) -> str:
    """For a message about two ids with one :func:`id_key`: how the first was spelled, and why
    they are one id ("" when they are spelled alike)."""
    return "" if first == second else f" (as {first!r}: {_why_same(first, second)})"


class SampleIds:
    """The ids of one dataset being loaded: each checked (:func:`check_sample_id`) and unique."""

    def __init__(self) -> None:
        self._first: dict[str, tuple[str, str]] = {}

    def add(self, value: str, where: str, field: str = "id") -> str:
        """Check ``value`` and record it.

        Raises:
            DataError: If it is no valid id, or the dataset has it already (naming where).
        """
        check_sample_id(value, where, field)
        key = id_key(value)
        if key in self._first:
            first, spelled = self._first[key]
            same = spelled_as(spelled, value)
            raise DataError(
                f"{where}: {field} {value!r} already used at {first}{same}; sample ids must "
                "be unique"
            )
        self._first[key] = (where, value)
        return value
