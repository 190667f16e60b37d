"""The suite's BooookScore chunker cuts the bundled books where the official package's does.

The official side is `booookscore.chunk.process_books` (booookscore 0.1.3, run in the reference
env of benchmarks/reference_env.py, so with tiktoken's cl100k, byte-identical to the ranks
quicktok gives the suite): the book's non-empty lines, packed into chunks joined by newlines.
The suite's side is `longform_evals.text.chunk_text` on the same text, as the summarizers call
it. A suite chunk is compared by its non-empty lines, joined the official way.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import load_benchmark_script
from longform_evals.data.books import load_books
from longform_evals.text import chunk_text

SIZES = (512, 2048)

# `process_books` reads the module-global `args` its __main__ sets (a bug of 0.1.3, listed in
# reference_env.NOT_PATCHED): set it as __main__ does with default flags.
_OFFICIAL = """
import json, sys
from argparse import Namespace
import booookscore.chunk as chunk
chunk.args = Namespace(include_empty_lines=False)
books = json.load(open(sys.argv[1]))
out = {size: chunk.process_books(books, int(size), f"{sys.argv[2]}-{size}.pkl")
       for size in sys.argv[3:]}
json.dump(out, open(sys.argv[2], "w"))
"""


@pytest.fixture(scope="module")
def reference() -> Any:
    module: ModuleType = load_benchmark_script("reference_env")
    try:
        return module.ensure_reference_env()
    except module.PipInstallError as exc:
        pytest.skip(f"the reference env cannot be built here: {exc}")


def _lines(text: str) -> list[str]:
    # process_books: doc.split("\n"), keeping lines with len(p) > 0.
    return [line for line in text.split("\n") if len(line) > 0]


def _first_difference(ours: list[str], theirs: list[str]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            pairs = enumerate(zip(a, b, strict=False))
            at = next((k for k, (x, y) in pairs if x != y), min(len(a), len(b)))
            near = slice(max(0, at - 50), at + 50)
            return f"chunk {i} differs at {at}: suite {a[near]!r}, official {b[near]!r}"
    return f"suite has {len(ours)} chunks, official {len(theirs)}"


def test_the_suite_chunks_the_bundled_books_as_the_official_package(
    reference: Any, tmp_path: Path
) -> None:
    books = {str(s.id): s.metadata["document"] for s in load_books()}  # type: ignore[index]
    source, out = tmp_path / "books.json", tmp_path / "chunks.json"
    source.write_text(json.dumps(books))
    reference.run(_OFFICIAL, args=[str(source), str(out), *map(str, SIZES)])
    official = json.loads(out.read_text())
    compared, problems = 0, []
    for size in SIZES:
        for book, text in books.items():
            ours = ["\n".join(_lines(c.text)) for c in chunk_text(text, size)]
            theirs = official[str(size)][book]
            compared += len(theirs)
            if ours != theirs:
                problems.append(f"{book} at {size}: {_first_difference(ours, theirs)}")
    assert not problems, "\n".join(problems)
    assert compared >= 2 * len(SIZES)  # both books, both sizes, at least one chunk each
