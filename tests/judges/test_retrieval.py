"""Retrieve, then verify: a support judge asked only about the source units most related to
each sentence (`judges/faithfulness/retrieval.py`), through the faithfulness scorer end to end."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample

from helpers import judges_added
from longform_evals.judges.faithfulness.calibration import JudgeCalibration
from longform_evals.judges.faithfulness.retrieval import Retrieval
from longform_evals.judges.faithfulness.support import (
    JudgeOptions,
    JudgeSetup,
    SupportJudgement,
)
from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.tasks.longformfact import longformfact

UNITS = [
    "The harbour froze in January and the ferries stopped.",
    "Mara repaired the lighthouse lamp with a borrowed lens.",
    "The council voted to build a new school near the mill.",
    "Wolves were seen on the northern ridge after the storm.",
]
SOURCE = " ".join(UNITS)
_WORD = re.compile(r"[a-z]+")


class Overlap:
    """Support = share of the sentence's words in the unit; every call counted. A `noisy` one
    answers a unit sharing no word with the sentence by chance: 0.2 x the unit's position, as a
    small judge's P(yes) wanders on text that has nothing to do with the sentence."""

    calls: ClassVar[list[tuple[str, str]]] = []

    def __init__(
        self, options: JudgeOptions, noisy: bool = False, calibrated_on: str = "all"
    ) -> None:
        self.noisy = noisy
        self.calibrated_on = calibrated_on

    def setup(self) -> JudgeSetup:
        calibration = JudgeCalibration("none (word overlap)", retrieval=self.calibrated_on)
        return JudgeSetup("overlap", calibration, None, "natural")

    async def support_rows(
        self, setup: JudgeSetup, texts: list[str], sentences: list[str]
    ) -> list[list[SupportJudgement]]:
        rows = []
        for text in texts:
            seen = set(_WORD.findall(text.lower()))
            row = []
            for s in sentences:
                Overlap.calls.append((text, s))
                words = _WORD.findall(s.lower())
                share = sum(w in seen for w in words) / max(1, len(words))
                if self.noisy and share == 0:
                    share = 0.2 * UNITS.index(text.strip())
                row.append(SupportJudgement(share, "overlap", f"{share:.2f}"))
            rows.append(row)
        return rows


@pytest.fixture(autouse=True)
def overlap() -> Iterator[None]:
    Overlap.calls = []
    judges = {
        "overlap": Overlap,
        "noisy": lambda o: Overlap(o, noisy=True),
        "bm25-calibrated": lambda o: Overlap(o, calibrated_on="bm25:1"),
    }
    with judges_added("faithfulness", **judges):
        yield


def _score(summary: str, retrieval: str | None, judge: str = "overlap") -> dict[str, Any]:
    sample = Sample(
        id="s", input="Summarize.", metadata={"documents": [SOURCE], "summary": summary}
    )
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=given_summary(),
        scorer=faithfulness(
            judge=judge, chunking="words:12", judge_options={"retrieval": retrieval}
        ),
    )
    [log] = inspect_eval(task, model="scripted/x", model_args={"default_response": "-"},
                         display="none", log_dir=tempfile.mkdtemp())  # fmt: skip
    assert log.status == "success", log.error
    assert log.samples and log.samples[0].scores
    score = log.samples[0].scores["faithfulness"]
    assert isinstance(score.value, dict) and score.metadata is not None
    return {**score.value, "metadata": score.metadata}


def test_the_spec_parses_and_bad_ones_are_refused() -> None:
    assert Retrieval.parse(None) == Retrieval.parse("all") == Retrieval()
    assert Retrieval.parse("bm25:3") == Retrieval("bm25", 3)
    assert Retrieval.parse("fused:2").spec == "fused:2" and Retrieval().spec == "all"
    for bad in ("bm25", "bm25:0", "tfidf:3", "all:2", "bm25:x"):
        with pytest.raises(ValueError, match=r"retrieval|k >= 1"):
            Retrieval.parse(bad)
    with pytest.raises(ValueError, match="retrieval 'grep:1'"):
        longformfact(retrieval="grep:1")


