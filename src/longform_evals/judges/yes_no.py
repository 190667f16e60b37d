"""Reading a judge's yes/no answer: as a probability from log-probabilities, or from the text.

Log-probabilities: a token is a yes (or a no) only when it is that whole word, in any case,
with leading whitespace and trailing punctuation allowed (" Yes", "YES", "no.", "Yes,"); a token
that merely starts with the letters ("Not", "Nothing", "Yesterday", "None") is neither.

Text: the leading yes/no word is the verdict (after punctuation and markdown); without one, the
only kind of verdict word the answer contains is. An answer that also gives the other verdict is
hedged or double and unreadable (None): "Yes, but no.", "Yes or no", "yes/no", "No. Actually,
yes." A "no" followed by a word is a determiner ("no evidence", "no one"), not a verdict, so an
explanation after the verdict stays readable: "Yes, there is no contradiction.", "No, the text
never says that."
"""

from __future__ import annotations

import math
import re

from inspect_ai.model import Logprob, ModelOutput

_TOKEN = re.compile(r"\s*(yes|no)[^\w\s]*\s*", re.IGNORECASE)
_LEADING = re.compile(r"[\W_]*(yes|no)\b", re.IGNORECASE)
YES_VERDICT = re.compile(r"\byes\b", re.IGNORECASE)
"""Any "yes" word is a yes verdict."""
NO_VERDICT = re.compile(r"\bno\b(?![-'\u2019]|[ \t]+[^\W\d_])", re.IGNORECASE)
"""A "no" not followed by a word ("no evidence" is a determiner, "no." or "no, it" a verdict)."""


def token_word(token: str) -> str | None:
    """The word "yes" or "no" when the token is that whole word (module docstring), else None."""
    match = _TOKEN.fullmatch(token)
    return match.group(1).lower() if match else None


def parse_yes_no(text: str) -> float | None:
    """1.0 for a yes, 0.0 for a no, None when the answer is neither, or both (the module rule)."""
    leading = _LEADING.match(text)
    has_yes, has_no = bool(YES_VERDICT.search(text)), bool(NO_VERDICT.search(text))
    if leading:
        if leading.group(1).lower() == "yes":
            return None if has_no else 1.0
        return None if has_yes else 0.0
    if has_yes != has_no:
        return 1.0 if has_yes else 0.0
    return None


def p_yes_from_top(item: Logprob) -> float | None:
    """P(yes) / (P(yes) + P(no)) over one answer position's top log-probabilities (the chosen
    token alone when the provider gave no alternatives); None when neither word is there."""
    yes = no = 0.0
    candidates = [(t.token, t.logprob) for t in item.top_logprobs or []]
    for token, logprob in candidates or [(item.token, item.logprob)]:
        word = token_word(token)
        if word == "yes":
            yes += math.exp(logprob)
        elif word == "no":
            no += math.exp(logprob)
    return yes / (yes + no) if yes + no > 0 else None


def p_yes_from_logprobs(output: ModelOutput) -> float | None:
    """P(yes) over the first answer token's top log-probabilities (:func:`p_yes_from_top`).

    Only whole-word tokens count (see the module docstring). None when the provider returned
    no log-probabilities or neither word is among them.
    """
    logprobs = output.choices[0].logprobs if output.choices else None
    if not logprobs or not logprobs.content:
        return None
    return p_yes_from_top(logprobs.content[0])


def p_yes_at_answers(output: ModelOutput, n: int) -> list[float | None]:
    """P(yes) at each of the first `n` answer positions of an answer of several yes/no words.

    An answer position is a generated token that is a whole yes/no word; numbering and
    punctuation between them ("1. No 2. Yes") are skipped. Positions the answer never reached
    (it stopped early or wrote something else), and positions whose alternatives hold
    neither word, are None. Without log-probabilities the words themselves are read
    (1.0 / 0.0).
    """
    logprobs = output.choices[0].logprobs if output.choices else None
    if logprobs and logprobs.content:
        answers = [p_yes_from_top(t) for t in logprobs.content if token_word(t.token)]
    else:
        words = re.findall(r"\b(yes|no)\b", output.completion, re.IGNORECASE)
        answers = [1.0 if w.lower() == "yes" else 0.0 for w in words]
    answers = answers[:n]
    return answers + [None] * (n - len(answers))


def p_yes_from_output(output: ModelOutput) -> float | None:
    """P(yes) from log-probabilities when present, else from the whole answer text (1.0 / 0.0;
    a hedge late in the answer makes it unreadable, as for the faithfulness judge)."""
    p = p_yes_from_logprobs(output)
    if p is not None:
        return p
    return parse_yes_no(output.completion.strip()) if output.completion else None
