"""Reading the suite's data files (JSONL, JSON, text), with errors that name the file and line.

Every loader reads through these helpers, so all of them accept the same bytes: UTF-8, with
or without a byte-order mark at the start of the file, and any of ``\\n``, ``\\r\\n`` or
``\\r`` as line ends (as Python's text mode does). Bytes that are not UTF-8 are a
:class:`DataError` naming the file, the line and the byte offset, rather than a
UnicodeDecodeError from deep inside a loader. A JSON string holding a lone
surrogate (``"\\ud800"``, which no UTF-8 text can) is a DataError naming the file, line, field
and character. JSON integers longer than
:data:`MAX_JSON_INT_DIGITS` digits are a DataError too: Python refuses to convert integers of
more than 4,300 digits with a bare ValueError, and no field of any supported format needs one.
A key repeated in one JSON object (at any depth) is a DataError naming the key and the line
of its second occurrence: :mod:`json` would keep the last value without a word. Paths are
checked before they are opened (:mod:`~longform_evals.data.files`): a folder, a named pipe, a
broken or looping link, an unreadable or empty file is a DataError naming it.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from longform_evals.data.files import DataError, open_binary, read_bytes
from longform_evals.data.files import folder_files as folder_files

__all__ = [
    "DEFAULT_MAX_TEXT_CHARS",
    "MAX_JSON_INT_DIGITS",
    "DataError",
    "check_size",
    "folder_files",
    "has_words",
    "jsonl_records",
    "max_text_chars",
    "optional_string",
    "parse_json",
    "read_json",
    "read_text",
    "require_text",
]

MAX_JSON_INT_DIGITS = 100
"""JSON integers with more digits than this are refused (see the module docstring)."""

_BOM = codecs.BOM_UTF8
# A lone CR ends a line in text mode; binary iteration only splits at LF.
_LONE_CR = re.compile(rb"(?<=\r)(?!\n)")


class _HugeInteger(Exception):
    """Internal: a JSON integer of more than MAX_JSON_INT_DIGITS digits."""

    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _huge(where: str, digits: int) -> DataError:
    return DataError(
        f"{where}: a JSON integer has {digits} digits (at most {MAX_JSON_INT_DIGITS} are read)"
    )


def _parse_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_JSON_INT_DIGITS:
        raise _HugeInteger(digits)
    return int(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_surrogates(value: Any, where: str, path: str = "") -> None:
    """Refuse a string holding a lone surrogate anywhere in a parsed JSON value.

    JSON may spell one (``"\\ud800"``) and :mod:`json` decodes it, but it is no character:
    it cannot be encoded as UTF-8, so a tokenizer or a model provider fails on it mid-run.
    """
    if isinstance(value, str):
        bad = _SURROGATE.search(value)
        if bad:
            field = f" in field {path}" if path else ""
            raise DataError(
                f"{where}: a lone surrogate (U+{ord(bad.group()):04X}){field} at character "
                f"{bad.start()}: not a character; the text is not valid Unicode"
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_surrogates(key, where, path)
            _check_surrogates(item, where, f"{path}.{key}" if path else repr(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_surrogates(item, where, f"{path}[{i}]")


class _RepeatedKey(Exception):
    """Internal: a JSON object names a key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``, refusing a key named twice (json keeps the last silently)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return value


_WS = re.compile(r"[ \t\n\r]*")
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 (untyped in typeshed)


def _ws(text: str, i: int) -> int:
    """The offset of the first character at or after ``i`` that is not JSON white space."""
    match = _WS.match(text, i)
    return match.end() if match else i


_SCAN: Any = getattr(json.JSONDecoder(parse_int=_parse_int), "scan_once")  # noqa: B009


def _skip_value(text: str, start: int) -> tuple[int, int | None]:
    """(end of the JSON value at ``start``, offset of the first repeated key in it or None).

    Only run on text the parser has read up to a repeated key, to say where that key is.
    """
    i = _ws(text, start)
    opener = text[i]
    if opener not in "{[":
        return _SCAN(text, i)[1], None
    closer = "}" if opener == "{" else "]"
    seen: set[str] = set()
    i = _ws(text, i + 1)
    if text[i] == closer:
        return i + 1, None
    while True:
        if opener == "{":
            key_at = i
            key, i = _scanstring(text, i + 1)
            if key in seen:
                return i, key_at
            seen.add(key)
            i = _ws(text, i) + 1  # past the colon
        i, found = _skip_value(text, i)
        if found is not None:
            return i, found
        i = _ws(text, i)
        if text[i] == closer:
            return i + 1, None
        i = _ws(text, i + 1)  # past the comma


