"""Reading a judge's yes/no answer: as a probability from log-probabilities, or from the text."""

from __future__ import annotations

import math
import re

from inspect_ai.model import ModelOutput

_YES = re.compile(r"^\W*yes\b", re.IGNORECASE)
_NO = re.compile(r"^\W*no\b", re.IGNORECASE)
_YES_WORD = re.compile(r"\byes\b", re.IGNORECASE)
_NO_WORD = re.compile(r"\bno\b", re.IGNORECASE)


def parse_yes_no(text: str) -> float | None:
    """1.0 for a yes, 0.0 for a no, None when the answer is neither.

    An answer that starts with yes/no decides; otherwise one that contains exactly one of the
    two words does (as the reference code of the positional-bias paper reads answers).
    """
    if _YES.match(text):
        return 1.0
    if _NO.match(text):
        return 0.0
    has_yes, has_no = bool(_YES_WORD.search(text)), bool(_NO_WORD.search(text))
    if has_yes != has_no:
        return 1.0 if has_yes else 0.0
    return None


def p_yes_from_logprobs(output: ModelOutput) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the first answer token's top log-probabilities.

    None when the provider returned no log-probabilities or neither word is among them.
    """
    logprobs = output.choices[0].logprobs if output.choices else None
    if not logprobs or not logprobs.content:
        return None
    first = logprobs.content[0]
    candidates = [(t.token, t.logprob) for t in first.top_logprobs or []]
    yes = no = 0.0
    for token, logprob in candidates or [(first.token, first.logprob)]:
        word = token.strip().lower()
        if word.startswith("yes"):
            yes += math.exp(logprob)
        elif word.startswith("no"):
            no += math.exp(logprob)
    return yes / (yes + no) if yes + no > 0 else None


def p_yes_from_output(output: ModelOutput) -> float | None:
    """P(yes) from log-probabilities when present, else from the answer text (1.0 / 0.0)."""
    p = p_yes_from_logprobs(output)
    if p is not None:
        return p
    return parse_yes_no(output.completion.strip()[:40]) if output.completion else None
