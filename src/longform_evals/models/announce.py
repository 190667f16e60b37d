"""Warnings said once per process: a run with a thousand judge calls says a thing once.

Inspect shows warnings in its display (also with `--display plain` and in CI) and keeps them
in the log, so a condition worth telling the user about is logged as a warning the first time
its key is seen, and never again in that process.
"""

from __future__ import annotations

import logging
import threading

__all__ = ["announce"]

logger = logging.getLogger(__name__)

_LOCK = threading.Lock()
_ANNOUNCED: set[tuple[str, ...]] = set()


def announce(key: tuple[str, ...], message: str) -> bool:
    """Log `message` as a warning the first time `key` is seen in this process; True if it
    was logged now."""
    with _LOCK:
        if key in _ANNOUNCED:
            return False
        _ANNOUNCED.add(key)
    logger.warning(message)
    return True
