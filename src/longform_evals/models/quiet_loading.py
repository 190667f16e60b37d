"""Loading a transformers model without the `Loading weights` bar transformers draws.

BERTScore's model, MiniCheck and the sentence embedder are loaded by transformers, which draws
a progress bar over the weights on stderr even for a local folder read in a fraction of a
second: noise in a command's output (`longform check`, `longform snapshot`) and in a user's
test suite. The package loads them inside :func:`quiet_loading`, which turns transformers'
bars off for the load and back on after, where they were on.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["quiet_loading"]

_LOCK = threading.Lock()
_depth = 0
_restore = False


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Load transformers models in the block without their progress bars (nested and
    concurrent blocks are fine: the bars come back when the last one ends)."""
    global _depth, _restore
    try:
        # (as Any: transformers' switches are untyped)
        hf_logging: Any = importlib.import_module("transformers.utils.logging")
    except ImportError:  # no transformers: nothing draws a bar
        yield
        return
    with _LOCK:
        if _depth == 0:
            _restore = hf_logging.is_progress_bar_enabled()
            if _restore:
                hf_logging.disable_progress_bar()
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0 and _restore:
                hf_logging.enable_progress_bar()
