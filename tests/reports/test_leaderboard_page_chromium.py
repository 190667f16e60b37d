"""The leaderboard page built from real logs, rendered by headless Chromium from disk.

Small logs are made here with the suite's scripted models: QuALITY-named runs of three models
(two of them answer alike, so their points coincide on the cost plot and their ranks tie) and
BooookScore runs of two of them judged by a scripted judge whose card is in a temporary card
folder. `longform leaderboard`'s writer makes the page; `chromium --headless --screenshot`
renders it (the screenshot is left in the test's temporary folder and its path printed) and
`--dump-dom` gives the DOM after the page's script ran, whose first table must be the overview.
Skips where Chromium is absent (Debian package `chromium`).
"""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from helpers import use_judge_card
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.reports.leaderboard import build_leaderboard
from longform_evals.reports.leaderboard_render import write_all
from longform_evals.scorers.booookscore import booookscore
from longform_evals.scorers.qa_accuracy import choice_accuracy
from longform_evals.solvers import given_summary

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=3000",  # let the page's script run before the capture
]
JUDGE = "scripted/judge"


@pytest.fixture
def card_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The card of the scripted judge in sentence mode, looked up instead of the packaged
    ones; returns its name."""
    figure = {"value": 0.62, "low": 0.55, "high": 0.69, "n": 200}
    return use_judge_card(
        tmp_path, monkeypatch, judge=JUDGE, mode="sentence", figure=figure, summaries=16
    )


def _reader(name: str, letter: str) -> Any:
    return get_model(
        f"scripted/{name}", rules=[{"pattern": "", "response": f"ANSWER: {letter}"}], memoize=False
    )


def _make_logs(logs: Path) -> None:
    questions = [
        Sample(id=f"q{i}", input=f"Question {i}?", choices=["yes", "no"], target=gold)
        for i, gold in enumerate("AAAB")
    ]
    quality = Task(
        dataset=MemoryDataset(questions),
        solver=generate(),
        scorer=choice_accuracy(),
        name="quality",
    )
    readers = [_reader("alpha", "A"), _reader("beta", "B"), _reader("gamma", "A")]
    for log in inspect_eval(quality, model=readers, log_dir=str(logs), display="none"):
        assert log.status == "success", log.error
    summary = "Ada keeps the lighthouse. A storm wrecks a ship."
    samples = [Sample(id=f"s{i}", input="x", metadata={"summary": summary}) for i in range(2)]
    judge = get_model(
        JUDGE, rules=[{"pattern": "Sentence to judge", "response": "No confusion."}], memoize=False
    )
    scored = Task(
        dataset=MemoryDataset(samples),
        solver=given_summary(),
        scorer=booookscore(CoherenceJudging(mode="sentence")),
        name="booookscore",
    )
    for log in inspect_eval(
        scored,
        model=readers[:2],  # gamma has no BooookScore run: its cell must say so
        model_roles={"grader": judge},
        log_dir=str(logs),
        display="none",
    ):
        assert log.status == "success", log.error


class _FirstTable(HTMLParser):
    """The attributes of the first <table>, and whether the page's script marked the body."""

    def __init__(self) -> None:
        super().__init__()
        self.first: dict[str, str] | None = None
        self.ready = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "body":
            self.ready = found.get("data-ready") == "yes"
        if tag == "table" and self.first is None:
            self.first = found


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _written_page(tmp_path: Path) -> Path:
    """The page `longform leaderboard` writes from the scripted logs (skips without Chromium)."""
    if CHROMIUM is None:
        pytest.skip("no chromium browser on this machine (Debian package `chromium`)")
    logs = tmp_path / "logs"
    _make_logs(logs)
    board = build_leaderboard(logs)
    return Path(next(p for p in write_all(board, tmp_path / "out", logs) if p.endswith(".html")))


def test_the_page_in_chromium_opens_with_the_overview(card_folder: str, tmp_path: Path) -> None:
    page = _written_page(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert f'href="#judge-card-{card_folder}"' in text and f'id="judge-card-{card_folder}"' in text
    assert "gamma" in text and "not run" in text

    shot = tmp_path / "leaderboard.png"
    done = _chromium(
        f"--screenshot={shot}", "--window-size=1400,1800", page.as_uri(), profile=tmp_path / "p1"
    )
    assert shot.is_file() and shot.stat().st_size > 10_000, done.stderr[-2000:]
    print(f"leaderboard screenshot: {shot}")

    dumped = _chromium("--dump-dom", page.as_uri(), profile=tmp_path / "p2")
    assert done.returncode == 0 and dumped.returncode == 0, dumped.stderr[-2000:]
    parser = _FirstTable()
    parser.feed(dumped.stdout)
    assert parser.ready, "the page's script did not run"
    assert parser.first is not None and parser.first.get("class") == "overview"
    # The DOM Chromium built holds the overview before the first per-task table.
    dom = dumped.stdout
    assert dom.index('class="overview"') < dom.index('class="board"')


# Added to a copy of the page by the test only: where things landed at 1400 x 900 px.
_MEASURE = """
<script>
var width = document.documentElement.clientWidth, height = window.innerHeight;
var off = [];
document.querySelectorAll("table.overview th, table.overview td").forEach(function (c) {
  if (c.getBoundingClientRect().right > width) off.push(c.textContent.trim().slice(0, 40));
});
document.querySelectorAll("table.board th").forEach(function (th) {
  if (th.textContent === "flags" && th.getBoundingClientRect().right > width) off.push("flags");
});
var seen = ["h1", "#identity", "table.overview"].filter(function (s) {
  var e = document.querySelector(s);
  return e && e.getBoundingClientRect().top < height && e.getBoundingClientRect().top >= 0;
});
document.body.setAttribute("data-width", String(width));
document.body.setAttribute("data-off", off.join("|"));
document.body.setAttribute("data-first-screen", seen.join(","));
</script>
"""


class _Body(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.body: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.body = {k: v or "" for k, v in attrs}


def test_the_first_screen_names_the_run_and_no_column_runs_off_it(
    card_folder: str, tmp_path: Path
) -> None:
    page = _written_page(tmp_path)
    text = page.read_text(encoding="utf-8")
    measured = tmp_path / "measured.html"
    measured.write_text(text.replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    dumped = _chromium(
        "--window-size=1400,900", "--dump-dom", measured.as_uri(), profile=tmp_path / "p3"
    )
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    parser = _Body()
    parser.feed(dumped.stdout)
    body = parser.body
    assert body.get("data-width") and int(body["data-width"]) <= 1400
    # title, the run's identity and the overview all start on the first screen
    assert body.get("data-first-screen") == "h1,#identity,table.overview"
    assert body.get("data-off") == "", f"off the first screen's width: {body.get('data-off')}"
    assert "Plan</b>: ad hoc" in text and "Versions</b>: longform-evals" in text
