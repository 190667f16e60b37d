"""The leaderboard page as a person sees it: opened in headless Chromium, scripts run.

Needs Debian's `chromium` (`.ci/run` installs it) and the `playwright` Python package (the
`dev` extra), which drives the installed browser; the test skips, saying which is missing,
where either is absent. A screenshot is left in the test's temporary folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from longform_evals.analysis.intervals import bootstrap_interval
from longform_evals.reports.leaderboard import HEADLINES, Leaderboard, Row
from longform_evals.reports.leaderboard_render import to_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def row(model: str, scores: list[float], tokens: float, judge: str = "scripted/judge") -> Row:
    r = Row(
        model=model,
        variant="booookscore-hier512",
        task="booookscore",
        judge=judge,
        judge_mode="probe",
        judge_quality="probe judge",
        log=f"/logs/{model.replace('/', '_')}.eval",
        status="success",
        samples=len(scores),
        planned=len(scores),
        errors=0,
        budget_refused=0,
        parse_failure_rate=0.0,
        input_tokens=tokens,
        output_tokens=tokens / 10,
    )
    r.metrics["BooookScore"] = bootstrap_interval(scores)
    r.per_sample["BooookScore"] = {str(i): v for i, v in enumerate(scores)}
    return r


def board() -> Leaderboard:
    rows = [
        row("gguf/small", [60.0, 62.0, 58.0, 61.0], 5_000),
        row("gguf/medium", [80.0, 78.0, 83.0, 79.0], 20_000),
        row("gguf/large", [90.0, 88.0, 91.0, 93.0], 80_000),
    ]
    for rank, r in zip([3, 2, 1], rows, strict=True):
        r.ranks["BooookScore"] = rank
    return Leaderboard(rows, {"booookscore-hier512": HEADLINES["booookscore"]}, [])


@pytest.fixture
def page(tmp_path: Path):  # type: ignore[no-untyped-def]
    if CHROMIUM is None:
        pytest.skip("no chromium browser on this machine (Debian package `chromium`)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    html = tmp_path / "leaderboard.html"
    html.write_text(to_html(board(), "logs/demo"), encoding="utf-8")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.goto(html.as_uri())
            tab.wait_for_selector("body[data-ready=yes]")
            yield tab
            tab.screenshot(path=str(tmp_path / "leaderboard.png"), full_page=True)
        finally:
            browser.close()


def models_in_order(tab) -> list[str]:  # type: ignore[no-untyped-def]
    return tab.eval_on_selector_all(
        "table.board tbody tr", "rows => rows.map(r => r.cells[1].innerText)"
    )


def test_table_sort_and_plot_after_scripts_ran(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tab = page
    # Ranked by BooookScore first.
    assert models_in_order(tab) == ["gguf/large", "gguf/medium", "gguf/small"]
    headers = tab.eval_on_selector_all("table.board th", "hs => hs.map(h => h.innerText)")
    assert "BooookScore [95 % CI]" in headers and "in tok/sample" in headers
    column = headers.index("in tok/sample")
    tab.click(f"table.board th:nth-child({column + 1})")
    assert models_in_order(tab) == ["gguf/small", "gguf/medium", "gguf/large"]
    tab.click(f"table.board th:nth-child({column + 1})")
    assert models_in_order(tab) == ["gguf/large", "gguf/medium", "gguf/small"]
    # One point, one interval and one name per row on the score-versus-tokens plot.
    assert tab.locator("svg.frontier g.point").count() == 3
    assert tab.locator("svg.frontier g[id^=lf-ci-]").count() == 3
    assert tab.locator("svg.frontier g[id^=lf-label-]").count() == 3
    titles = tab.eval_on_selector_all(
        "svg.frontier g.point > title", "ts => ts.map(t => t.textContent)"
    )
    assert any(t.startswith("gguf/large: 90.5") for t in titles)
    # Model cells link to their logs in `inspect view`.
    hrefs = tab.eval_on_selector_all(
        "table.board tbody tr:first-child a", "links => links.map(a => a.href)"
    )
    assert len(hrefs) == 2 and len(set(hrefs)) == 1  # the model cell and the score cell
    assert hrefs[0].startswith("http://127.0.0.1:7575/#/logs/") and hrefs[0].endswith(".eval")
