"""benchmarks/check_mutations.py: every planted bug still applies to the package as it is (the
text it replaces occurs exactly once in its file), so none is silently left out of the score
when the code it plants into moves; the documented run only plants one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import load_benchmark_script

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "longform_evals"
MUTATIONS = load_benchmark_script("check_mutations").MUTATIONS


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_the_planted_text_is_in_its_file_once(mutation: Any) -> None:
    source = (PACKAGE / mutation.file).read_text(encoding="utf-8")
    assert source.count(mutation.old) == 1, mutation
