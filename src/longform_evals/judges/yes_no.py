"""Reading a judge's yes/no answer: as a probability from log-probabilities, or from the text.

Log-probabilities: a token is a yes (or a no) only when it is that whole word, in any case and
in any Unicode compatibility form, with whitespace and punctuation around it allowed (" Yes",
"YES", "no.", "Yes,", "**No", the full-width letters); a token that merely starts with the letters
("Not", "Nothing", "Yesterday", "None", "Nope") or spells it with look-alike letters is neither.
The answer is read at its first content token (the first with a letter or digit; markdown,
quotes and line breaks before it are skipped), and only when that token is itself a yes or a no:
then P(yes) is P(yes) / (P(yes) + P(no)) over that position's top alternatives. An answer that
starts with anything else ("Nope", "Supported.", "The sentence is...") has no log-probability
reading, however much "Yes" its alternatives hold: P(yes) is never inferred from alternatives
the judge did not choose. Nor is an answer that hedges or gives both verdicts ("Yes and no",
"Yes\nNo", "No, but yes.") by the text rule below, or whose log-probabilities are not finite
numbers.

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
import unicodedata

from inspect_ai.model import Logprob, ModelOutput

from longform_evals.models.logprobs import has_logprobs

_TOKEN = re.compile(r"[\W_]*(yes|no)[\W_]*", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W_]")
_MAX_LOGPROB = 1e-6
"""Above this a log-probability is no probability (rounding may give a hair over 0)."""
_LEADING = re.compile(r"[\W_]*(yes|no)\b", re.IGNORECASE)
YES_VERDICT = re.compile(r"\byes\b", re.IGNORECASE)
"""Any "yes" word is a yes verdict."""
NO_VERDICT = re.compile(r"\bno\b(?![-'\u2019]|[ \t]+[^\W\d_])", re.IGNORECASE)
"""A "no" not followed by a word ("no evidence" is a determiner, "no." or "no, it" a verdict)."""


def token_word(token: str) -> str | None:
    """The word "yes" or "no" when the token is that whole word (module docstring), else None."""
    match = _TOKEN.fullmatch(unicodedata.normalize("NFKC", token))
    return match.group(1).lower() if match else None


def is_content_token(token: str) -> bool:
    """Whether a token holds a letter or digit (markdown, quotes and whitespace do not)."""
    return bool(_CONTENT.search(unicodedata.normalize("NFKC", token)))


def parse_yes_no(text: str) -> float | None:
    """1.0 for a yes, 0.0 for a no, None when the answer is neither, or both (the module rule)."""
    text = unicodedata.normalize("NFKC", text)
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
    """P(yes) / (P(yes) + P(no)) at one answer position whose chosen token is a yes or a no,
    over its top log-probabilities (the chosen token alone when the provider gave no
    alternatives). None when the chosen token is neither word, or a yes/no log-probability is
    NaN or above 0 (+infinity included), which no probability can be; minus infinity is 0."""
    if token_word(item.token) is None:
        return None
    yes = no = 0.0
    candidates = [(t.token, t.logprob) for t in item.top_logprobs or []]
    for token, logprob in candidates or [(item.token, item.logprob)]:
        word = token_word(token)
        if word is None:
            continue
        if math.isnan(logprob) or logprob > _MAX_LOGPROB:
            return None
        if word == "yes":
            yes += math.exp(logprob)
        else:
            no += math.exp(logprob)
    return yes / (yes + no) if yes + no > 0 else None


def first_content_logprob(output: ModelOutput) -> Logprob | None:
    """The answer's first content token with its alternatives (None without log-probabilities,
    or when the answer has no content token)."""
    logprobs = output.choices[0].logprobs if output.choices else None
    if not logprobs or not logprobs.content:
        return None
    return next((t for t in logprobs.content if is_content_token(t.token)), None)


def p_yes_from_logprobs(output: ModelOutput) -> float | None:
    """P(yes) at the answer's first content token (:func:`p_yes_from_top`), by the module rule.

    None when the provider returned no log-probabilities, the first content token is not a yes
    or a no, the answer's text hedges or gives both verdicts, or a log-probability is not finite.
    """
    first = first_content_logprob(output)
    if first is None:
        return None
    p = p_yes_from_top(first)
    if p is None or parse_yes_no(output.completion.strip()) is None:
        return None
    return p


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


def impossible_logprobs(output: ModelOutput) -> bool:
    """Whether the answer's first content position holds a log-probability no probability can
    have (NaN, or above 0: +infinity included), for its chosen token or an alternative. Such
    an answer is unreadable: the provider's numbers are broken, so its words are not trusted
    either."""
    first = first_content_logprob(output)
    if first is None:
        return False
    values = [first.logprob, *(t.logprob for t in first.top_logprobs or [])]
    return any(math.isnan(v) or v > _MAX_LOGPROB for v in values)


def read_yes_no(output: ModelOutput, logprobs: bool = True) -> tuple[float | None, str]:
    """The one reading of a yes/no answer: ``(P(yes), source)``.

    With ``logprobs`` and log-probabilities in the answer: P(yes) at the first content token
    when that token is a yes or a no (source ``logprobs``); an answer whose first position
    holds an impossible log-probability is unreadable. Otherwise the text rule
    (:func:`parse_yes_no`, source ``text``); neither: ``(None, "unreadable")``.
    """
    if logprobs and has_logprobs(output):
        if impossible_logprobs(output):
            return None, "unreadable"
        p = p_yes_from_logprobs(output)
        if p is not None:
            return p, "logprobs"
    text = output.completion.strip() if output.completion else ""
    p = parse_yes_no(text) if text else None
    return (p, "text") if p is not None else (None, "unreadable")


def p_yes_from_output(output: ModelOutput) -> float | None:
    """P(yes) from log-probabilities when present, else from the whole answer text (1.0 / 0.0;
    a hedge late in the answer makes it unreadable, as for the faithfulness judge)."""
    return read_yes_no(output)[0]


def reading_source(output: ModelOutput) -> str:
    """How :func:`p_yes_from_output` reads `output`: `logprobs`, `text` (from the words: no
    log-probabilities, or a first token that is no yes/no word), or `unreadable`."""
    return read_yes_no(output)[1]
