"""Reading the chosen option letter from a multiple-choice answer.

Accepted shapes (the letter in any case where it is wrapped or follows a marker):

    Answer: (C)        answer: C        Final answer: **C**        The answer is C.
    (C)    C)    C.    **C**    [C]    C    Option C    Answer: (c) because ...

An explicit marker ("answer:", "the answer is ...") wins: the letters after every marker must
agree. Without one, the clearest shape present decides, in this order: the whole answer is a
letter; a wrapped letter "(C)", "[C]", "**C**"; a letter with a closing mark "C)", "C.", "C:" or
after "option"/"choice"; a capital letter standing alone. Within that shape a single distinct
letter is the answer; two different letters, or a letter past the last option, give None, so an
ambiguous answer is counted as unparsed rather than guessed. "A" and "I" followed by a lower-case
word are read as English words (an article, a pronoun), not as options, except before another
option joined by "or", "and", "nor", ",", "/" or "&": "A or B", "A and B are both plausible"
and "Answer: C or D" name more than one option and give None.

Every pattern is linear in the answer's length: no two adjacent repeats can match the same run
(surrounding decoration of a whole-letter answer is stripped with `str.strip`), so a long
adversarial answer is read in one pass.
"""

from __future__ import annotations

import re

MAX_CHOICES = 26
"""Options are lettered A..Z."""

_NOT_AFTER = r"(?![A-Za-z0-9'\u2019\-]|\.[A-Za-z])"
_MARKER = re.compile(
    r"\banswer\b[\s*_]*(?::|-|\u2013|\u2014|=|\bis\b|\bwould\s+be\b|\bshould\s+be\b|\bwill\s+be\b)"
    r"[\s*_:]*(?:(?:option|choice|letter)\s+)?"
    r"(?:(?P<open>[(\[])\s*)?(?P<letter>[A-Za-z])\s*(?P<close>[)\]]?)" + _NOT_AFTER,
    re.IGNORECASE,
)
# A whole-letter answer once its decoration is stripped (_DECORATION; dots only at the end).
_DECORATION = " \t\r\n\f\v*_\"'`"
_WHOLE = re.compile(
    r"(?:(?:option|choice|letter)\s+)?(?:[(\[]\s*)?(?P<letter>[A-Za-z])(?:\s*[)\]])?[.:)]?",
    re.IGNORECASE,
)
# Another option joined to a letter on the same line: "A or B", "C, D", "(A) and (B)".
_ALTERNATIVE = re.compile(
    r"(?:[ \t]*(?:[)\]]|\*\*))?[ \t]*(?:,|/|&|\bor\b|\band\b|\bnor\b)[ \t]*"
    r"(?:(?:option|choice|letter)[ \t]+)?(?:[(\[]|\*\*)?(?P<letter>[A-Za-z])" + _NOT_AFTER,
    re.IGNORECASE,
)
_WRAPPED = re.compile(
    r"(?<![A-Za-z0-9])(?:\((?P<p>[A-Za-z])\)|\[(?P<b>[A-Za-z])\]|\*\*(?P<s>[A-Za-z])\*\*)"
)
_CLOSED = re.compile(
    r"(?<![A-Za-z0-9.'\u2019\-])(?P<c>[A-Z])[).:](?=[\s*_]|$)"
    r"|(?i:\b(?:option|choice|letter))\s+(?P<o>[A-Za-z])" + _NOT_AFTER
)
_BARE = re.compile(r"(?<![A-Za-z0-9.'\u2019\-])(?P<l>[A-Z])" + _NOT_AFTER)
# "A" and "I" before a lower-case word are an article or a pronoun ("A dog", "I think").
_ENGLISH_WORD = re.compile(r"\s+[a-z]")


def choice_letter(index: int) -> str:
    """The letter of the 0-based option `index` ("A" for 0)."""
    if not 0 <= index < MAX_CHOICES:
        raise ValueError(f"option index {index} is outside A..Z")
    return chr(ord("A") + index)


def letter_index(letter: str) -> int:
    """The 0-based index of an option letter (either case); ValueError for anything else."""
    text = letter.strip()
    if len(text) != 1 or not ("A" <= text.upper() <= "Z"):
        raise ValueError(f"{letter!r} is not an option letter A..Z")
    return ord(text.upper()) - ord("A")


def _is_english_word(text: str, match: re.Match[str], group: str) -> bool:
    """Whether the unwrapped letter of `match` is the word "a"/"I" in a sentence."""
    if match.group(group).upper() not in ("A", "I"):
        return False
    return bool(_ENGLISH_WORD.match(text, match.end(group)))


def _joined_option(text: str, pos: int, upper_only: bool) -> str | None:
    """The option letter joined by "or", "and", ... right after position `pos`, if any."""
    m = _ALTERNATIVE.match(text, pos)
    if m is None or (upper_only and m.group("letter").islower()):
        return None
    return None if _is_english_word(text, m, "letter") else m.group("letter").upper()


def _marker_letters(text: str) -> list[str]:
    letters = []
    for m in _MARKER.finditer(text):
        wrapped = bool(m.group("open") or m.group("close"))
        # An unwrapped lower-case "a"/"i" after "answer is" is more likely prose ("is a bit").
        lower_word = m.group("letter").islower() and _is_english_word(text, m, "letter")
        upper_pronoun = m.group("letter") == "I" and _is_english_word(text, m, "letter")
        if wrapped or not (lower_word or upper_pronoun):
            letters.append(m.group("letter").upper())
            joined = _joined_option(text, m.end("letter"), upper_only=False)
            if joined:
                letters.append(joined)
    return letters


def _shape_letters(text: str) -> list[str]:
    """The letters of the clearest shape present (see the module docstring)."""
    whole = _WHOLE.fullmatch(text.lstrip(_DECORATION).rstrip(_DECORATION + "."))
    if whole:
        return [whole.group("letter").upper()]
    wrapped = [
        next(g for g in m.group("p", "b", "s") if g).upper() for m in _WRAPPED.finditer(text)
    ]
    if wrapped:
        return wrapped
    closed = [(m.group("c") or m.group("o")).upper() for m in _CLOSED.finditer(text)]
    if closed:
        return closed
    return [
        m.group("l")
        for m in _BARE.finditer(text)
        if not _is_english_word(text, m, "l") or _joined_option(text, m.end("l"), upper_only=True)
    ]


def parse_choice(text: str, n_choices: int) -> int | None:
    """The 0-based option an answer chose, or None when it names none clearly.

    Args:
        text: the model's answer.
        n_choices: how many options the question has (1..26).

    Returns:
        The index of the chosen letter; None when no letter is found, when the letters found
        disagree, or when the letter is past the last option.
    """
    if not 1 <= n_choices <= MAX_CHOICES:
        raise ValueError(f"n_choices must be between 1 and {MAX_CHOICES}, got {n_choices}")
    letters = _marker_letters(text) or _shape_letters(text)
    if len(set(letters)) != 1:
        return None
    index = letter_index(letters[0])
    return index if index < n_choices else None
