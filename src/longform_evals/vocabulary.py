"""Words several layers share and the `longform` command offers, defined once in a module light
enough for the command to import at start."""

from __future__ import annotations

from typing import Literal, get_args

ScorerMode = Literal["auto", "sentence", "batched", "probe", "fitted"]
"""How the BooookScore judge is asked (docs/booookscore.md)."""
COHERENCE_MODES: tuple[str, ...] = get_args(ScorerMode)

JudgeKind = Literal["coherence", "faithfulness"]
"""What a judge under study judges (`judge_agreement`, `longform judge-card`)."""
JUDGE_KINDS: tuple[JudgeKind, ...] = get_args(JudgeKind)
