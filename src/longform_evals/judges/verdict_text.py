"""The text rule for a judge's verdict: a verdict word counts only in answer position.

The answer position is the answer's first word, after markdown and punctuation and after one
label such as "Answer:" or "Final verdict -" (a verdict line the prompt may ask for). The
prompts ask every yes/no judge to begin with its verdict, so nothing else is read:

* a first word that is no verdict word ("Not yes.", "I cannot say yes.", "Definitely yes",
  `The source says "yes" to another claim`) leaves the answer unreadable, however clear the
  rest may look; the verdict is never inferred from words elsewhere;
* a verdict word that is quoted ('"Yes"', «oui», `yes`), glued to other letters, marks or
  invisible characters ("Yes-man", "Yes\\u0301", "no\\u200b"), asked ("Yes?", and with the
  question mark of any script: "Yes\u061f", the Greek "Yes\u037e", "Yes\u203d"), or negated
  after it ("Yes değil", "yes nicht", "Yes, not really") is no verdict;
* a leading "no" followed by a word is a determiner ("No evidence supports it"), not a verdict;
* after the verdict, a verdict word of the other kind makes the answer hedged or double
  ("Yes, but no.", "No. Actually, yes.", "Yes, aber nein"), and a repeat of the same kind must
  be plain too: a negated ("No, I would not say no"), quoted or glued repeat makes the
  answer unreadable. The words of the other kind are known in several languages (oui/non,
  ja/nein, sí/no, sim/não, да/нет, tak/nie, 是/不, はい/いいえ, 네/아니요, نعم/لا,
  हाँ/नहीं, ...), and so are the informal ones that are never anything but an answer
  ("yeah", "yep", "nope", "nah": "Yes, nope." is unreadable, whatever follows them); a "no"
  (or "non", "нет", ...) followed by a word is a determiner or a negation of that word
  ("there is no contradiction", "no one"), not a verdict.

Negation is looked for in the three words before a repeated verdict word, within its clause,
and in the word after one; the negation words are those of English, French, German, Spanish,
Italian, Portuguese, Dutch, the Scandinavian languages, Russian, Ukrainian, Polish, Czech,
Hungarian, Romanian, Turkish, Greek, Finnish, Indonesian, Vietnamese, Arabic, Hebrew, Hindi,
Chinese, Japanese and Korean. Everything here is linear in the answer's length.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from longform_evals.text.sentences import wordset

QUOTES = frozenset("\"'`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a"
                   "\u300c\u300d\u300e\u300f\u301d\u301e\u301f\u2032\u2033")  # fmt: skip
"""Characters that quote a word (after NFKC: full-width quotes are ASCII ones by then)."""

_RUN = re.compile(r"[^\W_]+(?:[-\u2010\u2011'\u2019][^\W_]+)*")
"""A word: letters and digits, with hyphens and apostrophes inside ("no-one", "can't")."""
_LABEL = re.compile(
    r"[^\w\"'`\u2018-\u201f\u00ab\u00bb]*(?:final\s+)?(?:verdict|answer|rating|response|grade|"
    r"judge?ment)[^\w\"'`\u2018-\u201f\u00ab\u00bb]*?[:\-]",
    re.IGNORECASE,
)
"""A label before the verdict: "Answer:", "**Final verdict:**", "Rating -"."""
_CLAUSE_END = re.compile(r"[.!?;\n\u3002\uff01\uff1f]")
_DETERMINED = re.compile(r"[ \t]+[^\W\d_]")
"""A "no" followed by a word ("no evidence") determines or negates that word."""
_ASKED = re.compile(r"[*_~\s]*\?")
QUESTION_MARKS = (
    "\u00bf\u037e\u055e\u061f\u1367\u1945\u203d\u2047\u2049\u2753\u2754\u2cfa\u2cfb\u2e18"
    "\u2e2e\u2e54\ua60f\ua6f7\ufe16\ufe56\uff1f\U00011143\U0001e95f\U0001f679\U0001f67a"
    "\U0001f67b\U0001fbc4"
)
"""Question marks (and interrobangs) of every script, each read as "?" before anything else:
every character whose Unicode name says question mark or interrobang but the mathematical
"less-than/greater-than with question mark above" and the invisible tag character
(`tests/judges/test_verdict_text.py` checks the list against the Unicode database). The Greek
question mark matters most: NFKC turns it into a semicolon."""
_AS_ASKED = str.maketrans(dict.fromkeys(QUESTION_MARKS, "?"))


def answer_form(text: str) -> str:
    """The answer as it is read: every question mark an ASCII one, then NFKC (full-width
    letters and quotes are ASCII ones by then). Offsets of :class:`TextVerdict` are in it."""
    return unicodedata.normalize("NFKC", text.translate(_AS_ASKED))


YES_WORDS = wordset(
    "yes oui ja sí sì sim da да так evet tak igen ano áno kyllä jes ναι כן نعم हाँ हां はい 是 是的 "  # noqa: RUF001
    "네 예"
)
NO_WORDS = wordset(
    "no non nein não nao нет ні hayır hayir nie nem ne ei nej nee όχι לא لا नहीं いいえ 否 不 "  # noqa: RUF001
    "不是 아니요 아니오 아뇨"
)
"""Verdict words of the languages above; only English ones are read in answer position."""
VERDICT_WORDS = YES_WORDS | NO_WORDS
NEGATIONS = wordset(
    # en, fr, de, es/it/pt, nl, sv/da/no, ru/uk, pl/cs, hu, ro, tr, el, fi, id, vi, ar, he, hi,
    # zh, ja, ko
    "not never cannot neither nor without hardly barely ne pas jamais sans nicht kein keine "
    "keinen keiner nie niemals ohne nunca jamás sin tampoco ni mai senza né não nem sem "
    "niet geen nooit zonder inte icke ikke ej aldrig aldri не ни никогда без ні ніколи "
    "nigdy bez nikdy soha nélkül nu değil değildir asla hiç yok olmadan δεν μη ei emme "
    "tidak bukan không chẳng لا ليس لم لن غير ما לא אין नहीं न मत 不 没 没有 非 别 未 ない "
    "ません じゃない ではない 안 못 아니"
)
"""Words that negate a verdict word near them."""
INFORMAL_YES = wordset("yeah yep yup yea aye yah")
INFORMAL_NO = wordset("nope nah nay naw nix nö")
"""Informal answers, verdict words wherever they stand: never a determiner ("nah I think")."""
_POSTFIX = wordset(
    "değil değildir değilim nicht niet inte ikke नहीं 아니다 아닙니다 아니에요 ではない じゃない"
)
"""Negations written after the word they negate ("evet değil", "ja nicht")."""
_YES_POSTFIX = _POSTFIX | {"not"}
"""After a yes, "not" also takes it back ("Yes, not really"); "No, not at all" stays a no."""


@dataclass(frozen=True)
class TextVerdict:
    """The verdict an answer gives in answer position."""

    kind: str
    """"yes", "no", or a kind the caller added (the raters' "partial")."""
    word: str
    """The verdict word as written, case-folded ("yes", "partially")."""
    end: int
    """Where the verdict word ends in the :func:`answer_form` of the answer."""


@dataclass(frozen=True)
class _Word:
    start: int
    end: int
    low: str


def _is_mark(char: str) -> bool:
    """Combining marks and invisible format characters (zero-width joiners, soft hyphens)."""
    category = unicodedata.category(char)
    return category[0] == "M" or category == "Cf"


def _words(text: str, start: int) -> Iterator[_Word]:
    """The words from `start`, each with the marks that follow it ("नहीं" is one word, and
    so is "yes\u200bno": marks and invisible characters glue letters together). Lazy, so a
    reader that stops early does not pay for the rest of a long answer."""
    pending: _Word | None = None
    size = len(text)
    for match in _RUN.finditer(text, start):
        begin, end = match.span()
        while end < size and not text[end].isascii() and _is_mark(text[end]):
            end += 1
        if pending is not None and pending.end == begin:
            begin = pending.start
        elif pending is not None:
            yield pending
        pending = _Word(begin, end, text[begin:end].casefold())
    if pending is not None:
        yield pending


def _hidden(word: _Word) -> bool:
    """A verdict word with marks or invisible characters in it ("yes\u200b", "no\u0301")."""
    if word.low.isascii() or word.low in VERDICT_WORDS:
        return False
    return "".join(c for c in word.low if not _is_mark(c)) in VERDICT_WORDS


def _quoted(text: str, word: _Word) -> bool:
    before = text[word.start - 1] if word.start else ""
    after = text[word.end] if word.end < len(text) else ""
    return (bool(before) and before in QUOTES) or (bool(after) and after in QUOTES)


def mention_kind(text: str, word: _Word) -> str | None:
    """ "yes" or "no" when the word gives a verdict where it stands, else None: a no-word
    (or a yes-word of another language) followed by a word determines or negates that word;
    an informal answer ("yeah", "nope") is a verdict wherever it stands."""
    if word.low == "yes" or word.low in INFORMAL_YES:
        return "yes"
    if word.low in INFORMAL_NO:
        return "no"
    if word.low in VERDICT_WORDS and not _DETERMINED.match(text, word.end):
        return "yes" if word.low in YES_WORDS else "no"
    return None


def _is_negation(text: str, word: _Word) -> bool:
    low = word.low
    if low.endswith(("n't", "n\u2019t")) or low.startswith(("n'", "n\u2019")):
        return True
    # "no puedo decir", "нет никакого": a no-word before a word negates it
    return low in NEGATIONS or (low in NO_WORDS and mention_kind(text, word) is None)


def _negated(
    text: str, before: Sequence[_Word], word: _Word, after: _Word | None, side: str
) -> bool:
    """Whether `word` is negated: a negation among the (up to three) words `before` it in its
    clause, or a postfix negation right `after` it."""
    for previous in reversed(before):
        if _CLAUSE_END.search(text, previous.end, word.start):
            break
        if _is_negation(text, previous):
            return True
    if after is None or _CLAUSE_END.search(text, word.end, after.start):
        return False
    return after.low in (_YES_POSTFIX if side == "yes" else _POSTFIX)


def read_answer(
    text: str,
    extra: Mapping[str, str] | None = None,
    sides: Mapping[str, str] | None = None,
) -> TextVerdict | None:
    """The verdict in answer position (module rule), or None when the answer is unreadable.

    `extra` maps further first words to verdict kinds ({"partially": "partial"}); `sides`
    says which of yes / no such a kind sides with ({"partial": "yes"}), for the rule against
    the other verdict later in the answer.
    """
    text = answer_form(text)
    label = _LABEL.match(text)
    begin = label.end() if label else 0
    kinds = {"yes": "yes", "no": "no", **(extra or {})}
    head = _RUN.search(text, begin)
    if head is None or head.group().casefold() not in kinds:
        return None  # the first word is no verdict: nothing else is read
    words = _words(text, begin)
    first = next(words)
    kind = kinds.get(first.low)
    if kind is None or any(c in QUOTES for c in text[begin : first.start]):
        return None
    side = (sides or {}).get(kind, kind)
    word = next(words, None)
    if _quoted(text, first) or _ASKED.match(text, first.end):
        return None
    if _negated(text, (), first, word, side):
        return None
    if kind == "no" and _DETERMINED.match(text, first.end):
        return None  # "No evidence supports it": a determiner, not a verdict
    before = deque([first], maxlen=3)
    while word is not None:
        after = next(words, None)
        if not _agrees(text, before, word, after, side):
            return None
        before.append(word)
        word = after
    return TextVerdict(kind, first.low, first.end)


def _agrees(
    text: str, before: Sequence[_Word], word: _Word, after: _Word | None, side: str
) -> bool:
    """Whether `word`, after the verdict, leaves it standing: no verdict word, or a plain
    repeat of the same verdict (not quoted, not negated, not hidden among marks)."""
    kind = mention_kind(text, word)
    if kind is None and word.low in NO_WORDS:
        # "not call it no though": a negated no-word is a verdict word however it goes on
        return not _negated(text, before, word, after, "no")
    if kind is None:
        return not _hidden(word)
    if kind != side or _quoted(text, word):
        return False
    return not _negated(text, before, word, after, kind)


def negated_at(text: str, start: int) -> bool:
    """Whether the word starting at `start` of the :func:`answer_form` text is negated (the
    raters' "Yes, but not partially" is no partial verdict)."""
    before: deque[_Word] = deque(maxlen=3)
    words = _words(text, 0)
    for word in words:
        if word.start == start:
            return _negated(text, before, word, next(words, None), "partial")
        before.append(word)
    return False
