"""Reading a judge's yes/no answer: as a probability from log-probabilities, or from the text.

Text (:mod:`longform_evals.judges.verdict_text`): the verdict is the answer's first word, after
markdown, punctuation and a label such as "Answer:"; nothing later is read as a verdict. An
answer whose first word is no verdict ("Not yes.", "I cannot say yes.", `The source says
"yes"...`), whose verdict is quoted, glued, asked or negated, or that later gives the other
verdict or a negated or quoted repeat ("Yes, but no.", "No, I would not say no") is unreadable
(None): counted, never inferred. A "no" followed by a word is a determiner ("Yes, there is no
contradiction" is a yes; "No evidence supports it" gives no verdict).

Log-probabilities: a token is a yes (or a no) only when it is that whole word, in any case and
in any Unicode compatibility form, with whitespace and punctuation around it allowed (" Yes",
"YES", "no.", "Yes,", "**No", the full-width letters); a token that merely starts with the letters
("Not", "Nothing", "Yesterday", "None", "Nope") or spells it with look-alike letters is neither.
The answer position is its first content token (markdown, quotes, line breaks and a label
token such as "Answer" ":" before it are skipped). When that token is a yes or a no, P(yes) is
P(yes) / (P(yes) + P(no)) over the distinct tokens of that position: the chosen token with its
alternatives, each token once (a token listed twice with different values is inconsistent),
the chosen one counted even when the alternatives leave it out. The reading holds only when
the text reads the same verdict: a "Yes" token under a "No" text, or under a text the rule
above cannot read, is unreadable. An answer whose first content token is no verdict word has
no log-probability reading, however much "Yes" its alternatives hold; its text is read only
when that token is the start of the text's verdict word (a word split into several tokens).

Impossible numbers anywhere in the answer (NaN, a log-probability above 0 or +infinity for
any token or alternative, minus infinity for a token that was generated) make it unreadable:
the provider's numbers are broken, so its words are not trusted either.
"""

from __future__ import annotations

import math
import re
import unicodedata

from inspect_ai.model import Logprob, ModelOutput

from longform_evals.judges.verdict_text import TextVerdict, read_answer
from longform_evals.models.logprobs import has_logprobs

__all__ = [
    "impossible_logprobs",
    "is_content_token",
    "p_yes_at_answers",
    "p_yes_from_logprobs",
    "p_yes_from_output",
    "p_yes_from_top",
    "parse_yes_no",
    "read_yes_no",
    "reading_source",
    "token_reading",
    "token_word",
]

_TOKEN = re.compile(r"[\W_]*(yes|no)[\W_]*", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W_]")
_LABELS = tuple(
    prefix + word
    for prefix in ("", "final")
    for word in ("verdict", "answer", "rating", "response", "grade", "judgment", "judgement")
)
"""Labels before a verdict ("Answer:", "Final verdict:"), as the tokens before it spell them."""
_NUMBERING = re.compile(r"[\W_]*\d+[\W_]*")
_MAX_LOGPROB = 1e-6
"""Above this a log-probability is no probability (rounding may give a hair over 0)."""
_SIDE = {"yes": "yes", "no": "no"}
_SAME = 1e-6
"""Two values of one token further apart than this are two different numbers."""


def token_word(token: str) -> str | None:
    """The word "yes" or "no" when the token is that whole word (module docstring), else None."""
    match = _TOKEN.fullmatch(unicodedata.normalize("NFKC", token))
    return match.group(1).lower() if match else None


def is_content_token(token: str) -> bool:
    """Whether a token holds a letter or digit (markdown, quotes and whitespace do not)."""
    return bool(_CONTENT.search(unicodedata.normalize("NFKC", token)))


def parse_yes_no(text: str) -> float | None:
    """1.0 for a yes, 0.0 for a no, None when the answer gives no clear verdict in answer
    position (the module rule)."""
    verdict = read_answer(text)
    return None if verdict is None else 1.0 if verdict.kind == "yes" else 0.0


