"""The BooookScore error taxonomy: the eight kinds of confusion a summary sentence can cause."""

from __future__ import annotations

import re

ERROR_TYPES: tuple[str, ...] = (
    "entity_omission",
    "event_omission",
    "causal_omission",
    "salience",
    "discontinuity",
    "duplication",
    "inconsistency",
    "language",
)

# Spellings judges actually produce, mapped to the canonical key. Anything else is unknown
# and makes the answer malformed (it is re-asked, then counted as a parse failure).
_ALIASES: dict[str, str] = {
    "entity omission": "entity_omission",
    "omitted entity": "entity_omission",
    "missing entity": "entity_omission",
    "event omission": "event_omission",
    "omitted event": "event_omission",
    "missing event": "event_omission",
    "causal omission": "causal_omission",
    "cause omission": "causal_omission",
    "omitted cause": "causal_omission",
    "missing cause": "causal_omission",
    "salience": "salience",
    "salient": "salience",
    "discontinuity": "discontinuity",
    "duplication": "duplication",
    "repetition": "duplication",
    "inconsistency": "inconsistency",
    "contradiction": "inconsistency",
    "language": "language",
    "language error": "language",
}


def normalize_type(name: str) -> str | None:
    """The canonical key for a judge's spelling of an error type, or None if unknown."""
    key = re.sub(r"[\s_\-]+", " ", name.strip().strip(".*`'\"[]()").lower()).strip()
    return _ALIASES.get(key)