def _repeat_line(text: str) -> int | None:
    """The 1-based line of the first repeated key in ``text``, or None if it cannot be told."""
    try:
        _, found = _skip_value(text, 0)
    except (ValueError, IndexError, RecursionError, _HugeInteger):
        return None
    return None if found is None else text.count("\n", 0, found) + 1


def _loads(text: str) -> Any:
    return json.loads(text, parse_int=_parse_int, object_pairs_hook=_unique_keys)


def _repeated(where: str, key: str) -> DataError:
    return DataError(
        f"{where}: key {key!r} appears twice in one JSON object; keep one (JSON readers "
        "would silently use the last)"
    )


def parse_json(text: str, where: str) -> Any:
    """Parse one JSON value, refusing integers of more than :data:`MAX_JSON_INT_DIGITS` digits
    and keys repeated within an object.

    Args:
        text: The JSON text.
        where: Names the text in error messages, e.g. ``"file:line"``; for text of several
            lines the line of a repeated key is added (``"where, line 3"``).

    Returns:
        The parsed value (``NaN`` and ``Infinity`` are read as floats, as by :mod:`json`).

    Raises:
        DataError: If ``text`` is not valid JSON, holds a too long integer or a repeated key.
    """
    try:
        value = _loads(text)
    except _HugeInteger as exc:
        raise _huge(where, exc.digits) from None
    except _RepeatedKey as exc:
        line = _repeat_line(text) if "\n" in text.strip() else None
        raise _repeated(where if line is None else f"{where}, line {line}", exc.key) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{where}: not valid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # e.g. nesting too deep for the parser
        raise DataError(f"{where}: not valid JSON ({exc})") from None
    try:
        _check_surrogates(value, where)
    except RecursionError:
        raise DataError(f"{where}: nested too deeply") from None
    return value


def _undecodable(path: Path, data: bytes, exc: UnicodeDecodeError, line: int, base: int) -> str:
    """The message for a decoding error in ``data``, which starts at file offset ``base``."""
    before = data[: exc.start]
    line += before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n")
    bad = data[exc.start]
    return f"{path}: line {line}, byte {base + exc.start}: not valid UTF-8 (0x{bad:02x})"