def _impossible(logprob: float, chosen: bool) -> bool:
    return math.isnan(logprob) or logprob > _MAX_LOGPROB or (chosen and logprob == -math.inf)


def p_yes_from_top(item: Logprob) -> float | None:
    """P(yes) / (P(yes) + P(no)) at one answer position whose chosen token is a yes or a no,
    over the distinct yes/no tokens of the chosen token and its alternatives (module
    docstring). None when the chosen token is neither word, a value is impossible, or a
    token holds two different values."""
    if token_word(item.token) is None or _impossible(item.logprob, chosen=True):
        return None
    values: dict[str, float] = {}
    for token, logprob in [(item.token, item.logprob)] + [
        (t.token, t.logprob) for t in item.top_logprobs or []
    ]:
        if token_word(token) is None:
            continue
        if _impossible(logprob, chosen=False):
            return None
        seen = values.setdefault(token, logprob)
        if not math.isclose(seen, logprob, rel_tol=0.0, abs_tol=_SAME):
            return None
    yes = sum(math.exp(v) for t, v in values.items() if token_word(t) == "yes")
    no = sum(math.exp(v) for t, v in values.items() if token_word(t) == "no")
    return yes / (yes + no) if yes + no > 0 else None


def impossible_logprobs(output: ModelOutput) -> bool:
    """Whether any position of the answer holds a log-probability no probability can have:
    NaN or above 0 (+infinity included) for a token or an alternative, minus infinity for a
    token that was generated."""
    logprobs = output.choices[0].logprobs if output.choices else None
    for item in logprobs.content if logprobs else []:
        if _impossible(item.logprob, chosen=True):
            return True
        if any(_impossible(t.logprob, chosen=False) for t in item.top_logprobs or []):
            return True
    return False


def _label_so_far(text: str) -> bool:
    """Whether the tokens so far spell (the start of) a label, markdown around it allowed."""
    letters = re.sub(r"[\W_]", "", unicodedata.normalize("NFKC", text)).casefold()
    return any(label.startswith(letters) for label in _LABELS)


def _answer_token(output: ModelOutput) -> Logprob | None:
    """The answer's first content token after markdown and a label (None: no content)."""
    logprobs = output.choices[0].logprobs if output.choices else None
    before = ""
    for item in logprobs.content if logprobs else []:
        if not is_content_token(item.token) or (
            token_word(item.token) is None and _label_so_far(before + item.token)
        ):
            before += item.token
            continue
        return item
    return None


def token_reading(
    output: ModelOutput, verdict: TextVerdict | None, yes_kinds: frozenset[str] = frozenset()
) -> tuple[float | None, str]:
    """How the log-probabilities read an answer whose text reads `verdict`: ``(P(yes),
    "logprobs")``; ``(None, "text")`` when they give no reading and the text stands (no
    log-probabilities, or a verdict word split into several tokens); ``(None, "unreadable")``
    when numbers are impossible or the token and the text disagree (module docstring).
    `yes_kinds`: verdict kinds besides "yes" that a yes token stands for (the raters'
    "partial", written "Yes, partially")."""
    if not has_logprobs(output):
        return None, "text"
    if impossible_logprobs(output):
        return None, "unreadable"
    item = _answer_token(output)
    word = token_word(item.token) if item is not None else None
    if item is None or word is None:
        letters = "".join(c for c in (item.token if item else "") if c.isalnum()).casefold()
        split = verdict is not None and bool(letters) and verdict.word.startswith(letters)
        return (None, "text") if split else (None, "unreadable")
    text_word = None if verdict is None else _SIDE.get(verdict.kind)
    if verdict is not None and verdict.kind in yes_kinds:
        text_word = "yes"
    p = p_yes_from_top(item) if text_word == word else None
    return (p, "logprobs") if p is not None else (None, "unreadable")


def p_yes_from_logprobs(output: ModelOutput) -> float | None:
    """P(yes) at the answer position when the log-probabilities read it (:func:`read_yes_no`
    with source ``logprobs``), else None."""
    p, source = read_yes_no(output)
    return p if source == "logprobs" else None


