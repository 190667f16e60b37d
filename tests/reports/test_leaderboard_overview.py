"""The overview at the top of the leaderboard page: models by task, read from the same rows.

The board is made of rows directly (no logs), so each case is exact: a tie, a model without a
run of a task, a run without a value, a task judged by two judges (two columns, never ranked
together) and a whole-run figure (no rank). The page is parsed back and every overview figure
is compared with the figure the task's own table shows for that row: the same text.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import use_judge_card
from longform_evals.analysis.intervals import Interval, bootstrap_interval
from longform_evals.reports.leaderboard import HEADLINES, Leaderboard, Row
from longform_evals.reports.leaderboard_overview import NOT_RUN, cell, columns, rank_text
from longform_evals.reports.leaderboard_render import to_html

CARD = "scripted-judge__coherence__probe"
HEADLINE = "BACC 0.61 [0.55, 0.66] on 12 summaries (booookscore)"


def _row(model: str, variant: str, task: str, judge: str | None = None) -> Row:
    return Row(
        model=model,
        variant=variant,
        task=task,
        judge=judge,
        judge_mode=None,
        judge_quality="-",
        log=f"logs/{model}-{variant}.eval",
        status="success",
        samples=4,
        planned=4,
        errors=0,
        budget_refused=0,
        parse_failure_rate=0.0,
        input_tokens=1_000.0,
        output_tokens=100.0,
    )


def _scored(row: Row, label: str, scores: list[float], rank: int | None) -> Row:
    row.metrics[label] = bootstrap_interval(scores)
    row.per_sample[label] = {str(i): v for i, v in enumerate(scores)}
    if rank is not None:
        row.ranks[label] = rank
    return row


def board() -> Leaderboard:
    """quality: a, b tied at 1, c third. booookscore: a and b judged by two judges, c not run.
    longformfact: a whole-run BACC for a, a run of b without any value."""
    q, b_ = "quality-full", "booookscore-hier"
    rows = [
        _scored(_row("m/a", q, "quality"), "accuracy", [80.0, 100.0, 60.0, 80.0], 1),
        _scored(_row("m/b", q, "quality"), "accuracy", [60.0, 100.0, 80.0, 60.0], 1),
        _scored(_row("m/c", q, "quality"), "accuracy", [0.0, 20.0, 0.0, 10.0], 3),
        _scored(_row("m/a", b_, "booookscore", "s/judge"), "BooookScore", [70.0, 72.0], 1),
        _scored(_row("m/b", b_, "booookscore", "s/other"), "BooookScore", [50.0, 52.0], 1),
        _row("m/a", "lff", "longformfact", "s/judge"),
        _row("m/b", "lff", "longformfact", "s/judge"),
    ]
    rows[3].judge_card_names = [CARD]
    rows[3].judge_card = HEADLINE
    rows[5].metrics["BACC"] = Interval(71.5, float("nan"), float("nan"), n=40)
    metrics = {
        q: [m for m in HEADLINES["quality"] if m.label == "accuracy"],
        b_: HEADLINES["booookscore"],
        "lff": [m for m in HEADLINES["longformfact"] if m.label == "BACC"],
    }
    return Leaderboard(rows, metrics, [])


@pytest.fixture
def card_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The card of `s/judge` in a folder looked up in place of the packaged one."""
    figure = {"value": 0.61, "low": 0.55, "high": 0.66, "n": 300}
    return use_judge_card(
        tmp_path, monkeypatch, judge="s/judge", mode="probe", figure=figure, summaries=12,
        stem=CARD,
    )  # fmt: skip


