"""Multiple-choice accuracy (QuALITY): the option letter read from the answer vs the gold letter.

The letter is read with :func:`~longform_evals.scorers.choice_parse.parse_choice`; an answer it
cannot read scores 0 and is counted in `unparsed`, so a drop in accuracy from answers in the
wrong format is visible apart from wrong answers.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, accuracy, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.scorers.choice_parse import MAX_CHOICES, choice_letter, parse_choice
from longform_evals.scorers.limits import unless_limited


def gold_letter(state: TaskState, target: Target) -> str:
    """The sample's gold option letter, checked against its choices.

    Raises:
        ValueError: naming the sample when it has no choices, or its target is not a letter
            of one of them.
    """
    n = len(state.choices)
    if n == 0:
        raise ValueError(
            f"sample {state.sample_id!r} has no choices: choice_accuracy needs the options "
            "as Sample.choices and the gold letter as the target"
        )
    if n > MAX_CHOICES:
        raise ValueError(f"sample {state.sample_id!r} has {n} choices; at most 26 are lettered")
    gold = target.text.strip().upper()
    letters = [choice_letter(i) for i in range(n)]
    if gold not in letters:
        raise ValueError(
            f"sample {state.sample_id!r}: target {target.text!r} is not one of the option "
            f"letters {', '.join(letters)}"
        )
    return gold


@scorer(metrics={"correct": [accuracy(), stderr()], "unparsed": [mean()]})
def choice_accuracy() -> Scorer:
    """Whether the completion names the gold option.

    The letter is read against the choices as shown to the model; when a solver shuffled them,
    it is mapped back to the original option before comparing with the target.

    Returns:
        A scorer whose value holds `correct` (1/0; the `accuracy` metric) and `unparsed` (1 when
        no letter could be read; its mean is the unparsed rate). `Score.answer` is the letter
        read (in the original order), metadata the raw answer.
    """

    async def score(state: TaskState, target: Target) -> Score:
        gold = gold_letter(state, target)
        raw = state.output.completion if state.output else ""
        shown = parse_choice(raw, len(state.choices))
        if shown is None:
            return Score(
                value={"correct": 0, "unparsed": 1},
                answer=None,
                explanation=f"no option letter could be read from the answer (gold {gold})",
                metadata={"raw_answer": raw, "gold": gold},
            )
        letter = choice_letter(state.choices[shown].original_position)
        return Score(
            value={"correct": int(letter == gold), "unparsed": 0},
            answer=letter,
            explanation=f"answered {letter}, gold {gold}",
            metadata={"raw_answer": raw, "gold": gold},
        )

    return unless_limited(score)
