"""The judge cards a leaderboard page links to, embedded in the page itself.

A page opened from disk cannot follow a link into the installed package, so each packaged card
a row names is written into the page's last section under an anchor (`#judge-card-<name>`),
with its headline (the same text as the row's `judge card` column, `judges.cards.headline_of`)
and the whole card as `longform judge-card` writes it. Rows whose card is missing or
unreadable keep their plain text.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from longform_evals.judges.cards import headline_of, packaged_card
from longform_evals.reports.judge_card import render_markdown
from longform_evals.reports.leaderboard import Row

ANCHOR = "judge-card-"

Cards = Mapping[str, Mapping[str, Any]]
"""Card name -> the packaged card, for the cards a page shows."""


def shown_card(row: Row) -> str | None:
    """The card the row's `judge card` column quotes (the first its samples name)."""
    return row.judge_card_names[0] if row.judge_card_names else None


def page_cards(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """The packaged cards the rows quote, each read once, in the rows' order."""
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        name = shown_card(row)
        if name is None or name in found:
            continue
        try:
            found[name] = packaged_card(name)
        except (FileNotFoundError, ValueError):
            continue  # the row's column already says the card is missing or unreadable
    return found


def card_href(name: str) -> str:
    return f"#{ANCHOR}{html.escape(name)}"


def card_link(row: Row, cards: Cards, text: str | None = None) -> str:
    """The row's card as a link to its section of the page (``text``, default the row's
    `judge card` text), or that text alone when the page has no such card."""
    name = shown_card(row)
    shown = html.escape(row.judge_card if text is None else text)
    if name is None or name not in cards:
        return shown
    return f'<a class="card" href="{card_href(name)}">{shown}</a>'


def cards_section(cards: Cards) -> list[str]:
    """The page's last section: each card under its anchor (nothing when there is none)."""
    if not cards:
        return []
    out = [
        '<h2 id="judge-cards">Judge cards</h2>',
        '<p class="note">How far each judge named above agrees with people\'s labels '
        "(packaged cards, written by <code>longform judge-card</code>).</p>",
    ]
    for name, card in cards.items():
        title = f"{card.get('judge')} on {card.get('kind')} ({card.get('mode')})"
        out.append(f'<section class="judge-card" id="{ANCHOR}{html.escape(name)}">')
        out.append(f"<h3>Judge card: {html.escape(title)}</h3>")
        out.append(f"<p><strong>{html.escape(headline_of(card))}</strong></p>")
        try:
            whole = render_markdown(card)
        except (KeyError, TypeError, ValueError, AttributeError):
            whole = None  # a card with only what the headline needs: the headline is all
        if whole is not None:
            out.append(
                "<details><summary>The whole card</summary>"
                f"<pre>{html.escape(whole)}</pre></details>"
            )
        out.append("</section>")
    return out
