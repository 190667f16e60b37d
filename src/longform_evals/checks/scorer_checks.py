"""Checks of the scorers that need no judge: ROUGE, length control, summary statistics and
choice accuracy. Each value comes from the shipped scorer, called on a bundled input."""

from __future__ import annotations

import math

from inspect_ai.dataset import Sample
from inspect_ai.scorer import Target

from longform_evals.checks.inputs import (
    frost_hold,
    quality_samples,
    respace,
    score_answer,
    summary_samples,
    values,
)
from longform_evals.checks.spec import Check, Observation, show, unchanged, within
from longform_evals.scorers.length_control import length_control
from longform_evals.scorers.qa_accuracy import choice_accuracy
from longform_evals.scorers.rouge import DEFAULT_VARIANTS, rouge
from longform_evals.scorers.summary_stats import summary_statistics
from longform_evals.text import split_sentences

# --------------------------------------------------------------------------------------------
# ROUGE: each fixture's first reference is the answer, scored against all its references.

_ROUGE = DEFAULT_VARIANTS


def _rouge(sample: Sample, answer: str) -> dict[str, float]:
    return values(score_answer(rouge(), sample, answer), _ROUGE)


def _first_reference(sample: Sample) -> str:
    return Target(sample.target).target[0]


def _rouge_own_beats_other() -> Observation:
    # Each sample's own reference against the reference of the next sample in the fixtures:
    # a summary of another chapter or question must score lower on every variant.
    samples = summary_samples()
    worse = []
    for i, sample in enumerate(samples):
        other = _first_reference(samples[(i + 1) % len(samples)])
        own, wrong = _rouge(sample, _first_reference(sample)), _rouge(sample, other)
        worse += [f"{sample.id} {v}" for v in _ROUGE if not wrong[v] < own[v]]
    total = len(samples) * len(_ROUGE)
    return Observation(f"{total - len(worse)}/{total} lower", not worse, "; ".join(worse))


