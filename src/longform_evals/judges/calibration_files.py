"""Finding and reading a judge model's calibration file.

Calibration files are JSON, named `<kind>_<model stem>.json` and packaged in
`judges/calibration/` (`faithfulness_qwen2.5-coder-1.5b.json`, `raters_...`,
`coherence_probe_...`); a user may pass a file of their own instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from longform_evals.models.gguf_files import packaged_equivalent

__all__ = ["calibration_name", "load_calibration_file", "read_calibration"]

C = TypeVar("C")


def calibration_name(model: str) -> str:
    """File stem of a judge's calibration: `gguf/qwen2.5-coder-1.5b` -> `qwen2.5-coder-1.5b`;
    a served packaged model (`openai-api/<service>/qwen2.5-coder-1.5b`) has the packaged one's."""
    model = packaged_equivalent(model) or model
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model.split("/", 1)[-1])


def read_calibration(kind: str, model: str, path: str | None = None) -> tuple[Any, str] | None:
    """The parsed JSON of `path`, else of the packaged `<kind>_<model>.json`, with its source
    (`path`, or `packaged <name>`); None when no file is packaged for the model.

    Raises:
        FileNotFoundError: if `path` is given and does not exist.
        ValueError: if the file is not JSON (json.JSONDecodeError).
    """
    if path is not None:
        return json.loads(Path(path).read_text(encoding="utf-8")), path
    name = f"{kind}_{calibration_name(model)}.json"
    resource = resources.files("longform_evals.judges").joinpath(f"calibration/{name}")
    if not resource.is_file():
        return None
    return json.loads(resource.read_text(encoding="utf-8")), f"packaged {name}"


def load_calibration_file(
    kind: str, model: str, path: str | None, parse: Callable[[Any, str], C], uncalibrated: C
) -> C:
    """``parse(data, source)`` of the calibration :func:`read_calibration` finds, or
    ``uncalibrated`` when none is packaged for the model.

    Raises:
        FileNotFoundError: if `path` is given and does not exist.
        ValueError: if the file is not JSON, or ``parse`` finds it malformed.
    """
    found = read_calibration(kind, model, path)
    return uncalibrated if found is None else parse(*found)
