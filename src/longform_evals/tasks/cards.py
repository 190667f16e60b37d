"""The table of task cards: every task of the suite that `longform run`, the leaderboard and
lm-eval know, by its Inspect task name (`tasks/card.py` says what a card holds).

`hello` (the smoke task) and `judge_agreement` (a judge measured against people's labels,
with its own command, `longform judge-card`) have no card.
"""

from __future__ import annotations

from longform_evals.tasks import booookscore, longformfact, narrative, positional_bias, reading
from longform_evals.tasks.card import TaskCard

TASK_CARDS: dict[str, TaskCard] = {
    card.name: card
    for card in (
        booookscore.CARD,
        narrative.BOOKSUM_CARD,
        narrative.SQUALITY_CARD,
        reading.QUALITY_CARD,
        reading.NARRATIVEQA_CARD,
        reading.QMSUM_CARD,
        positional_bias.CARD,
        longformfact.CARD,
    )
}


def task_card(name: str) -> TaskCard:
    """The card of task ``name``; an unknown name is an error listing the known ones."""
    try:
        return TASK_CARDS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; known: {', '.join(TASK_CARDS)}") from None
