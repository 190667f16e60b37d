"""NaN-ignoring reducers that stay silent on all-NaN slices (numpy's nan* functions warn)."""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

Merge = Literal["max", "mean", "min"]
"""How scores are merged: over documents (AGG_D) or over summary sentences (AGG_S)."""

MERGES: tuple[Merge, ...] = get_args(Merge)

FloatArray = npt.NDArray[np.float64]


def check_merge(merge: str) -> Merge:
    """Return ``merge`` typed as :data:`Merge`, or raise ValueError naming the valid choices."""
    for choice in MERGES:
        if merge == choice:
            return choice
    raise ValueError(f"unknown merge {merge!r}; expected one of {', '.join(MERGES)}")


def nan_reduce(x: FloatArray, merge: Merge, axis: int) -> FloatArray:
    """Reduce ``x`` along ``axis`` ignoring NaN; a slice with no readable value gives NaN.

    Args:
        x: Array of scores, NaN = missing.
        merge: ``"max"``, ``"mean"`` or ``"min"``.
        axis: Axis to reduce over.

    Returns:
        The reduced array (float64), NaN where the whole slice was NaN.
    """
    readable = ~np.isnan(x)
    count = readable.sum(axis=axis)
    if merge == "max":
        out = np.where(readable, x, -np.inf).max(axis=axis)
    elif merge == "min":
        out = np.where(readable, x, np.inf).min(axis=axis)
    else:
        # Divide only where something was read, so an empty slice never makes 0/0 warnings.
        total = np.where(readable, x, 0.0).sum(axis=axis)
        out = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    return np.where(count > 0, out, np.nan).astype(np.float64)


def nan_reduce_1d(x: FloatArray, merge: Merge) -> float:
    """Reduce a 1-D array to one float ignoring NaN; NaN when nothing is readable."""
    return float(nan_reduce(x, merge, axis=0))