def read_yes_no(output: ModelOutput, logprobs: bool = True) -> tuple[float | None, str]:
    """The one reading of a yes/no answer: ``(P(yes), source)``.

    With ``logprobs`` and log-probabilities in the answer, :func:`token_reading` (source
    ``logprobs``, or ``unreadable``); where they give no reading, the text rule
    (:func:`parse_yes_no`, source ``text``); neither: ``(None, "unreadable")``.
    """
    text = output.completion or ""
    verdict = read_answer(text)
    if logprobs:
        p, source = token_reading(output, verdict)
        if source != "text":
            return p, source
    if verdict is None:
        return None, "unreadable"
    return (1.0 if verdict.kind == "yes" else 0.0), "text"


def p_yes_from_output(output: ModelOutput) -> float | None:
    """P(yes) from log-probabilities when present, else from the whole answer text (1.0 / 0.0;
    a hedge late in the answer makes it unreadable, as for the faithfulness judge)."""
    return read_yes_no(output)[0]


def reading_source(output: ModelOutput) -> str:
    """How :func:`p_yes_from_output` reads `output`: `logprobs`, `text` (from the words: no
    log-probabilities, or a verdict word split into tokens), or `unreadable`."""
    return read_yes_no(output)[1]


_ITEM = re.compile(r"(?:\(?\d+[.):]+)?[*_(\[]*(yes|no)[*_.!)\]]*", re.IGNORECASE)
_ITEM_NUMBER = re.compile(r"\(?\d+[.):]*")
_ITEM_GAP = re.compile(r"[\s,;]+")


def _text_answers(text: str) -> list[str]:
    """The yes/no words of an answer of several, in order: each item (between spaces, commas
    and semicolons, numbering skipped) must be a plain yes or no; the first item that is not
    ends the answer ("1. Not yes 2. No" gives none)."""
    words: list[str] = []
    for item in _ITEM_GAP.split(unicodedata.normalize("NFKC", text).strip()):
        if not item or _ITEM_NUMBER.fullmatch(item):
            continue
        match = _ITEM.fullmatch(item)
        if match is None:
            break
        words.append(match.group(1).lower())
    return words


def _token_answers(output: ModelOutput) -> list[Logprob]:
    """The answer positions among the generated tokens, read as :func:`_text_answers` reads
    the words (markup and numbering skipped; the first other token ends the answer)."""
    logprobs = output.choices[0].logprobs if output.choices else None
    found: list[Logprob] = []
    for item in logprobs.content if logprobs else []:
        token = unicodedata.normalize("NFKC", item.token)
        if not is_content_token(token) or _NUMBERING.fullmatch(token):
            continue
        if token_word(token) is None:
            break
        found.append(item)
    return found


def p_yes_at_answers(output: ModelOutput, n: int) -> list[float | None]:
    """P(yes) at each of the first `n` answer positions of an answer of several yes/no words.

    Each position is read only where the text and the generated token give the same word
    (:func:`_text_answers`, :func:`_token_answers`): positions the answer never reached, after
    a word that is no plain yes/no, where token and text disagree, or whose numbers are
    inconsistent are None; an impossible number anywhere makes every position None. Without
    log-probabilities the words themselves are read (1.0 / 0.0).
    """
    words = _text_answers(output.completion or "")
    if not has_logprobs(output):
        answers: list[float | None] = [1.0 if w == "yes" else 0.0 for w in words[:n]]
        return answers + [None] * (n - len(answers))
    if impossible_logprobs(output):
        return [None] * n
    tokens = _token_answers(output)
    answers = []
    for i in range(n):
        agree = i < len(words) and i < len(tokens) and token_word(tokens[i].token) == words[i]
        if not agree:  # the words and the tokens part here: nothing after is aligned
            break
        answers.append(p_yes_from_top(tokens[i]))
    return answers + [None] * (n - len(answers))
