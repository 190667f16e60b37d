"""Few-shot demonstrations of the coherence judge, rendered for each answer format.

The demonstrations are data (`longform_evals/data/coherence/demonstrations.json`, written for
this project): two short summaries with a verdict for every sentence. They are rendered
into the judge prompt in the same shape the judge must answer in, so a one-sentence judge
sees "Questions:/Types:" answers and a batched judge sees JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from longform_evals.judges.coherence.error_types import ERROR_TYPES


@dataclass(frozen=True)
class AnnotatedSentence:
    sentence: str
    confused: bool
    questions: tuple[str, ...]
    types: tuple[str, ...]


@dataclass(frozen=True)
class Demonstration:
    title: str
    summary: str
    sentences: tuple[AnnotatedSentence, ...]


@lru_cache(maxsize=8)
def load_demonstrations(path: str | None = None) -> tuple[Demonstration, ...]:
    """The packaged demonstrations, or those in a JSON file of the same schema."""
    if path is None:
        text = (
            resources.files("longform_evals.data")
            .joinpath("coherence/demonstrations.json")
            .read_text(encoding="utf-8")
        )
        source = "packaged demonstrations.json"
    else:
        text = Path(path).read_text(encoding="utf-8")
        source = path
    data = json.loads(text)
    demos = []
    for d in data["demonstrations"]:
        sentences = []
        for s in d["sentences"]:
            bad = [t for t in s["types"] if t not in ERROR_TYPES]
            if bad:
                raise ValueError(f"{source}: unknown error types {bad} in demonstration")
            sentences.append(
                AnnotatedSentence(
                    s["sentence"], bool(s["confusion"]), tuple(s["questions"]), tuple(s["types"])
                )
            )
        demos.append(Demonstration(d["title"], d["summary"], tuple(sentences)))
    return tuple(demos)


def render_for_sentences(demos: tuple[Demonstration, ...], numbered: bool = False) -> str:
    """Demonstrations as one-sentence-at-a-time answers: each sentence quoted before its
    verdict, or (``numbered``) the summary one numbered sentence per line and each verdict
    headed by its sentence's number, as the numbered judge layout shows a summary."""
    blocks = []
    for n, demo in enumerate(demos, start=1):
        if numbered:
            lines = [f"Example {n}. Summary:", numbered_lines([s.sentence for s in demo.sentences])]
        else:
            lines = [f"Example {n}. Summary:", demo.summary]
        lines += ["", f"Verdicts for example {n}:"]
        for i, s in enumerate(demo.sentences, start=1):
            lines.append(f"Sentence {i}:" if numbered else f'Sentence: "{s.sentence}"')
            if s.confused:
                lines.append("Questions: " + " ".join(s.questions))
                lines.append("Types: " + ", ".join(s.types))
            else:
                lines.append("No confusion.")
            lines.append("")
        blocks.append("\n".join(lines).rstrip())
    return "\n\n".join(blocks)


def numbered_lines(sentences: list[str]) -> str:
    """Sentences one per line, each after its 1-based number (``3. The storm breaks.``)."""
    return "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, start=1))


def _batch_item(number: int, s: AnnotatedSentence) -> dict[str, object]:
    if not s.confused:
        return {"sentence": number, "confusion": False}
    return {
        "sentence": number,
        "confusion": True,
        "questions": list(s.questions),
        "types": list(s.types),
    }


def render_for_batches(demos: tuple[Demonstration, ...]) -> str:
    """Demonstrations as numbered sentences answered with one JSON list."""
    blocks = []
    for n, demo in enumerate(demos, start=1):
        numbered = numbered_lines([s.sentence for s in demo.sentences])
        answer = [_batch_item(i, s) for i, s in enumerate(demo.sentences, start=1)]
        blocks.append(
            f"Example {n}. Summary:\n{demo.summary}\n\nSentences to check:\n{numbered}\n\n"
            f"Answer:\n{json.dumps(answer, ensure_ascii=False)}"
        )
    return "\n\n".join(blocks)
