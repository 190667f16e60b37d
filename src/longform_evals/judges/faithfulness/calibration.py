"""Calibrated settings of the LLM faithfulness judge, stored per judge model.

A calibration file (`judges/calibration/faithfulness_<model>.json`, made by
`benchmarks/faithfulness_judge.py --calibrate`) records the prompt and document chunking that
worked best for a judge model, the units it reads per sentence (`all`, or `<retriever>:<k>`:
`retrieval.py`), and the decision thresholds on its P(yes) support values chosen on
the calibration split of the project's planted set (never on data that is reported): one for
single sentences and one per summary aggregation. Judges without a file run with the neutral
defaults (prompt `judge`, natural documents, threshold 0.5), and scores say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product

from longform_evals.analysis import MERGES
from longform_evals.judges.calibration_files import load_calibration_file
from longform_evals.judges.faithfulness.retrieval import Retrieval

SUMMARY_AGGREGATIONS: tuple[str, ...] = tuple(f"{d}_{s}" for d, s in product(MERGES, MERGES))
"""AGG_D-then-AGG_S aggregations, named `<doc merge>_<sentence merge>`."""

NEUTRAL_THRESHOLD = 0.5


@dataclass(frozen=True)
class JudgeCalibration:
    """What a calibration file says about one judge model.

    Attributes:
        source: where it came from (`packaged faithfulness_<model>.json`, a path, or
            `uncalibrated`).
        prompt: the faithfulness template found best.
        chunking: the document chunking found best.
        retrieval: the source units the judge reads per sentence (`all`, or
            `<retriever>:<k>`), chosen for it on people's labels; the judge's default (files
            without the key were made reading every unit; the file's `selection` says how
            the thresholds relate to it).
        sentence_threshold: P(yes) at or above which a single sentence counts as supported.
        thresholds: per aggregation (`max_mean`, ..., `full_mean` ...), the summary score at or
            above which a summary counts as faithful.
    """

    source: str
    prompt: str = "judge"
    chunking: str = "natural"
    retrieval: str = "all"
    sentence_threshold: float = NEUTRAL_THRESHOLD
    thresholds: dict[str, float] = field(default_factory=dict)

    @property
    def calibrated(self) -> bool:
        return self.source != "uncalibrated"

    def threshold(self, aggregation: str) -> float:
        """The summary-level threshold of an aggregation (`full_x` uses `max_x`: one unit)."""
        if aggregation.startswith("full_"):
            aggregation = "max_" + aggregation.removeprefix("full_")
        return self.thresholds.get(aggregation, self.sentence_threshold)


def _parse(data: dict[str, object], source: str) -> JudgeCalibration:
    try:
        thresholds = {str(k): float(v) for k, v in dict(data["thresholds"]).items()}  # type: ignore[call-overload]
        return JudgeCalibration(
            source=source,
            prompt=str(data["prompt"]),
            chunking=str(data["chunking"]),
            retrieval=Retrieval.parse(str(data.get("retrieval", "all"))).spec,
            sentence_threshold=float(data["sentence_threshold"]),  # type: ignore[arg-type]
            thresholds=thresholds,
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(
            f"faithfulness calibration {source} is malformed ({err!r}); it needs prompt, "
            "chunking, sentence_threshold and thresholds"
        ) from err


@lru_cache(maxsize=16)
def load_calibration(model: str, path: str | None = None) -> JudgeCalibration:
    """The calibration of a judge model (`gguf/qwen2.5-coder-1.5b`), or of an explicit file;
    errors as :func:`~longform_evals.judges.calibration_files.load_calibration_file`."""
    uncalibrated = JudgeCalibration(source="uncalibrated")
    return load_calibration_file("faithfulness", model, path, _parse, uncalibrated)
