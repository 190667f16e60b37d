"""Settings records that an eval log keeps as a mapping and rebuilds from it.

A judge's settings (a frozen dataclass) reach a scorer as one argument; Inspect records
a scorer's arguments in the log through ``_repr_params_``, and `inspect score LOG` passes the
recorded mapping back, which :meth:`LoggedFields.of` turns into the record again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields
from typing import Any, ClassVar, Self, cast


class LoggedFields:
    """Mixin of a frozen dataclass: built from itself, a mapping of its fields or None, and
    recorded as that mapping."""

    FIELDS_NAME: ClassVar[str] = "fields"
    """What an unknown key is called in the error (``unknown <FIELDS_NAME> [...]``)."""

    @classmethod
    def of(cls, value: Self | Mapping[str, Any] | None) -> Self:
        """The record from a record, a mapping of its fields (as an eval log records it, so
        `inspect score LOG` rebuilds it), or None (the defaults).

        Raises:
            ValueError: for a mapping key that is not a field, or a value the record refuses.
        """
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        mapping = cast(Mapping[str, Any], value)
        known = {f.name for f in fields(cast(Any, cls))}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ValueError(f"unknown {cls.FIELDS_NAME} {unknown}; known: {sorted(known)}")
        return cls(**mapping)

    def _repr_params_(self) -> dict[str, Any]:
        """The record as a mapping: what an eval log records for a scorer that takes it
        (Inspect calls this on scorer arguments), so `inspect score LOG` rebuilds it through
        :meth:`of`."""
        record: dict[str, Any] = asdict(cast(Any, self))
        return record