def read_text(path: Path, what: str = "data file") -> str:
    """The whole file as text: UTF-8 (a leading BOM is dropped), line ends turned into ``\\n``.

    Other line breaks (U+2028, U+2029, NEL, form feed) are kept as they are: the text layer
    reads them as line breaks.

    Args:
        path: The file.
        what: What the file should be, for the message when it is not a file.

    Returns:
        Its text.

    Raises:
        DataError: If the path is no readable, non-empty file (see
            :func:`~longform_evals.data.files.check_file`), or the file is not valid UTF-8;
            the message gives the line (1-based) and the byte offset in the file (0-based) of
            the first bad byte, e.g. ``"book.txt: line 3, byte 57: not valid UTF-8 (0xff)"``.
    """
    data = read_bytes(Path(path), what)
    start = len(_BOM) if data.startswith(_BOM) else 0
    body = data[start:]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(_undecodable(path, body, exc, 1, start)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_json(path: Path, what: str = "JSON file") -> Any:
    """One JSON value from a whole file (UTF-8, BOM allowed; see :func:`parse_json`).

    Raises:
        DataError: If the path is no readable, non-empty file, or the file is not valid UTF-8
            or not valid JSON, holds an integer of more than :data:`MAX_JSON_INT_DIGITS`
            digits or a key repeated in one object, naming the file and line.
    """
    text = read_text(path, what)
    try:
        value = _loads(text)
    except _HugeInteger as exc:
        # The parser does not say where; the first run of exactly that many digits is it.
        run = re.search(rf"(?<![0-9])[0-9]{{{exc.digits}}}(?![0-9])", text)
        where = f"{path}:{text.count(chr(10), 0, run.start()) + 1}" if run else str(path)
        raise _huge(where, exc.digits) from None
    except _RepeatedKey as exc:
        line = _repeat_line(text)
        raise _repeated(f"{path}:{line}" if line else str(path), exc.key) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{path}: not valid JSON ({exc})") from None
    try:
        _check_surrogates(value, str(path))
    except RecursionError:
        raise DataError(f"{path}: nested too deeply") from None
    return value


def _text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line, decoded one at a time (large files stream)."""
    with open_binary(path, "JSONL file") as f:
        offset = 0
        number = 0
        for chunk in f:
            for raw in _LONE_CR.split(chunk) if b"\r" in chunk else (chunk,):
                number += 1
                skip = len(_BOM) if number == 1 and raw.startswith(_BOM) else 0
                body = raw[skip:]
                try:
                    line = body.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataError(_undecodable(path, body, exc, number, offset + skip)) from None
                offset += len(raw)
                yield number, line


def jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file.

    The file is UTF-8, with or without a BOM (see the module docstring).

    Args:
        path: The file.

    Yields:
        The 1-based line number and the object of each non-blank line, in order.

    Raises:
        DataError: If a line is not valid UTF-8 (naming line and byte offset), not valid JSON,
            holds an integer of more than :data:`MAX_JSON_INT_DIGITS` digits, is not a JSON
            object, repeats a key within an object or an earlier line's record; the message
            starts with ``file:line``. If the path is no readable, non-empty file (a folder,
            a named pipe, a broken link; see :func:`~longform_evals.data.files.check_file`).
    """
    seen: dict[str, int] = {}
    for number, line in _text_lines(path):
        if not line.strip():
            continue
        record = parse_json(line, f"{path}:{number}")
        if not isinstance(record, dict):
            raise DataError(f"{path}:{number}: expected a JSON object")
        # the same record twice would be the same samples twice, counted twice in every mean
        key = json.dumps(record, sort_keys=True, ensure_ascii=False)
        if key in seen:
            raise DataError(f"{path}:{number}: repeats the record of line {seen[key]}")
        seen[key] = number
        yield number, record


def require_text(record: Mapping[str, Any], key: str, where: str, *, integers: bool = False) -> str:
    """``record[key]`` if it is a string with words (:func:`has_words`; or, with
    ``integers``, an integer, as text), else a DataError naming the field.
    """
    value = record.get(key)
    if integers and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    kind = "a non-empty string" + (" or an integer" if integers else "")
    if value is not None and not isinstance(value, str):
        raise DataError(f"{where}: field {key!r} must be {kind}, not {_type_name(value)}")
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: missing or empty field {key!r} ({kind})")
    if not has_words(value):
        raise DataError(f"{where}: field {key!r} has no words ({value.strip()[:40]!r})")
    check_size(value, f"{where}: field {key!r}")
    return value


def _type_name(value: object) -> str:
    """How a JSON value of the wrong type is named in a message (NaN by name)."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    return {dict: "an object", list: "a list", float: "a number", int: "a number"}.get(
        type(value), type(value).__name__
    )


def optional_string(record: Mapping[str, Any], key: str, where: str) -> str | None:
    """``record[key]`` if it is a string; None when absent or null; any other value (a list,
    a number, NaN, a boolean) a DataError naming the field, never kept as it is."""
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    raise DataError(f"{where}: field {key!r} must be a string, not {_type_name(value)}")


DEFAULT_MAX_TEXT_CHARS = 10_000_000
"""The most characters of one text (a document, summary, question) the suite reads: about
2.5 million tokens, far past any context window, and far below what exhausts memory when a
text is split into sentences, tokenized and judged. ``LONGFORM_MAX_TEXT_CHARS`` sets it."""


def max_text_chars() -> int:
    """The size limit of one text: ``LONGFORM_MAX_TEXT_CHARS`` when set (a positive whole
    number), else :data:`DEFAULT_MAX_TEXT_CHARS`.

    Raises:
        ValueError: If the variable is set to anything else.
    """
    raw = os.environ.get("LONGFORM_MAX_TEXT_CHARS")
    if raw is None or not raw.strip():
        return DEFAULT_MAX_TEXT_CHARS
    if not raw.strip().isdigit() or int(raw) < 1:
        raise ValueError(f"LONGFORM_MAX_TEXT_CHARS must be a positive whole number, not {raw!r}")
    return int(raw)


def check_size(text: str, where: str) -> None:
    """Refuse a text longer than :func:`max_text_chars`, naming it (before any splitting,
    tokenizing or model call would spend minutes and gigabytes on it)."""
    limit = max_text_chars()
    if len(text) > limit:
        raise DataError(
            f"{where}: {len(text):,} characters, more than the limit of {limit:,} for one text "
            "(LONGFORM_MAX_TEXT_CHARS sets it)"
        )


_WORD = re.compile(r"[^\W_]")


def has_words(text: str) -> bool:
    """Whether ``text`` holds a letter or digit (in any script): "...", "—" or "* * *" do
    not, and a document, question or summary without any is refused (counted by the
    scorers), never summarized or judged."""
    return bool(_WORD.search(text))
