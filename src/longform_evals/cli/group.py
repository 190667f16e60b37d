"""The `longform` command group, and what its commands share."""

from __future__ import annotations

from typing import Any

import click
import yaml

DEFAULT_LOCAL_MODEL = "gguf/qwen2.5-coder-1.5b"


@click.group()
@click.version_option(package_name="longform-evals")
def main() -> None:
    """longform-evals: evaluations of long-document summarization and reading."""


def parse_key_values(pairs: tuple[str, ...], option: str) -> dict[str, Any]:
    """`("n_ctx=8192", "path=/m.gguf")` -> `{"n_ctx": 8192, "path": "/m.gguf"}`; values are
    read as YAML scalars, as Inspect reads `-M` and `-T`."""
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{option} {pair!r}: expected KEY=VALUE")
        values[key.strip()] = yaml.safe_load(value) if value.strip() else value
    return values
