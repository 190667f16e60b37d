"""Judge answers as models write them, read by every yes/no reader of the judges: the text rule
(``parse_yes_no``, the raters' ``parse_verdict``), the log-probability reading (``read_yes_no``),
the joint probe layout (``p_yes_at_answers``), the batched coherence answer (``parse_batch``),
and the faithfulness judge and the LR-1 / LR-2 raters end to end on a scripted model.

Bad answers: a verdict word negated (in English, French, German, Spanish, Italian, Portuguese,
Russian, Turkish, Polish, Dutch, Swedish, Arabic, Hindi, Chinese, Korean), quoted, glued to
other characters or only mentioned; a verdict followed by the other one in another language;
a chosen token missing from its alternatives, alternatives listed twice or with two values, a
generated token at minus infinity, NaN or a positive log-probability at a later position, a
first token that contradicts the text; a batched item giving a key twice. Each must be
unreadable (``counted``); any reading of it is ``silent``. Valid answers (clean first-word
verdicts in several spellings, a chosen token absent from its alternatives, duplicated
alternatives, clean batched and joint answers) must be read right (``loaded``), else
``silent``.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fault_cases._case import Case

CLASS = "verdicts"
DESCRIPTION = "judge answers: negated, quoted, glued verdicts; logprob oddities; repeated keys"

_SEED = 4919

# Negated verdict words, one phrasing per language ({v}: the verdict word).
_NEGATED = [
    ("en", "Can't say {v}."),
    ("en", "Absolutely not {v}: the record shows another date."),
    ("fr", "Franchement pas {v}."),
    ("de", "Kein {v}, der Text sagt etwas anderes."),
    ("es", "Jamás diría {v}."),
    ("it", "Mai {v}."),
    ("pt", "Nunca {v}, o texto diz outra coisa."),
    ("ru", "Никак не {v}."),
    ("tr", "{v} değildir."),
    ("pl", "Na pewno nie {v}."),
    ("nl", "Geen {v}."),
    ("sv", "Inte {v}."),
    ("ar", "لن أقول {v}."),
    ("hi", "{v} बिल्कुल नहीं"),
    ("zh", "并不是 {v}。"),
    ("ko", "{v} 아닙니다."),
]
_MENTIONED = [
    "«{v}»",
    "'{v}' would be the wrong reply here.",
    'The reply "{v}" fits another claim; here the record disagrees.',
    "Per the text: \u201e{v}\u201c.",
    "`{v}`",
    "{v}-sayer talk aside, the claim fails.",
    "{v}\u200c",
    "{v}\u2060.",
    "{v}'s the word the note wants; the claim is unsupported.",
    "Reading it closely, {v}.",
]
_OTHER = {
    "yes": ["nein", "нет", "hayır", "いいえ", "non", "لا"],  # noqa: RUF001
    "no": ["oui", "да", "evet", "tak", "네", "ja"],
}
_DOUBLE = ["{v}; {o}.", "{v}... {o}.", "{v}, {o}!", "{v} ({o})"]
_CLEAN = [
    ("{v}.", None),
    ("**{v}** \u2014 the passage says so plainly.", "yes"),
    ("**{v}** \u2014 the passage gives another year.", "no"),
    ("Answer: {v}", None),
    ("{v}, the letter confirms it.", "yes"),
    ("{v}, nothing of that kind happens.", "no"),
    ("{v}. Ja, genau.", "yes"),
    ("{v}. Nein.", "no"),
    ("\n\n{v}\n", None),
]


def _spell(rng: random.Random, word: str) -> str:
    return rng.choice([word, word.upper(), word.capitalize()])


def _text_case(text: str, expect: str | None) -> Callable[[Path], str]:
    """Both text readers on `text`: `expect` None means unreadable (counted), else the verdict
    both must read (loaded); anything else is silent."""

    def run(_: Path) -> str:
        from longform_evals.judges.raters.rating import parse_verdict
        from longform_evals.judges.yes_no import parse_yes_no

        p, verdict = parse_yes_no(text), parse_verdict(text)
        if expect is None:
            return "counted" if p is None and verdict is None else "silent"
        wanted = 1.0 if expect in ("yes", "partial") else 0.0
        return "loaded" if (p, verdict) == (wanted, expect) else "silent"

    return run


def _rater_case(text: str, expect: str) -> Callable[[Path], str]:
    def run(_: Path) -> str:
        from longform_evals.judges.raters.rating import parse_verdict

        return "loaded" if parse_verdict(text) == expect else "silent"

    return run


def _output(text: str, positions: list[tuple[str, float, list[tuple[str, float]]]]) -> Any:
    from inspect_ai.model import Logprob, Logprobs, ModelOutput, TopLogprob

    out = ModelOutput.from_content("judge", text)
    out.choices[0].logprobs = Logprobs(
        content=[
            Logprob(
                token=token,
                logprob=value,
                top_logprobs=[TopLogprob(token=t, logprob=v) for t, v in alternatives] or None,
            )
            for token, value, alternatives in positions
        ]
    )
    return out


def _logprob_case(
    text: str, positions: list[tuple[str, float, list[tuple[str, float]]]], expect: float | None
) -> Callable[[Path], str]:
    """``read_yes_no`` on an answer with log-probabilities: `expect` None must be unreadable,
    a number must be read (within 1e-6)."""

    def run(_: Path) -> str:
        from longform_evals.judges.yes_no import read_yes_no

        p, _source = read_yes_no(_output(text, positions))
        if expect is None:
            return "counted" if p is None else "silent"
        return "loaded" if p is not None and abs(p - expect) < 1e-6 else "silent"

    return run


def _batch_case(text: str, count: int, unreadable: set[int]) -> Callable[[Path], str]:
    def run(_: Path) -> str:
        from longform_evals.judges.coherence.parse import parse_batch

        judgements, problems = parse_batch(text, count)
        if unreadable:
            hidden = all(n in problems and n not in judgements for n in unreadable)
            return "counted" if hidden else "silent"
        return "loaded" if len(judgements) == count and not problems else "silent"

    return run


def _joint_case(text: str, n: int, expect: list[float | None]) -> Callable[[Path], str]:
    def run(_: Path) -> str:
        from inspect_ai.model import ModelOutput

        from longform_evals.judges.yes_no import p_yes_at_answers

        got = p_yes_at_answers(ModelOutput.from_content("judge", text), n)
        if got != expect:
            return "silent"
        return "counted" if None in expect else "loaded"

    return run


def _judged_case(answer: str) -> Callable[[Path], str]:
    """The faithfulness judge and the raters (LR-1 / LR-2) on a scripted model that always
    gives `answer`: unreadable everywhere (missing, NaN) is counted; any reading is silent."""

    def run(folder: Path) -> str:
        import os

        os.environ["INSPECT_CACHE_DIR"] = str(folder / "cache")
        from inspect_ai.model import get_model

        from longform_evals.judges.faithfulness.llm import FaithfulnessSettings, judge_support
        from longform_evals.judges.raters.calibration import RaterCalibration
        from longform_evals.judges.raters.rating import RatingSettings, rate_answer, rated

        model = get_model("scripted/verdicts", default_response=answer, memoize=False)
        settings = FaithfulnessSettings(logprobs=False, cache=False)
        support = asyncio.run(judge_support(model, "The mill burned.", "A mill burned.", settings))
        rows = asyncio.run(
            rate_answer(
                model, "What burned?", "The mill.", ["The mill."], RatingSettings(cache=False)
            )
        )
        calibration = RaterCalibration(source="case", exact_threshold=0.5, partial_threshold=0.5)
        rating = rated(rows, calibration, calibrated=False)
        unread = support.value is None and math.isnan(rating.lr1) and math.isnan(rating.lr2)
        return "counted" if unread else "silent"

    return run


def _text_cases(rng: random.Random) -> list[Case]:
    cases = []
    for lang, phrase in _NEGATED:
        v = _spell(rng, rng.choice(["yes", "no"]))
        text = phrase.format(v=v)
        cases.append(Case(f"negated ({lang}): {text!r}", _text_case(text, None)))
    for phrase in _MENTIONED:
        text = phrase.format(v=_spell(rng, rng.choice(["yes", "no"])))
        cases.append(Case(f"quoted, glued or mentioned: {text!r}", _text_case(text, None)))
    for side in ("yes", "no"):
        for other in rng.sample(_OTHER[side], 3):
            text = rng.choice(_DOUBLE).format(v=_spell(rng, side), o=other)
            cases.append(Case(f"verdict then the other: {text!r}", _text_case(text, None)))
    side = rng.choice(["yes", "no"])
    text = f"{_spell(rng, side)}. Though I'd hardly call it {side}."
    cases.append(Case(f"negated repeat: {text!r}", _text_case(text, None)))
    for phrase, only in _CLEAN:
        side = only or rng.choice(["yes", "no"])
        text = phrase.format(v=_spell(rng, side))
        cases.append(Case(f"clean: {text!r}", _text_case(text, side)))
    cases.append(Case("clean: full-width No", _text_case("\uff2e\uff4f.", "no")))
    cases.append(Case("clean rater: 'Yes, partially.'", _rater_case("Yes, partially.", "partial")))
    cases.append(Case("clean rater: 'Partly.'", _rater_case("Partly.", "partial")))
    return cases


def _logprob_cases(rng: random.Random) -> list[Case]:
    lp = [math.log(x) for x in (0.55, 0.3, 0.1)]
    yes, no = lp[0], lp[1]
    cases = [
        Case(
            "chosen No absent from [Yes, Maybe]",
            _logprob_case(
                "No.", [("No", no, [("Yes", yes), ("Maybe", lp[2])])], 0.55 / (0.55 + 0.3)
            ),
        ),
        Case(
            "alternatives listed twice",
            _logprob_case(
                "Yes", [("Yes", yes, [("Yes", yes), ("No", no), ("No", no)])], 0.55 / 0.85
            ),
        ),
        Case(
            "one token with two values",
            _logprob_case("Yes", [("Yes", yes, [("Yes", yes), ("No", no), ("Yes", -4.0)])], None),
        ),
        Case(
            "chosen token at -inf",
            _logprob_case("Yes", [("Yes", -math.inf, [("Yes", -math.inf), ("No", no)])], None),
        ),
        Case(
            "NaN at a later position",
            _logprob_case(
                "Yes, it does.",
                [("Yes", yes, [("Yes", yes), ("No", no)]), (",", math.nan, [])],
                None,
            ),
        ),
        Case(
            "positive alternative at a later position",
            _logprob_case(
                "No, never.",
                [("No", no, [("No", no), ("Yes", yes)]), (",", -0.1, [(",", -0.1), (".", 0.7)])],
                None,
            ),
        ),
        Case(
            "Yes token under a No text",
            _logprob_case(
                "No, the names differ.", [("Yes", yes, [("Yes", yes), ("No", no)])], None
            ),
        ),
        Case(
            "No token under a negated yes",
            _logprob_case("Not yes.", [("No", no, [("No", no), ("Yes", yes)])], None),
        ),
        Case(
            "clean Yes with alternatives",
            _logprob_case("Yes.", [("Yes", yes, [("Yes", yes), ("No", no)])], 0.55 / 0.85),
        ),
    ]
    rng.shuffle(cases)
    return cases


def _item(**fields: Any) -> str:
    return json.dumps(fields)


def _batch_cases(rng: random.Random) -> list[Case]:
    clean = _item(sentence=2, confusion=False)
    flip = rng.choice([("true", "false"), ("false", "true")])
    repeated = {
        "confusion twice": (
            f'{{"sentence": 1, "confusion": {flip[0]}, "types": ["salience"], '
            f'"confusion": {flip[1]}}}'
        ),
        "Confusion in two cases": '{"sentence": 1, "confusion": false, "CONFUSION": true, '
        '"types": ["duplication"]}',
        "types twice": '{"sentence": 1, "confusion": true, "types": ["salience"], '
        '"types": ["duplication"]}',
        "sentence twice": '{"sentence": 1, "sentence": 3, "confusion": false}',
        "official shape, types twice": '{"sentence_num": 1, "sentence": "x", '
        '"questions": null, "types": null, "types": "salience"}',
    }
    cases = [
        Case(f"batched: {name}", _batch_case(f"[{item}, {clean}]", 2, {1}))
        for name, item in repeated.items()
    ]
    good = _item(sentence=1, confusion=True, types=["salience"], questions=["Why?"])
    cases.append(Case("batched: clean", _batch_case(f"Here: [{good}, {clean}]", 2, set())))
    return cases


def _joint_cases() -> list[Case]:
    return [
        Case("joint: negated second", _joint_case("1. Yes 2. Not no 3. Yes", 3, [1.0, None, None])),
        Case("joint: quoted first", _joint_case("'No' Yes Yes", 3, [None, None, None])),
        Case("joint: clean", _joint_case("No, Yes, No", 3, [0.0, 1.0, 0.0])),
    ]


def _judged_cases(rng: random.Random) -> list[Case]:
    answers = [
        "Ich würde nicht yes sagen.",
        "«Yes» only for the first clause; the rest is not in the text.",
        "Не yes.",  # noqa: RUF001
        "Reading it twice: yes.",
    ]
    return [Case(f"judges end to end: {a!r}", _judged_case(a), timeout=120) for a in answers]


def cases() -> list[Case]:
    rng = random.Random(_SEED)
    return [
        *_text_cases(rng),
        *_logprob_cases(rng),
        *_batch_cases(rng),
        *_joint_cases(),
        *_judged_cases(rng),
    ]
