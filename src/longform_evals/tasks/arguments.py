"""Parsing of task arguments given on the command line (`-T key=a,b,c`)."""

from __future__ import annotations


def comma_list(value: str | list[str] | None) -> list[str] | None:
    """`"a, b"` -> `["a", "b"]`; a list is kept; None stays None (meaning "all")."""
    if value is None or isinstance(value, list):
        return value
    return [v.strip() for v in value.split(",") if v.strip()]