def _rouge_truncation_lowers() -> Observation:
    # Half the reference (its first sentences) recalls less of it, so its F-measure drops.
    sample = summary_samples()[0]
    reference = _first_reference(sample)
    sentences = split_sentences(reference)
    half = " ".join(sentences[: max(1, len(sentences) // 2)])
    full, cut = _rouge(sample, reference), _rouge(sample, half)
    return Observation(
        f"full {show(full)}; half {show(cut)}", all(cut[v] < full[v] for v in _ROUGE)
    )


def _rouge_whitespace() -> Observation:
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    answer = _first_reference(summary_samples()[-1])
    for sample in summary_samples():
        before.update({f"{sample.id} {k}": v for k, v in _rouge(sample, answer).items()})
        after.update({f"{sample.id} {k}": v for k, v in _rouge(sample, respace(answer)).items()})
    return unchanged(before, after)


def _rouge_bounds() -> Observation:
    seen: dict[str, float] = {}
    samples = summary_samples()
    for sample in samples:
        for other in samples:
            scored = _rouge(sample, _first_reference(other))
            seen.update({f"{sample.id}<-{other.id} {k}": v for k, v in scored.items()})
    return within(seen, 0.0, 1.0)


ROUGE_CHECKS = [
    Check(
        "rouge",
        "other_summary_scores_lower",
        "discrimination",
        "every variant: another sample's reference < the sample's own reference",
        _rouge_own_beats_other,
    ),
    Check(
        "rouge",
        "truncation_lowers",
        "direction",
        "the first half of a reference scores lower than the whole, every variant",
        _rouge_truncation_lowers,
    ),
    Check(
        "rouge",
        "whitespace_invariance",
        "invariance",
        "a whitespace-only change leaves rouge1/2/L unchanged (tol 1e-9)",
        _rouge_whitespace,
    ),
    Check("rouge", "bounds", "bounds", "every F-measure in [0, 1]", _rouge_bounds),
]

# --------------------------------------------------------------------------------------------
# Length control: the bundled Frost Hold summary, with its own length as the target.

_LENGTH = ("words", "length_ratio", "within")


def _length(summary: str, target_words: float) -> dict[str, float]:
    sample = Sample(id="the_frost_hold", input="check")
    return values(score_answer(length_control(target_words=target_words), sample, summary), _LENGTH)


def _length_doubling() -> Observation:
    summary, _ = frost_hold()
    goal = float(len(summary.split()))
    once, twice = _length(summary, goal), _length(summary + "\n\n" + summary, goal)
    ok = once["within"] == 1.0 and twice["within"] == 0.0
    ok = ok and math.isclose(twice["length_ratio"], 2 * once["length_ratio"])
    return Observation(f"once {show(once)}; twice {show(twice)}", ok)


def _length_whitespace() -> Observation:
    summary, _ = frost_hold()
    goal = 0.95 * len(summary.split())
    return unchanged(_length(summary, goal), _length(respace(summary), goal))


def _length_bounds() -> Observation:
    summary, _ = frost_hold()
    n = len(summary.split())
    seen: dict[str, float] = {}
    for goal in (1.0, n / 2, 0.91 * n, float(n), 1.1 * n, 10.0 * n):
        row = _length(summary, goal)
        if row["within"] not in (0.0, 1.0):
            return Observation(f"within={row['within']} for target {goal:g}", False)
        seen.update({f"target {goal:g} {k}": v for k, v in row.items() if k != "words"})
    return within(seen, 0.0, float(n))


LENGTH_CHECKS = [
    Check(
        "length_control",
        "doubling_leaves_tolerance",
        "direction",
        "at target = own length: within 1; the summary doubled: within 0, ratio x2",
        _length_doubling,
    ),
    Check(
        "length_control",
        "whitespace_invariance",
        "invariance",
        "a whitespace-only change leaves words, ratio and within unchanged",
        _length_whitespace,
    ),
    Check(
        "length_control",
        "bounds",
        "bounds",
        "within in {0, 1}; ratio >= 0 over targets from 1 word to 10x the length",
        _length_bounds,
    ),
]

# --------------------------------------------------------------------------------------------
# Summary statistics: the Frost Hold summary against the book.

_STATS = ("summary_tokens", "summary_words", "novel_trigrams_pct", "repeated_trigrams_pct")
# cl100k tokens encode runs of spaces, so token counts are not whitespace-invariant by design.
_STATS_WORDS = _STATS[1:]


def _stats(summary: str, document: str) -> dict[str, float]:
    sample = Sample(id="the_frost_hold", input="check", metadata={"document": document})
    return values(score_answer(summary_statistics(), sample, summary), _STATS)


def _stats_duplicate_sentence() -> Observation:
    summary, book = frost_hold()
    sentences = split_sentences(summary)
    repeated = " ".join([*sentences[:3], sentences[1], *sentences[3:]])
    clean, dup = _stats(summary, book), _stats(repeated, book)
    key = "repeated_trigrams_pct"
    return Observation(
        f"clean {clean[key]:.3f}%, duplicated {dup[key]:.3f}%", dup[key] > clean[key]
    )


def _stats_extract_is_less_novel() -> Observation:
    # A stretch copied from the book has almost no trigram the book lacks.
    summary, book = frost_hold()
    extract = " ".join(book.split()[1000:1300])
    own, copied = _stats(summary, book), _stats(extract, book)
    key = "novel_trigrams_pct"
    ok = copied[key] < own[key] and copied[key] <= 1.0
    return Observation(f"summary {own[key]:.2f}%, extract {copied[key]:.2f}%", ok)


def _stats_whitespace() -> Observation:
    summary, book = frost_hold()
    before, after = _stats(summary, book), _stats(respace(summary), book)
    return unchanged({k: before[k] for k in _STATS_WORDS}, {k: after[k] for k in _STATS_WORDS})


def _stats_bounds() -> Observation:
    summary, book = frost_hold()
    seen: dict[str, float] = {}
    texts = {"summary": summary, "extract": " ".join(book.split()[:200]), "word": "frost"}
    for name, text in texts.items():
        row = _stats(text, book)
        seen.update(
            {f"{name} {k}": row[k] for k in ("novel_trigrams_pct", "repeated_trigrams_pct")}
        )
        if min(row["summary_tokens"], row["summary_words"]) < 0:
            return Observation(f"{name}: negative length {show(row)}", False)
    return within({k: v for k, v in seen.items() if not math.isnan(v)}, 0.0, 100.0)


STATS_CHECKS = [
    Check(
        "summary_statistics",
        "duplicated_sentence_repeats",
        "direction",
        "a duplicated sentence raises repeated_trigrams_pct",
        _stats_duplicate_sentence,
    ),
    Check(
        "summary_statistics",
        "extract_is_not_novel",
        "direction",
        "a copied extract of the book: novel_trigrams_pct <= 1% and below the summary's",
        _stats_extract_is_less_novel,
    ),
    Check(
        "summary_statistics",
        "whitespace_invariance",
        "invariance",
        "a whitespace-only change leaves words and trigram shares unchanged "
        "(not summary_tokens: cl100k encodes spaces)",
        _stats_whitespace,
    ),
    Check(
        "summary_statistics",
        "bounds",
        "bounds",
        "trigram shares in [0, 100] %, lengths >= 0",
        _stats_bounds,
    ),
]

# --------------------------------------------------------------------------------------------
# Choice accuracy: the bundled QuALITY questions answered right, wrong and unreadably.

_CHOICE = ("correct", "unparsed")


def _answered(shift: int, template: str = "Answer: ({})") -> list[dict[str, float]]:
    """Each question answered `shift` letters after its gold letter (0: the gold one)."""
    rows = []
    for sample in quality_samples():
        n = len(sample.choices or [])
        gold = ord(str(sample.target).strip()) - ord("A")
        letter = chr(ord("A") + (gold + shift) % n)
        rows.append(
            values(score_answer(choice_accuracy(), sample, template.format(letter)), _CHOICE)
        )
    return rows


def _mean(rows: list[dict[str, float]], key: str) -> float:
    return sum(row[key] for row in rows) / len(rows)


def _choice_wrong_lowers() -> Observation:
    right, wrong = _mean(_answered(0), "correct"), _mean(_answered(1), "correct")
    return Observation(f"gold {right:.3f}, shifted {wrong:.3f}", right == 1.0 and wrong == 0.0)


def _choice_whitespace() -> Observation:
    plain = _answered(0, "Answer: ({})")
    spaced = _answered(0, respace("Answer: ({})"))
    before = {f"{i} {k}": v for i, row in enumerate(plain) for k, v in row.items()}
    after = {f"{i} {k}": v for i, row in enumerate(spaced) for k, v in row.items()}
    return unchanged(before, after)


def _choice_bounds() -> Observation:
    rows = _answered(0) + _answered(2) + _answered(0, "I cannot tell.")
    bad = [row for row in rows if row["correct"] not in (0, 1) or row["unparsed"] not in (0, 1)]
    unread = sum(row["unparsed"] for row in rows)
    ok = not bad and unread == len(quality_samples())
    return Observation(f"{len(rows)} scores, {unread:g} unparsed", ok, "; ".join(map(show, bad)))


CHOICE_CHECKS = [
    Check(
        "choice_accuracy",
        "wrong_letter_lowers",
        "direction",
        "accuracy 1.0 with the gold letters, 0.0 with every letter shifted by one",
        _choice_wrong_lowers,
    ),
    Check(
        "choice_accuracy",
        "whitespace_invariance",
        "invariance",
        "extra spaces and newlines around the answer leave correct/unparsed unchanged",
        _choice_whitespace,
    ),
    Check(
        "choice_accuracy",
        "bounds",
        "bounds",
        "correct and unparsed in {0, 1}; an answer without a letter is unparsed",
        _choice_bounds,
    ),
]

SCORER_CHECKS = [*ROUGE_CHECKS, *LENGTH_CHECKS, *STATS_CHECKS, *CHOICE_CHECKS]
