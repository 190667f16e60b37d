"""The shared file readers: UTF-8 errors with line and byte, BOMs, line ends, long integers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longform_evals.data.jsonl import (
    MAX_JSON_INT_DIGITS,
    DataError,
    jsonl_records,
    parse_json,
    read_json,
    read_text,
)
from longform_evals.data.reading_samples import as_int, bounded_int, describe

BOM = b"\xef\xbb\xbf"
HUGE = "9" * 5000


def test_bad_byte_in_a_text_file_names_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    data = b"Title: A\n\nSecond line \xff here\n"
    path.write_bytes(data)
    offset = data.index(b"\xff")
    with pytest.raises(DataError) as info:
        read_text(path)
    assert str(info.value) == f"{path}: line 3, byte {offset}: not valid UTF-8 (0xff)"


def test_bad_byte_offset_counts_the_bom_and_crlf_lines(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    data = BOM + b"one\r\ntwo\rthree \xc3\x28\n"  # \xc3 starts a sequence that ( does not end
    path.write_bytes(data)
    offset = data.index(b"\xc3")
    with pytest.raises(DataError, match=rf"line 3, byte {offset}: .*\(0xc3\)"):
        read_text(path)


def test_bom_and_line_ends_are_read_as_text_mode_does(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    path.write_bytes(BOM + "Title: Été\r\nline\rlast\n".encode())
    assert read_text(path) == "Title: Été\nline\nlast\n"


def test_jsonl_bad_byte_names_file_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    lines = [b'{"a": 1}\n', b"\n", b'{"a": "caf\xe9"}\n']  # Latin-1 e-acute
    data = b"".join(lines)
    path.write_bytes(data)
    records = jsonl_records(path)
    assert next(records) == (1, {"a": 1})  # earlier lines are read before the bad one fails
    with pytest.raises(DataError) as info:
        next(records)
    offset = data.index(b"\xe9")
    assert str(info.value) == f"{path}: line 3, byte {offset}: not valid UTF-8 (0xe9)"


def test_jsonl_accepts_a_bom_and_any_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(BOM + b'{"a": 1}\r\n{"a": 2}\r{"a": "\xc3\xa9"}\n\n')
    assert list(jsonl_records(path)) == [(1, {"a": 1}), (2, {"a": 2}), (3, {"a": "é"})]


def test_jsonl_bom_only_on_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'{"a": 1}\n' + BOM + b'{"a": 2}\n')
    with pytest.raises(DataError, match=r"data\.jsonl:2: not valid JSON"):
        list(jsonl_records(path))


def test_jsonl_huge_integer_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text('{"a": 1}\n{"gold_label": ' + HUGE + "}\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"data\.jsonl:2: a JSON integer has 5000 digits"):
        list(jsonl_records(path))
    path.write_text('{"n": -' + HUGE + "}\n", encoding="utf-8")
    with pytest.raises(DataError, match="5000 digits"):
        list(jsonl_records(path))


def test_long_integers_up_to_the_limit_and_long_floats_are_read(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    big = "7" * MAX_JSON_INT_DIGITS
    path.write_text(f'{{"a": {big}, "b": {HUGE}.5, "c": NaN}}\n', encoding="utf-8")
    [(_, record)] = list(jsonl_records(path))
    assert record["a"] == int(big) and record["b"] == float("inf")


def test_jsonl_deep_nesting_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text("[" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"data\.jsonl:1: not valid JSON"):
        list(jsonl_records(path))


def test_read_json_names_the_line_of_a_huge_integer_and_accepts_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "meeting.json"
    path.write_bytes(BOM + b'{\n  "id": "12' + b"3" * 200 + b'",\n  "n": ' + HUGE.encode() + b"\n}")
    with pytest.raises(DataError, match=r"meeting\.json:3: a JSON integer has 5000 digits"):
        read_json(path)
    path.write_bytes(BOM + json.dumps({"a": [1, 2]}, indent=1).encode())
    assert read_json(path) == {"a": [1, 2]}
    path.write_bytes(b'{\n "a": \xff\n}')
    with pytest.raises(DataError, match=r"meeting\.json: line 2, byte 8: not valid UTF-8"):
        read_json(path)


def test_parse_json_messages() -> None:
    assert parse_json('{"a": NaN}', "x")["a"] != 0
    with pytest.raises(DataError, match=r"^f:3: not valid JSON \(Expecting value\)"):
        parse_json("[oops", "f:3")


def test_as_int_never_raises_and_reads_only_plain_integers() -> None:
    assert as_int(" 5 ") == 5 and as_int("-3") == -3 and as_int(7) == 7
    for value in (HUGE, "--3", "+3", "²", "1_000", "3.0", 3.0, True, None, float("nan")):
        assert as_int(value) is None, value
    assert as_int(10**5000) == 10**5000  # already an int: nothing to convert


def test_bounded_int_names_the_field_and_shortens_the_value() -> None:
    assert bounded_int("4", 1, 4, "f:2", "gold_label") == 4
    for value in (0, 5, HUGE, 10**5000, "x", None, 2.5):
        with pytest.raises(DataError) as info:
            bounded_int(value, 1, 4, "f:2", "gold_label")
        message = str(info.value)
        assert message.startswith("f:2: field 'gold_label' must be an integer in 1..4")
        assert len(message) < 200


def test_describe_is_short_for_any_value() -> None:
    assert describe(10**5000) == "an integer of about 5001 digits"
    assert describe([10**5000]) == "a list"
    assert describe(HUGE).endswith("(5000 characters)")
    assert describe("ok") == "'ok'"


_PIECES = st.one_of(
    st.binary(max_size=12),
    st.sampled_from(
        [b'{"a": 1}', b'{"t": "\xc3\xa9"}', BOM, b"\n", b"\r", b"\r\n", b"\xff", b"\xc3", b"[1]"]
    ),
    st.just(b"9" * (MAX_JSON_INT_DIGITS + 1)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=12).map(b"".join))
def test_arbitrary_bytes_give_records_or_a_data_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("bytes") / "x.jsonl"
    path.write_bytes(data)
    try:
        records = list(jsonl_records(path))
    except DataError as exc:
        assert str(exc).startswith(str(path))
        return
    numbers = [n for n, _ in records]
    assert numbers == sorted(set(numbers))
    assert all(isinstance(r, dict) for _, r in records)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.text(max_size=5), st.text(max_size=8), max_size=3),
        min_size=1,
        max_size=5,
        unique_by=lambda r: json.dumps(r, sort_keys=True),  # a repeated record is refused
    ),
    st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=5, max_size=5),
    st.data(),
)
def test_the_reported_line_and_byte_are_those_of_the_bad_byte(
    tmp_path_factory: pytest.TempPathFactory,
    records: list[dict[str, str]],
    ends: list[str],
    data: st.DataObject,
) -> None:
    lines = [(json.dumps(r, ensure_ascii=False) + ends[i]).encode() for i, r in enumerate(records)]
    bad = data.draw(st.integers(0, len(lines) - 1))
    lines[bad] = b"\xff" + lines[bad]
    path = tmp_path_factory.mktemp("bad") / "x.jsonl"
    path.write_bytes(b"".join(lines))
    offset = sum(len(line) for line in lines[:bad])
    with pytest.raises(DataError) as info:
        list(jsonl_records(path))
    assert str(info.value) == f"{path}: line {bad + 1}, byte {offset}: not valid UTF-8 (0xff)"
