"""The bundled planted rater set: sizes, labels, splits and the loader's errors.

See the docstring of longform_evals.data.planted.answers for what the set is and how it is used.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from longform_evals.data.jsonl import DataError
from longform_evals.data.planted.answers import (
    PlantedAnswer,
    bundled_planted_answers,
    load_planted_answers,
)

ANSWER_KINDS = {
    "paraphrase": "exact",
    "verbose": "exact",
    "incomplete": "partial",
    "contradiction": "wrong",
    "non_answer": "off",
}

ANSWERS = load_planted_answers()


def _by_question(answers: list[PlantedAnswer]) -> dict[str, list[PlantedAnswer]]:
    grouped: dict[str, list[PlantedAnswer]] = {}
    for answer in answers:
        grouped.setdefault(answer.question_id, []).append(answer)
    return grouped


def _words(text: str) -> int:
    return len(text.split())


def test_bundled_file_is_packaged() -> None:
    path = bundled_planted_answers()
    assert path.name == "planted_answers.jsonl"
    assert path.parent.name == "raters"
    assert path.is_file()


def test_sizes_and_splits() -> None:
    assert len(ANSWERS) == 200
    questions = _by_question(ANSWERS)
    assert list(questions) == [f"q{i:02d}" for i in range(1, 41)]
    assert Counter(a.split for a in ANSWERS) == {"calibration": 100, "test": 100}
    for qid, answers in questions.items():
        expected = "calibration" if int(qid[1:]) <= 20 else "test"
        assert {a.split for a in answers} == {expected}
    for split in ("calibration", "test"):
        kinds = Counter(a[0].kind for a in questions.values() if a[0].split == split)
        assert kinds == {"narrative": 12, "meeting": 8}


@pytest.mark.parametrize("qid", sorted(_by_question(ANSWERS)))
def test_each_question_has_one_answer_of_each_kind(qid: str) -> None:
    answers = _by_question(ANSWERS)[qid]
    assert Counter(a.label for a in answers) == {"exact": 2, "partial": 1, "wrong": 1, "off": 1}
    assert {a.answer_kind: a.label for a in answers} == ANSWER_KINDS
    assert len({a.reference for a in answers}) == 1
    assert len({a.question for a in answers}) == 1
    reference = answers[0].reference
    for answer in answers:
        assert answer.text.strip() != reference.strip()
        assert answer.text.strip().lower() != reference.strip().lower()
    if answers[0].kind == "narrative":
        assert 3 <= _words(reference) <= 20
    else:
        assert 40 <= _words(reference) <= 90


def test_answer_orders_are_shuffled() -> None:
    orders = {tuple(a.answer_kind for a in answers) for answers in _by_question(ANSWERS).values()}
    assert len(orders) == 40


def test_properties() -> None:
    for answer in ANSWERS:
        assert answer.exact == (answer.label == "exact")
        assert answer.at_least_partial == (answer.label in ("exact", "partial"))
    assert sum(a.exact for a in ANSWERS) == 80
    assert sum(a.at_least_partial for a in ANSWERS) == 120


def test_split_filter() -> None:
    calibration = load_planted_answers(split="calibration")
    test = load_planted_answers(split="test")
    assert len(calibration) == len(test) == 100
    assert {a.split for a in calibration} == {"calibration"}
    assert {a.split for a in test} == {"test"}
    assert calibration + test == ANSWERS
    assert load_planted_answers(bundled_planted_answers(), split=None) == ANSWERS


def test_bad_split_raises() -> None:
    with pytest.raises(ValueError, match="calibration") as info:
        load_planted_answers(split="dev")
    assert not isinstance(info.value, DataError)


def _record(qid: str = "q01") -> dict[str, Any]:
    return {
        "id": qid,
        "split": "calibration",
        "kind": "narrative",
        "question": "Who rings the bell?",
        "reference": "The blind ferryman, Osric.",
        "answers": [
            {"label": "exact", "kind": "paraphrase", "text": "Osric, the blind ferryman."},
            {"label": "partial", "kind": "incomplete", "text": "a ferryman"},
            {"label": "wrong", "kind": "contradiction", "text": "The blind miller, Osric."},
            {"label": "off", "kind": "non_answer", "text": "The book does not say."},
        ],
    }


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "planted.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_minimal_file_loads(tmp_path: Path) -> None:
    answers = load_planted_answers(_write(tmp_path, [_record()]))
    assert [a.label for a in answers] == ["exact", "partial", "wrong", "off"]
    assert answers[0] == PlantedAnswer(
        question_id="q01",
        split="calibration",
        kind="narrative",
        question="Who rings the bell?",
        reference="The blind ferryman, Osric.",
        label="exact",
        answer_kind="paraphrase",
        text="Osric, the blind ferryman.",
    )
    assert load_planted_answers(_write(tmp_path, [_record()]), split="test") == []


def test_unknown_label(tmp_path: Path) -> None:
    record = _record()
    record["answers"][1]["label"] = "half"
    with pytest.raises(DataError, match=r":1 \(question q01\) answers\[1\]: unknown label 'half'"):
        load_planted_answers(_write(tmp_path, [record]))


def test_missing_field(tmp_path: Path) -> None:
    record = _record("q02")
    del record["reference"]
    with pytest.raises(DataError, match=r":2 \(question q02\): missing field.*'reference'"):
        load_planted_answers(_write(tmp_path, [_record(), record]))


def test_missing_answer_field(tmp_path: Path) -> None:
    record = _record()
    del record["answers"][2]["text"]
    with pytest.raises(DataError, match=r"answers\[2\]: missing field.*'text'"):
        load_planted_answers(_write(tmp_path, [record]))


def test_missing_id(tmp_path: Path) -> None:
    record = _record()
    del record["id"]
    with pytest.raises(DataError, match=r"planted.jsonl:1: missing or empty field 'id'"):
        load_planted_answers(_write(tmp_path, [record]))


def test_duplicate_id(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r":2: id 'q01' already used at .*:1"):
        load_planted_answers(_write(tmp_path, [_record(), {**_record(), "question": "Who?"}]))


def test_missing_label(tmp_path: Path) -> None:
    record = _record()
    record["answers"] = [a for a in record["answers"] if a["label"] != "wrong"]
    with pytest.raises(DataError, match=r"no answer labelled \['wrong'\]"):
        load_planted_answers(_write(tmp_path, [record]))


def test_unknown_split_in_file(tmp_path: Path) -> None:
    record = _record()
    record["split"] = "train"
    with pytest.raises(DataError, match=r"unknown split 'train'"):
        load_planted_answers(_write(tmp_path, [record]))


def test_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "planted.jsonl"
    path.write_text(json.dumps(_record()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=r":2: not valid JSON"):
        load_planted_answers(path)
