"""The cheap text signals of a confusing sentence."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from longform_evals.analysis.coherence_features import FEATURES, sentence_features


def _named(sentences: list[str]) -> list[dict[str, float]]:
    return [dict(zip(FEATURES, row, strict=True)) for row in sentence_features(sentences)]


def test_each_signal_moves_with_what_it_measures() -> None:
    rows = _named(
        [
            "Mara keeps the lighthouse on the island.",
            "Mara keeps the lighthouse on the island.",
            "Then Zorb arrives with the SEIE plan.",
            "Mara repairs the lamp.",
        ]
    )
    assert [r["position"] for r in rows] == [0.0, 0.25, 0.5, 0.75]
    assert rows[1]["max_overlap_earlier"] == 1.0  # a repeated sentence
    assert rows[1]["novel_content"] == 0.0
    assert rows[2]["new_names"] == 1.0  # Zorb, never introduced
    assert rows[2]["new_acronyms"] == 1.0  # SEIE
    assert rows[3]["new_names"] == 0.0  # nothing new is named
    assert rows[2]["overlap_previous"] == 0.0  # a jump of topic
    assert rows[0]["max_overlap_earlier"] == 0.0 and rows[0]["new_names"] == 0.0


def test_a_name_once_introduced_is_not_new_again() -> None:
    rows = _named(["The keeper is called Mara.", "Mara sleeps."])
    assert rows[0]["new_names"] == 1.0
    assert rows[1]["new_names"] == 0.0


@given(st.lists(st.text(max_size=60), max_size=8))
def test_one_finite_row_per_sentence_in_range(sentences: list[str]) -> None:
    rows = sentence_features(sentences)
    assert len(rows) == len(sentences)
    for row in rows:
        assert len(row) == len(FEATURES)
        assert all(math.isfinite(v) and v >= 0 for v in row)
        named = dict(zip(FEATURES, row, strict=True))
        for key in ("position", "max_overlap_earlier", "overlap_previous", "novel_content"):
            assert named[key] <= 1.0
