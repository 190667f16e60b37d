"""Words several layers share and the `longform` command offers, defined once in a module light
enough for the command to import at start."""

from __future__ import annotations

from typing import Literal, get_args

ScorerMode = str
"""How the BooookScore judge is asked: `auto` or the name of a coherence judge in the table of
`judges/coherence/judges.py` (`sentence`, `batched`, `probe`, `fitted`; docs/booookscore.md).
An open set: a judge added to the table is a mode at once, checked where the judge is built."""

JudgeKind = Literal["coherence", "faithfulness"]
"""What a judge under study judges (`judge_agreement`, `longform judge-card`)."""
JUDGE_KINDS: tuple[JudgeKind, ...] = get_args(JudgeKind)