def test_bm25_chooses_the_units_sharing_the_sentences_words() -> None:
    chosen = asyncio.run(Retrieval("bm25", 1).select(UNITS, ["Mara fixed the lamp.", "Wolves?"]))
    assert chosen == [[1], [3]]
    assert asyncio.run(Retrieval("bm25", 4).select(UNITS, ["x"])) is None  # k covers all
    assert asyncio.run(Retrieval().select(UNITS, ["x"])) is None


def test_embedding_and_fused_retrieval_find_a_paraphrase() -> None:
    pytest.importorskip("sentence_transformers")
    sentence = ["Grey wolves appeared on the hills once the weather cleared."]
    assert asyncio.run(Retrieval("embedding", 1).select(UNITS, sentence)) == [[3]]
    assert 3 in asyncio.run(Retrieval("fused", 2).select(UNITS, sentence))[0]  # type: ignore[index]


def test_fewer_calls_and_the_same_score_for_a_judge_that_reads_well(tmp_path: Path) -> None:
    summary = "Mara repaired the lighthouse lamp. The harbour froze in January."
    every = _score(summary, "all")
    calls_every = len(Overlap.calls)
    Overlap.calls = []
    retrieved = _score(summary, "bm25:1")
    assert len(Overlap.calls) == 2 and calls_every == 2 * 4
    assert retrieved["judge_calls"] == 2.0 and every["judge_calls"] == 8.0
    assert retrieved["faithfulness"] == every["faithfulness"] == 1.0
    assert retrieved["missing_rate"] == 0.0  # pairs not asked are not missing
    meta = retrieved["metadata"]
    assert meta["retrieval"] == "bm25:1" and meta["judge_card"] is None
    asked = [[s != "not_asked" for s in row] for row in meta["answer_sources"]]
    assert asked == [[False, True], [True, False], [False, False], [False, False]]


def test_retrieval_keeps_unrelated_units_from_vouching_for_a_wrong_sentence() -> None:
    # The sentence borrows two words of unit 1 and invents the rest. Reading every unit, the
    # max over units takes the noisy judge's chance "yes" on unrelated unit 3 (0.6); asked
    # only about the unit BM25 finds, the support is what that unit says (2 words of 6).
    wrong = "Lamp sank with seven golden ships."
    every = _score(wrong, "all", judge="noisy")["faithfulness"]
    retrieved = _score(wrong, "bm25:1", judge="noisy")["faithfulness"]
    assert every == pytest.approx(0.6) and retrieved == pytest.approx(2 / 6)
    # ... while a supported sentence keeps its full support either way
    right = "Mara repaired the lighthouse lamp."
    assert _score(right, "bm25:1", judge="noisy")["faithfulness"] == 1.0
    assert _score(right, "all", judge="noisy")["faithfulness"] == 1.0


def test_the_default_is_what_the_judges_calibration_was_chosen_under() -> None:
    summary = "Mara repaired the lighthouse lamp. The harbour froze in January."
    calibrated = _score(summary, None, judge="bm25-calibrated")
    assert calibrated["metadata"]["retrieval"] == "bm25:1" and calibrated["judge_calls"] == 2.0
    # an uncalibrated judge (and a calibration file without the key) reads every unit
    assert _score(summary, None)["metadata"]["retrieval"] == "all"
    # a setting given overrides the calibration's, and is recorded
    every = _score(summary, "all", judge="bm25-calibrated")
    assert every["metadata"]["retrieval"] == "all" and every["judge_calls"] == 8.0


def test_calibration_files_record_their_retrieval(tmp_path: Path) -> None:
    from longform_evals.judges.faithfulness.calibration import load_calibration

    base = {"prompt": "judge", "chunking": "words:400", "sentence_threshold": 0.6,
            "thresholds": {"max_mean": 0.7}}  # fmt: skip
    old, new, bad = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "bad.json"
    old.write_text(json.dumps(base))
    new.write_text(json.dumps({**base, "retrieval": "fused:2"}))
    bad.write_text(json.dumps({**base, "retrieval": "grep:2"}))
    assert load_calibration("m", str(old)).retrieval == "all"
    assert load_calibration("m", str(new)).retrieval == "fused:2"
    with pytest.raises(ValueError, match="grep"):
        load_calibration("m", str(bad))
