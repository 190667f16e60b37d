"""Word limits, the summary checks and the choice of the best candidate."""

from __future__ import annotations

import pytest

from longform_evals.solvers.common.summary_limits import (
    Candidate,
    choose_best,
    count_words,
    is_finished,
    retry_word_limit,
    summary_problems,
    word_limit,
)


def test_word_limit_follows_the_reference_ratio() -> None:
    assert word_limit(900) == 585
    assert word_limit(100) == 65
    assert word_limit(1) == 1  # never zero


def test_retry_word_limit_drops_ten_percent_per_retry() -> None:
    assert [retry_word_limit(585, k) for k in range(4)] == [585, 526, 474, 426]
    assert retry_word_limit(1, 10) == 1
    with pytest.raises(ValueError):
        retry_word_limit(10, -1)


@pytest.mark.parametrize(
    ("text", "finished"),
    [
        ("He left.", True),
        ("Did he leave?  \n", True),
        ('She said "no."', True),
        ("She said \u201cno.\u201d", True),
        ("And then\u2026", True),
        ("He walked towards the", False),
        ("", False),
        ("   ", False),
    ],
)
def test_is_finished(text: str, finished: bool) -> None:
    assert is_finished(text) is finished


def test_summary_problems() -> None:
    assert summary_problems("One two three.", 3) == []
    assert summary_problems("One two three four.", 3) == ["over_limit"]
    assert summary_problems("One two three", 3) == ["unfinished"]
    assert summary_problems("One two three four", 3) == ["over_limit", "unfinished"]
    assert summary_problems("  ", 3) == ["empty"]
    # a cut-off output is unfinished even when it happens to end with a full stop
    assert summary_problems("Short.", 3, "max_tokens") == ["unfinished"]
    assert summary_problems("Short.", 3, "model_length") == ["unfinished"]
    # no limit: length is not checked
    assert summary_problems("a b c d e f.", None) == []
    assert count_words("  a  b\nc ") == 3


def _cand(text: str, limit: int = 3) -> Candidate:
    return Candidate(text, tuple(summary_problems(text, limit)))


def test_choose_best_prefers_accepted_then_shortest_finished_then_longest() -> None:
    accepted = _cand("Fits well.")
    long_a = _cand("One two three four five.")
    long_b = _cand("One two three four.")
    cut_short = _cand("One two")
    cut_long = _cand("One two three four five six")
    empty = _cand("")
    assert choose_best([long_a, accepted, long_b]) is accepted
    assert choose_best([long_a, cut_long, long_b]) is long_b
    assert choose_best([cut_short, empty, cut_long]) is cut_long
    assert choose_best([empty]) is empty
    with pytest.raises(ValueError):
        choose_best([])
    assert long_b.finished and not long_b.accepted and not cut_long.finished