class Tables(HTMLParser):
    """Every table of a page: per table its class and its rows of (cell text, cell attrs)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[tuple[str, dict[str, str]]]]]] = []
        self._cell: tuple[list[str], dict[str, str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "table":
            self.tables.append((found.get("class", ""), []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = ([], found)
        elif tag == "br" and self._cell:
            self._cell[0].append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            text, attrs = self._cell
            self.tables[-1][1][-1].append(("".join(text).strip(), attrs))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[0].append(data)


def _tables(page: str) -> list[tuple[str, list[list[tuple[str, dict[str, str]]]]]]:
    parser = Tables()
    parser.feed(page)
    return parser.tables


def test_columns_split_by_judge_and_cells_read_the_rows() -> None:
    made = board()
    shown = columns(made)
    assert [(c.variant, c.judge, c.split) for c in shown] == [
        ("quality-full", None, False),
        ("booookscore-hier", "s/judge", True),
        ("booookscore-hier", "s/other", True),
        ("lff", "s/judge", False),
    ]
    quality, judged, other, lff = shown
    a, b, c = (cell(quality, m) for m in ("m/a", "m/b", "m/c"))
    assert (a.rank, a.ranked, a.tied) == (b.rank, b.ranked, b.tied) == (1, 3, True)
    assert rank_text(quality, a) == "rank 1 of 3, tied"
    assert rank_text(quality, c) == "rank 3 of 3"
    # The interval object itself, not a copy or a recomputation.
    assert a.row is not None and a.row.metrics["accuracy"] is made.rows[0].metrics["accuracy"]
    # Two judges: each column holds its own judge's rows only, each ranked 1 of 1.
    assert cell(judged, "m/b").row is None and cell(other, "m/a").row is None
    assert rank_text(judged, cell(judged, "m/a")) == "rank 1 of 1"
    assert cell(judged, "m/c").row is None
    assert rank_text(lff, cell(lff, "m/a")) == "not ranked (a whole-run figure)"


def test_the_page_opens_with_the_overview_and_its_figures_are_the_tables(
    card_folder: str,
) -> None:
    made = board()
    page = to_html(made, "logs")
    tables = _tables(page)
    kind, overview = tables[0]
    assert kind == "overview"
    assert all(k == "board" for k, _ in tables[1:]) and len(tables) == 1 + 3
    header = [text for text, _ in overview[0]]
    assert header[0] == "model" and len(header) == 1 + 4
    assert "judged by s/judge (judge card)" in header[2]
    assert "judged by s/other (no judge card)" in header[3]
    body = {r[0][0]: [text for text, _ in r[1:]] for r in overview[1:]}
    assert list(body) == ["m/a", "m/b", "m/c"]

    # Each figure of the overview is the text of the same row's cell in its task's table.
    def table_figure(variant_index: int, model: str) -> str:
        _, rows = tables[1 + variant_index]
        head = [text for text, _ in rows[0]]
        metric = next(i for i, h in enumerate(head) if h.endswith("[95 % CI]"))
        line = next(r for r in rows[1:] if r[1][0] == model)
        return line[metric][0]

    assert body["m/a"][0].split("\n")[0] == table_figure(0, "m/a")
    assert body["m/c"][0].split("\n")[0] == table_figure(0, "m/c")
    assert body["m/b"][2].split("\n")[0] == table_figure(1, "m/b")
    assert body["m/a"][3].split("\n")[0] == table_figure(2, "m/a") == "71.5 (n=40)"
    assert body["m/a"][0].split("\n")[1] == "rank 1 of 3, tied"
    # Missing combinations stay, marked; a run without a value says so.
    assert body["m/c"][1] == body["m/c"][2] == body["m/c"][3] == f"\u2014 {NOT_RUN}"
    assert body["m/b"][1] == body["m/a"][2] == f"\u2014 {NOT_RUN}"
    assert body["m/b"][3] == "\u2014 no value"
    missing = [attrs for r in overview[1:] for _, attrs in r[1:] if "data-missing" in attrs]
    assert len(missing) == 6 and all(a["class"] == "missing" for a in missing)


def test_judged_columns_and_cells_link_to_the_card_in_the_page(card_folder: str) -> None:
    page = to_html(board(), "logs")
    anchor = f"judge-card-{CARD}"
    assert page.count(f'id="{anchor}"') == 1
    # The overview's column header and the task table's judge card cell both link there.
    assert page.count(f'href="#{anchor}"') == 2
    assert f'<a class="card" href="#{anchor}">{HEADLINE}</a>' in page
    section = page[page.index(f'id="{anchor}"') :]
    assert HEADLINE in section[:1000] and "s/judge on coherence (probe)" in section[:1000]


def test_only_a_first_place_no_one_shares_is_shaded_and_tied_ranks_say_so() -> None:
    made = board()
    _, overview = _tables(to_html(made, "logs"))[0]
    shaded = {
        (r[0][0], i)
        for r in overview[1:]
        for i, (_, a) in enumerate(r[1:])
        if a.get("class") == "best"
    }
    # quality: m/a and m/b share rank 1 (tied): neither is best; each booookscore column has
    # one row, first and told apart from no one else: best.
    assert shaded == {("m/a", 1), ("m/b", 2)}
    tables = _tables(to_html(made, "logs"))
    quality_table = tables[1][1]
    ranks = {line[1][0]: line[0][0] for line in quality_table[1:]}
    assert ranks == {"m/a": "1, tied", "m/b": "1, tied", "m/c": "3"}
    # the same board with m/b dropped: m/a alone at 1 is shaded
    made.rows = [r for r in made.rows if not (r.model == "m/b" and r.variant == "quality-full")]
    _, alone = _tables(to_html(made, "logs"))[0]
    assert [a.get("class") for _, a in alone[1][1:2]] == ["best"]
