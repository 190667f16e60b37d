"""The cost plot's point names never overlap one another nor cover a marker.

Each test builds the real figure (`reports/cost_plot.py`) and measures what its renderer draws:
every label's box and every marker's box, in display coordinates. Nearly coincident points (a
few tokens and a tenth of a point apart) are the hard case; a crowd too large for the plot
must fall back to a numbered legend instead of overlapping.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import pytest

from longform_evals.analysis.intervals import Interval
from longform_evals.reports.cost_plot import CostFigure, CostPoint, cost_figure

if TYPE_CHECKING:
    from matplotlib.transforms import Bbox

pytest.importorskip("matplotlib")


def _crowd(n: int, name: str = "gguf/model-{i}") -> list[CostPoint]:
    """``n`` points a few tokens and a tenth of a point apart, with wide intervals."""
    return [
        CostPoint(name.format(i=i), 1_000 + 7 * i, Interval(50 + 0.1 * i, 44.0, 56.0, 8))
        for i in range(n)
    ]


def _check_no_overlap(made: CostFigure) -> None:
    """Measure the drawn figure: label boxes pairwise apart, off every marker, inside the axes."""
    renderer = made.figure.canvas.get_renderer()
    labels: list[Bbox] = [a.get_window_extent(renderer) for a in made.placement.labels()]
    markers: list[Bbox] = [m.get_window_extent(renderer) for m in made.markers]
    for (i, a), (j, b) in combinations(enumerate(labels), 2):
        assert not a.overlaps(b), f"labels {i} and {j} overlap: {a} / {b}"
    for i, label in enumerate(labels):
        for j, marker in enumerate(markers):
            assert not label.overlaps(marker), f"label {i} covers marker {j}"
    area = made.axes.get_window_extent(renderer)
    for label in labels:
        assert area.x0 <= label.x0 and label.x1 <= area.x1
        assert area.y0 <= label.y0 and label.y1 <= area.y1


def test_names_of_nearly_coincident_points_do_not_overlap() -> None:
    points = _crowd(6)
    made = cost_figure(points, "BooookScore")
    _check_no_overlap(made)
    # Six names fit around the cluster: every point is named on the plot, none in a legend.
    assert sorted(made.placement.named) == list(range(6)) and made.legend == []
    texts = {i: a.get_text() for i, a in made.placement.named.items()}
    assert texts == {i: p.name for i, p in enumerate(points)}


def test_a_crowd_too_large_falls_back_to_a_numbered_legend() -> None:
    points = _crowd(30, "gguf/a-rather-long-model-name-{i}")
    made = cost_figure(points, "BooookScore")
    _check_no_overlap(made)
    placement = made.placement
    assert placement.numbered, "30 long names cannot all fit; some must be numbered"
    # Every point is accounted for exactly once: named, numbered or listed as unmarked.
    seen = [*placement.named, *placement.numbered, *placement.unmarked]
    assert sorted(seen) == list(range(30))
    numbers = sorted(n for n, _ in placement.numbered.values())
    assert numbers == list(range(1, len(numbers) + 1))
    for i, (number, label) in placement.numbered.items():
        assert label.get_text() == str(number)
        assert any(line.startswith(f"{number}: {points[i].name},") for line in made.legend)
    assert len(made.legend) == len(placement.numbered) + len(placement.unmarked)


def test_the_same_points_give_the_same_figure() -> None:
    def where() -> list[tuple[str, tuple[float, float]]]:
        made = cost_figure(_crowd(8), "BooookScore")
        return [(a.get_text(), tuple(a.xyann)) for a in made.placement.labels()]

    assert where() == where()
