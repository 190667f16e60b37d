"""Point labels on a matplotlib plot that never overlap one another or cover a marker.

Each point gets its label at the first of a fixed list of offsets (near to far, eight
directions each) whose rendered box stays inside the axes and touches no marker, no label
already placed and, where possible, no interval line. Boxes are measured by the figure's own
renderer in display coordinates, so the check is on what is drawn, not on an estimate of text
width. A point whose name fits nowhere gets a number instead, and one whose number fits
nowhere gets nothing on the plot; the caller lists both in a legend. The order of points and
candidates is fixed, so the same figure always comes out the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.lines import Line2D
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox

RADII = (6.0, 12.0, 20.0, 30.0, 44.0, 60.0, 80.0)
"""Distances (points) from a point to its label, tried in this order."""
DIRECTIONS = (45, 0, -45, 135, 180, -135, 90, -90)
"""Angles (degrees), tried in this order at each distance: up-right first, as people read."""
GAP = 2.0
"""Pixels kept free around every label box."""
LEADER_FROM = 20.0
"""A label this far (points) or further from its point is joined to it by a thin line."""


@dataclass
class Placement:
    """Where each point's label went, by the point's index."""

    named: dict[int, Annotation] = field(default_factory=dict)
    """Points labelled with their name."""
    numbered: dict[int, tuple[int, Annotation]] = field(default_factory=dict)
    """Points labelled with a number (the legend gives their names)."""
    unmarked: list[int] = field(default_factory=list)
    """Points with no label on the plot (the legend names them by their coordinates)."""

    def labels(self) -> list[Annotation]:
        return [*self.named.values(), *(a for _, a in self.numbered.values())]


HAlign = Literal["left", "center", "right"]
VAlign = Literal["bottom", "center", "top"]


def _offsets() -> Iterator[tuple[float, float, HAlign, VAlign]]:
    """(dx, dy, horizontal alignment, vertical alignment) of each candidate, in order: the
    text grows away from its point, whatever the direction."""
    for radius in RADII:
        for angle in DIRECTIONS:
            dx = round(radius * math.cos(math.radians(angle)), 3)
            dy = round(radius * math.sin(math.radians(angle)), 3)
            ha: HAlign = "left" if dx > 0 else "right" if dx < 0 else "center"
            va: VAlign = "bottom" if dy > 0 else "top" if dy < 0 else "center"
            yield dx, dy, ha, va


def _inside(box: Bbox, area: Bbox) -> bool:
    return bool(area.x0 <= box.x0 and box.x1 <= area.x1 and area.y0 <= box.y0 and box.y1 <= area.y1)


def _padded(box: Bbox, pixels: float) -> Bbox:
    from matplotlib.transforms import Bbox

    return Bbox.from_extents(box.x0 - pixels, box.y0 - pixels, box.x1 + pixels, box.y1 + pixels)


class _Placer:
    """Tries candidates for one label at a time against what is already on the plot."""

    def __init__(
        self,
        ax: Axes,
        renderer: RendererBase,
        markers: Sequence[Line2D],
        soft: Sequence[Line2D],
        fontsize: float,
    ) -> None:
        self.ax = ax
        self.renderer = renderer
        self.fontsize = fontsize
        self.area = ax.get_window_extent(renderer)
        self.markers = [m.get_window_extent(renderer) for m in markers]
        self.soft = [s.get_window_extent(renderer) for s in soft]
        self.taken: list[Bbox] = []

    def _fits(self, box: Bbox, avoid_soft: bool) -> bool:
        if not _inside(box, self.area):
            return False
        near = _padded(box, GAP)
        blocked = [*self.markers, *self.taken, *(self.soft if avoid_soft else [])]
        return not any(near.overlaps(other) for other in blocked)

    def place(self, index: int, text: str, xy: tuple[float, float]) -> Annotation | None:
        """The label ``text`` of the point at data ``xy`` at its first free candidate (first
        avoiding interval lines too, then not), or None with nothing left drawn."""
        label = self.ax.annotate(
            text,
            xy=xy,
            xytext=(0, 0),
            textcoords="offset points",
            fontsize=self.fontsize,
            annotation_clip=False,
            gid=f"lf-label-{index}",
        )
        for avoid_soft in (True, False):
            for dx, dy, ha, va in _offsets():
                label.set_position((dx, dy))
                label.set_horizontalalignment(ha)
                label.set_verticalalignment(va)
                box = label.get_window_extent(self.renderer)
                if self._fits(box, avoid_soft):
                    self.taken.append(box)
                    if math.hypot(dx, dy) >= LEADER_FROM:
                        self._leader(index, xy, box)
                    return label
        label.remove()
        return None

    def _leader(self, index: int, xy: tuple[float, float], box: Bbox) -> None:
        """A thin line from the point to the nearest point of its label's box, under the
        markers, so a label set far away still says whose it is."""
        to_display = self.ax.transData
        px, py = to_display.transform(xy)
        nearest = (min(max(px, box.x0), box.x1), min(max(py, box.y0), box.y1))
        end = to_display.inverted().transform(nearest)
        self.ax.plot(
            [xy[0], end[0]],
            [xy[1], end[1]],
            color="#6b7280",
            linewidth=0.7,
            zorder=1,
            gid=f"lf-leader-{index}",
        )


def place_labels(
    ax: Axes,
    renderer: RendererBase,
    points: Sequence[tuple[float, float]],
    names: Sequence[str],
    markers: Sequence[Line2D],
    *,
    soft: Sequence[Line2D] = (),
    fontsize: float = 8.0,
) -> Placement:
    """Label each point of ``ax`` with its name where it fits, else with a number.

    The axes' limits must be final (autoscaling off): labels are placed in display
    coordinates, which move with the limits.

    Args:
        ax: The axes the points are drawn on.
        renderer: The renderer of the figure's canvas (Agg's ``get_renderer()``), which
            measures the text.
        points: Each point in data coordinates.
        names: Each point's label.
        markers: Each point's marker, drawn on its own (its rendered box is an obstacle).
        soft: Lines a label should rather not cross (interval bars); crossed when nothing else
            is free.
        fontsize: Of the labels, in points.
    """
    if not len(points) == len(names) == len(markers):
        raise ValueError("place_labels needs one name and one marker per point")
    placer = _Placer(ax, renderer, markers, soft, fontsize)
    # Left to right, then bottom to top, in display coordinates: a fixed order.
    shown = [ax.transData.transform(p) for p in points]
    order = sorted(range(len(points)), key=lambda i: (shown[i][0], shown[i][1], names[i]))
    placement = Placement()
    waiting = []
    for i in order:
        label = placer.place(i, names[i], points[i])
        if label is None:
            waiting.append(i)
        else:
            placement.named[i] = label
    for i in waiting:
        number = len(placement.numbered) + 1  # numbers only for points that show one
        label = placer.place(i, str(number), points[i])
        if label is None:
            placement.unmarked.append(i)
        else:
            placement.numbered[i] = (number, label)
    return placement
