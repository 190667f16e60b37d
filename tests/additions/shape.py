"""What adding one thing to the package writes: new files and lines put into existing ones."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Insert:
    """``text`` put into the file ``path`` right after (or ``before``) each of the ``count``
    places where ``anchor`` (whole lines) is found."""

    path: str
    anchor: str
    text: str
    before: bool = False
    count: int = 1

    def apply(self, source: str) -> str:
        found = source.count(self.anchor)
        if found != self.count:
            raise AssertionError(
                f"{self.path}: {self.anchor!r} found {found} times, not {self.count}; "
                "the addition no longer fits the code it extends"
            )
        placed = self.text + self.anchor if self.before else self.anchor + self.text
        return source.replace(self.anchor, placed)


@dataclass(frozen=True)
class Addition:
    """One addition to a scratch copy of the repository.

    Args:
        kind: What is added, in words (a test id).
        name: Its name in its registry.
        files: New files, by path from the repository root.
        inserts: Lines put into existing files (its registry entry, its import).
        limit: The most files it may touch (docs/architecture.md; a prompt folder counts
            once), which the test asserts.
        matrix: Whether the estimate-vs-run matrix has cases named after it (strategies and
            coherence modes; a support judge is not one of its axes).
    """

    kind: str
    name: str
    files: dict[str, str]
    inserts: tuple[Insert, ...]
    limit: int
    matrix: bool = True
