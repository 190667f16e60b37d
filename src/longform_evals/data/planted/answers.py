"""The planted rater set (`data/raters/planted_answers.jsonl`).

Free-form reading-comprehension answers whose correct rating is known, for calibrating the
decision thresholds of the answer raters (the strict YES/NO rater and the permissive
Yes / Yes, partially / No rater) on P(yes). A small grader says "Yes" to nearly everything, so
its threshold has to be set on answers planted to be right, partly right and wrong.

The set was written by hand for this project. The novels, films, meetings and people are
invented; no question, reference or answer is copied or adapted from NarrativeQA, QMSum or any
other source. There are 40 questions: 24 `narrative` ones in the style of NarrativeQA (a question
about a plot, a reference of 3 to 20 words) and 16 `meeting` ones in the style of QMSum ("What did
the group decide about ...?", "Summarize the discussion about ...", a reference of 2 to 4
sentences). Each question has five answers, one of each kind, in a shuffled order:

- label `exact`, kind `paraphrase`: the reference's content in other words, nothing added or
  left out.
- label `exact`, kind `verbose`: the same content plus harmless restatement (of the question,
  say) and no new claim.
- label `partial`, kind `incomplete`: one essential part right and another left out, or (for a
  one-part reference) a vaguer answer that points at the right thing.
- label `wrong`, kind `contradiction`: a fluent answer of about the reference's length, sharing
  much of its wording, that states something different (another person, reason, number or
  decision).
- label `off`, kind `non_answer`: no answer; it says the text does not say, answers another
  question, or makes a generic remark.

A strict rater should accept `exact` answers only (`PlantedAnswer.exact`); a permissive rater
should accept `exact` and `partial` ones (`PlantedAnswer.at_least_partial`).

**Split:** questions `q01`-`q20` are `"calibration"` (tune prompts and thresholds on them) and
`q21`-`q40` are `"test"` (hold them out for reporting). Each split has 12 narrative and 8 meeting
questions, so 100 answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, cast

from longform_evals.data.files import check_file
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import DataError, jsonl_records, require_text

Label = Literal["exact", "partial", "wrong", "off"]

LABELS: tuple[Label, ...] = ("exact", "partial", "wrong", "off")
SPLITS: tuple[str, ...] = ("calibration", "test")
QUESTION_KINDS: tuple[str, ...] = ("narrative", "meeting")

_QUESTION_FIELDS = ("id", "split", "kind", "question", "reference", "answers")
_ANSWER_FIELDS = ("label", "kind", "text")


@dataclass(frozen=True)
class PlantedAnswer:
    question_id: str
    split: str
    kind: str
    question: str
    reference: str
    label: Label
    answer_kind: str
    text: str

    @property
    def exact(self) -> bool:
        """A strict rater should accept this answer."""
        return self.label == "exact"

    @property
    def at_least_partial(self) -> bool:
        """A permissive rater should accept this answer (fully or partly)."""
        return self.label in ("exact", "partial")


def bundled_planted_answers() -> Path:
    """Path of the packaged planted rater set."""
    return Path(
        str(
            resources.files("longform_evals.data")
            .joinpath("raters")
            .joinpath("planted_answers.jsonl")
        )
    )


def _choice(record: dict[str, Any], field: str, allowed: tuple[str, ...], where: str) -> str:
    value = require_text(record, field, where)
    if value not in allowed:
        raise DataError(f"{where}: unknown {field} {value!r} (expected one of {list(allowed)})")
    return value


def load_planted_answers(
    path: str | Path | None = None, split: str | None = None
) -> list[PlantedAnswer]:
    """Read the planted set (the packaged one by default), one item per answer in file order.

    Args:
        path: a JSONL file in the format of `data/raters/planted_answers.jsonl`.
        split: `None` for every question, else `"calibration"` or `"test"`.

    Raises:
        ValueError: for a `split` other than those.
        DataError: naming the line, question id and field of a malformed record (a missing
            field, an unknown split, kind or label, a duplicate id, or a question without at
            least one answer of each label).
    """
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected None or one of {list(SPLITS)}")
    source = check_file(
        Path(path) if path is not None else bundled_planted_answers(), "planted-answers JSONL file"
    )
    answers: list[PlantedAnswer] = []
    seen: set[str] = set()
    ids = SampleIds()
    for line, record in jsonl_records(source):
        where = f"{source}:{line}"
        question_id = ids.add(require_text(record, "id", where), where)
        where = f"{where} (question {question_id})"
        missing = [f for f in _QUESTION_FIELDS if f not in record]
        if missing:
            raise DataError(f"{where}: missing field(s) {missing}")
        seen.add(question_id)
        record_split = _choice(record, "split", SPLITS, where)
        kind = _choice(record, "kind", QUESTION_KINDS, where)
        question = require_text(record, "question", where)
        reference = require_text(record, "reference", where)
        raw_answers = record["answers"]
        if not isinstance(raw_answers, list) or not raw_answers:
            raise DataError(f"{where}: field 'answers' must be a non-empty list")
        parsed: list[PlantedAnswer] = []
        for index, raw in enumerate(raw_answers):
            at = f"{where} answers[{index}]"
            if not isinstance(raw, dict):
                raise DataError(f"{at}: expected a JSON object, got {raw!r}")
            absent = [f for f in _ANSWER_FIELDS if f not in raw]
            if absent:
                raise DataError(f"{at}: missing field(s) {absent}")
            label = cast(Label, _choice(raw, "label", LABELS, at))
            parsed.append(
                PlantedAnswer(
                    question_id=question_id,
                    split=record_split,
                    kind=kind,
                    question=question,
                    reference=reference,
                    label=label,
                    answer_kind=require_text(raw, "kind", at),
                    text=require_text(raw, "text", at),
                )
            )
        lacking = [label for label in LABELS if all(a.label != label for a in parsed)]
        if lacking:
            raise DataError(f"{where}: field 'answers' has no answer labelled {lacking}")
        if split is None or record_split == split:
            answers.extend(parsed)
    if not seen:
        raise DataError(f"{source}: holds no planted questions (only blank lines)")
    return answers
