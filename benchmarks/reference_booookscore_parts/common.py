"""What the parts share: their names and the official prompt files they read, the run's
options, the model both sides talk to, and one measured run with its model usage."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from longform_evals.data.books import bundled_books_dir

from .verdicts import Verdict

PARTS = ("chunks", "summarizing", "scoring")  # the order they run in
STRATEGIES = {"hierarchical": "hier", "incremental": "inc"}  # suite name: official method


# What each part reads from --official-prompts, by role: the accepted file names, first the
# one the package's code opens (score.py's __main__ opens get_annotations_v2.txt, the repository
# ships get_gpt4_annotations_v2.txt).
OFFICIAL_FILES: dict[str, tuple[str, ...]] = {
    "v1": ("get_annotations.txt",),
    "v2": ("get_annotations_v2.txt", "get_gpt4_annotations_v2.txt"),
    "hier/init": ("get_summaries_hier/init.txt",),
    "hier/merge": ("get_summaries_hier/merge.txt",),
    "hier/merge_context": ("get_summaries_hier/merge_context.txt",),
    "inc/init": ("get_summaries_inc/init.txt",),
    "inc/intermediate": ("get_summaries_inc/intermediate.txt",),
    "inc/compress": ("get_summaries_inc/compress.txt",),
}
PART_FILES: dict[str, tuple[str, ...]] = {
    "chunks": (),
    "summarizing": tuple(k for k in OFFICIAL_FILES if "/" in k),
    "scoring": ("v1", "v2"),
}


class OfficialPromptsError(SystemExit):
    """The official prompts are not given, or lack files a chosen part reads."""


def find_official_prompts(folder: Path | None, parts: Sequence[str]) -> dict[str, Path]:
    """The official prompt files the chosen parts read, by role.

    Raises:
        OfficialPromptsError: naming the folder and every missing file.
    """
    roles = [role for part in parts for role in PART_FILES[part]]
    if not roles:
        return {}
    wanted = ", ".join(OFFICIAL_FILES[role][-1] for role in roles)
    needing = [p for p in parts if PART_FILES[p]]
    if folder is None:
        raise OfficialPromptsError(
            f"--official-prompts DIR is needed for the parts {', '.join(needing)}: "
            "the prompts/ folder of a checkout of https://github.com/lilakk/BooookScore (the "
            f"package does not ship its prompts), holding {wanted}"
        )
    found, missing = {}, []
    for role in roles:
        paths = [folder / name for name in OFFICIAL_FILES[role]]
        hit = next((p for p in paths if p.is_file()), None)
        if hit is None:
            missing.append(" or ".join(str(p) for p in paths))
        else:
            found[role] = hit
    if missing:
        raise OfficialPromptsError(
            f"--official-prompts {folder} lacks {len(missing)} file(s) the parts "
            f"{', '.join(parts)} read: " + "; ".join(missing)
        )
    return found


@dataclass(frozen=True)
class Endpoint:
    """The served model both sides talk to."""

    base_url: str  # ends in /v1
    alias: str

    def inspect_model(self) -> Model:
        # The documented route (docs/running.md), one Model per server: memoize would keep the
        # first server's address.
        os.environ["LONGFORM_BASE_URL"] = self.base_url
        os.environ["LONGFORM_API_KEY"] = "local"
        return get_model(
            f"openai-api/longform/{self.alias}",
            base_url=self.base_url,
            api_key="local",
            memoize=False,
        )


@dataclass(frozen=True)
class Usage:
    """Model calls and the server's token counts."""

    calls: int = 0
    prompt_tokens: int = 0  # sent
    processed_tokens: int = 0  # sent minus read from the server's prompt cache
    output_tokens: int = 0

    @classmethod
    def of_official(cls, calls: Sequence[Mapping[str, Any]]) -> Usage:
        return cls(
            calls=len(calls),
            prompt_tokens=sum(c["prompt_tokens"] for c in calls),
            processed_tokens=sum(c["prompt_tokens"] - c["cached_tokens"] for c in calls),
            output_tokens=sum(c["completion_tokens"] for c in calls),
        )

    @classmethod
    def of_log(cls, log: EvalLog) -> Usage:
        usages = log.stats.model_usage.values()
        calls = sum(isinstance(e, ModelEvent) for s in log.samples or [] for e in s.events or [])
        return cls(
            calls=calls,
            prompt_tokens=sum(u.input_tokens + (u.input_tokens_cache_read or 0) for u in usages),
            processed_tokens=sum(u.input_tokens for u in usages),
            output_tokens=sum(u.output_tokens for u in usages),
        )


@dataclass
class Run:
    """One measured run over one summary (scoring) or one book (summarizing)."""

    name: str
    seconds: float
    usage: Usage
    booookscore: float = math.nan
    verdicts: list[Verdict] = field(default_factory=list)
    summary: str = ""
    notes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def read(self) -> int:
        return sum(v.parsed for v in self.verdicts)

    @property
    def flagged(self) -> int:
        return sum(v.parsed and v.flagged for v in self.verdicts)


@dataclass(frozen=True)
class Options:
    """The run's settings (from the command line)."""

    model: str = "qwen2.5-coder-0.5b"
    book: str = "the_frost_hold"
    chunk_size: int = 2048
    context_window: int = 8192
    max_summary_tokens: int = 900
    batch_size: int = 10
    max_attempts: int = 3
    parallel: int = 1
    chunk_sizes: tuple[int, ...] = (2048, 4096)


@contextmanager
def served(options: Options) -> Iterator[Endpoint]:
    """A fresh server (cold prompt cache) for one run."""
    from longform_evals.models.serve import ServedModel, ServeSettings

    server = ServedModel(ServeSettings(options.model, port=0, n_parallel=options.parallel))
    try:
        yield Endpoint(server.base_url, server.alias)
    finally:
        server.stop()


def book_path(book: str) -> Path:
    path = Path(book)
    return path if path.suffix == ".txt" and path.is_file() else bundled_books_dir() / f"{book}.txt"
