"""Is a text ready to be judged? Blank texts, texts whose sentences hold no word (a letter or
digit in any script) and wordless fragments of worded texts are found here, before any judge
call, with the reason; judged texts are also searched for words addressed to the judge
(`judges/injection.py`), once they are known to be within the work limits
(`text/work_limits.py`: the number of sentences, the longest one), so that a flood of sentences
is refused before it is searched or judged. The scorers count what this finds
(`scorers/unscorable.py`)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from longform_evals.judges.injection import injection_report
from longform_evals.text import sentence_spans
from longform_evals.text.work_limits import WorkLimits, WorkPlan, excess, work_limits

EMPTY_SUMMARY = "empty_summary"
"""Reason: the text is empty or whitespace only."""
NO_SENTENCES = "no_sentences"
"""Reason: the text is not blank, but no sentence of it holds a word."""
SCORED = "scored"
"""Value key: 1 when the headline value is a number, else 0."""
INJECTION_SUSPECT = "injection_suspect"
"""Value and metadata key: text addressed to the judge was found in the judged sentences."""
OVER_LIMIT = "over_limit"
"""Reason, and value and metadata key of a judged text: judging it would pass a work limit
(`text/work_limits.py`); it is not judged, and the metadata holds the line naming the limit."""
READING_DECIDED = "reading_decided"
"""Value and metadata key of the judged scorers that also judge a sentence's readings (without
its suspect pieces, `judges/statement_parts.py`): how many sentences' scores came from a reading
rather than from the sentence as written (counted, summed over samples, in the results), and
which readings those were."""
REASONS: tuple[str, ...] = (EMPTY_SUMMARY, NO_SENTENCES)

_DESCRIBE = {
    EMPTY_SUMMARY: "the {what} is empty",
    NO_SENTENCES: "no sentence of the {what} has a word (a letter or digit)",
}


def has_word(text: str) -> bool:
    """Whether ``text`` holds a letter or digit in any script."""
    return any(c.isalnum() for c in text)


def worded_sentences(sentences: Iterable[str]) -> tuple[list[str], list[str]]:
    """The sentences that hold a word, and the wordless fragments, each in order.

    Runs of whitespace inside a worded sentence become one space: line breaks and doubled spaces say
    nothing a judge should weigh, and a judge shown them can answer differently.
    """
    worded: list[str] = []
    wordless: list[str] = []
    for sentence in sentences:
        if has_word(sentence):
            worded.append(" ".join(sentence.split()))
        else:
            wordless.append(sentence)
    return worded, wordless


@dataclass(frozen=True)
class TextCheck:
    """What a scorer may judge of a text."""

    problem: str | None
    """`empty_summary`, `no_sentences`, or None when the text can be scored."""
    sentences: list[str]
    """The sentences with a word (the ones to judge)."""
    wordless: list[str]
    """The wordless fragments, not judged."""
    injection: list[dict[str, str]] | None = None
    """For a judged text: the cues of text addressed to the judge (kind, text, where)."""
    over_limit: str | None = None
    """Why judging the text would pass a work limit (problem `over_limit`), else None."""
    keys: list[str] | None = None
    """Each judged sentence as NLTK's ``sent_tokenize`` gives it (line breaks and doubled
    spaces kept; the text's first sentence with the text's leading whitespace): what the
    official BooookScore package tells two sentences apart by (None: the sentences)."""

    @property
    def sentence_keys(self) -> list[str]:
        """:attr:`keys`, or the sentences where none were given."""
        return self.sentences if self.keys is None else self.keys

    def values(self, headline: float) -> dict[str, float]:
        """The value entries counting the reasons and whether ``headline`` is a number (and,
        for a judged text, whether it holds text addressed to the judge)."""
        values = {
            **{reason: float(self.problem == reason) for reason in REASONS},
            SCORED: float(not math.isnan(headline)),
        }
        if self.injection is not None:
            values[INJECTION_SUSPECT] = float(bool(self.injection))
            values[OVER_LIMIT] = float(self.problem == OVER_LIMIT)
        return values

    def metadata(self) -> dict[str, object]:
        meta: dict[str, object] = {"unscorable": self.problem, "wordless_fragments": self.wordless}
        if self.injection is not None:
            meta[INJECTION_SUSPECT] = self.injection
            meta[OVER_LIMIT] = self.over_limit
        return meta

    def explanation(self, what: str = "summary") -> str:
        """Why the text was not scored ("summary" or "answer" as ``what``)."""
        if self.problem is None:
            raise ValueError("the text is scorable")
        if self.problem == OVER_LIMIT:
            return f"not scored ({OVER_LIMIT}): {self.over_limit}"
        return f"not scored ({self.problem}): {_DESCRIBE[self.problem].format(what=what)}"

    def refused(self, reason: str) -> TextCheck:
        """This check of a judged text, refused for passing a work limit (``reason`` names it)."""
        return TextCheck(
            OVER_LIMIT, self.sentences, self.wordless, self.injection or [], reason, self.keys
        )


def sentence_excess(sentences: list[str], limits: WorkLimits | None = None) -> str | None:
    """The work limit a text's sentences pass whatever the judge (too many of them, or one
    longer than one call may show), as :func:`~longform_evals.text.work_limits.excess`
    names it; None within the limits."""
    longest = max(map(len, sentences), default=0)
    plan = WorkPlan(len(sentences), 0, longest, 0)
    return excess(plan, limits or work_limits(), "the text")


def _as_sent_tokenize(text: str) -> list[str]:
    """The sentences of ``text`` as ``sent_tokenize`` returns them: its first sentence starts
    at the start of the text, leading whitespace included."""
    spans = sentence_spans(text)
    return [text[0 if i == 0 else a : b] for i, (a, b) in enumerate(spans)]


def check_text(text: str, sentences: list[str] | None = None, judged: bool = False) -> TextCheck:
    """Check ``text`` split into ``sentences`` (default: NLTK's sentences of it, with their
    :attr:`TextCheck.keys`); `judged`: also look for text addressed to the judge in the
    sentences to judge."""
    raw = _as_sent_tokenize(text) if sentences is None else sentences
    keys = [s for s in raw if has_word(s)] if sentences is None else None
    worded, wordless = worded_sentences(raw)
    if sentences is None:
        wordless = [s.strip() for s in wordless]
    problem = EMPTY_SUMMARY if not text.strip() else None if worded else NO_SENTENCES
    injection = None
    if judged:
        over = None if problem else sentence_excess(worded)
        if over is not None:
            return TextCheck(OVER_LIMIT, worded, wordless, [], over, keys)
        injection = injection_report({f"sentence {i}": s for i, s in enumerate(worded)})
    return TextCheck(problem, worded, wordless, injection, keys=keys)


def summary_problem(text: str) -> str | None:
    """`empty_summary` for a blank text, `no_sentences` for one without a worded sentence,
    else None."""
    return check_text(text).problem
