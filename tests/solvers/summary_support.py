"""Helpers for the solver tests: a deterministic book, prompt markers, scripted answers."""

from __future__ import annotations

import re
from collections.abc import Callable

# Text unique to each summarize/ template, for routing scripted rules.
CHUNK = r"Passage from the story:"
MERGE_CONTEXT = r"\(earlier context\):"
MERGE = r"Summaries of consecutive parts, in story order:"
INIT = r"Opening passage of the story:"
UPDATE = r"Next passage of the story:"
COMPRESS = r"Summary to shorten"
ARTIFACTS = r"Summary to clean:"
FULL = r"Text of the story:"

_ASKED = re.compile(r"(\d+) words")


def make_book(paragraphs: int, sentences: int = 6) -> str:
    """A deterministic book of numbered paragraphs."""
    return "\n\n".join(
        " ".join(
            f"In paragraph {p} sentence {s} Anna crossed the bridge to meet Tomas."
            for s in range(sentences)
        )
        for p in range(paragraphs)
    )


def words_asked(prompt: str) -> int:
    """The word count the prompt asks for (the last 'N words' in it)."""
    return int(_ASKED.findall(prompt)[-1])


def obedient(label: str, size: int = 12) -> Callable[[str, int], str]:
    """A response that respects the asked word count: ``size`` words or fewer, finished."""

    def respond(text: str, k: int) -> str:
        n = max(2, min(size, words_asked(text)))
        return " ".join([f"{label}{k}"] + ["word"] * (n - 2) + ["end."])

    return respond
