"""The judge cards shipped with the package, and which one speaks for a judged score.

A judge card (written by `longform judge-card`, see `reports/judge_card.py`) says how far
one judge model agrees with people's labels for one kind of judgement (`coherence` or
`faithfulness`) asked one way (its `mode`). Cards of the embedded judge are packaged in
`judges/cards/` as `<judge slug>__<kind>__<mode>.json` with a markdown twin.

Scorers record the card that applies to their judge in `Score.metadata["judge_card"]` (its
file stem, or None when no card is packaged for that judge, kind and mode), and reports quote
its headline from it. A card applies when its judge, kind and mode are the score's:

* the judge is the model that answered; a replay (`replay/<name>`) stands for the model it
  recorded, matched on the name after the provider as calibration files are
  (`judges/calibration_files.py`);
* the mode is, for coherence, the BooookScore mode the scorer resolved (`probe`, `fitted`,
  `sentence`, `batched`), and for faithfulness the support judge's table name and its prompt
  joined by `-` (`llm-judge`; a judge without prompt: its name alone), as the card command
  names them (:func:`faithfulness_mode`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

__all__ = [
    "CARD_KINDS",
    "card_headline",
    "card_name",
    "faithfulness_mode",
    "headline_of",
    "packaged_card",
]

CARD_KINDS = ("coherence", "faithfulness")
"""The kinds of judgement a card can be about."""
_REPLAY = "replay/"
_LABELS = {"balanced_accuracy": "BACC"}
_REQUIRED = ("judge", "kind", "mode", "headline", "data")


def _cards_folder() -> Traversable:
    """Where the packaged cards are (tests point this at a folder of their own)."""
    return resources.files("longform_evals.judges").joinpath("cards")


def faithfulness_mode(support_judge: str, prompt: str | None) -> str:
    """A faithfulness card's mode: `<support judge>-<prompt>`, or the judge's name alone
    when it asks with no prompt (MiniCheck)."""
    return f"{support_judge}-{prompt}" if prompt else support_judge


def _checked(card: Any, where: str) -> dict[str, Any]:
    """``card`` if it has what this module reads of a card, else a ValueError naming it."""
    if not isinstance(card, dict):
        raise ValueError(f"{where} is not a judge card: a JSON object expected")
    missing = [k for k in _REQUIRED if k not in card]
    if missing:
        raise ValueError(f"{where} is not a complete judge card: missing {', '.join(missing)}")
    for key in ("headline", "data"):
        if not isinstance(card[key], dict):
            raise ValueError(f"{where}: {key} must be an object")
    if "name" not in card["headline"]:
        raise ValueError(f"{where} is not a complete judge card: missing headline.name")
    return card


def _read(entry: Traversable, where: str) -> dict[str, Any]:
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{where} is not a judge card: {e}") from e
    return _checked(data, where)


def _packaged() -> Iterator[tuple[str, dict[str, Any]]]:
    """Each packaged card as (file stem, card), in file-name order."""
    folder = _cards_folder()
    if not folder.is_dir():
        return
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_file() and entry.name.endswith(".json"):
            yield entry.name.removesuffix(".json"), _read(entry, f"judge card {entry.name}")


def _replayed_name(judge: str) -> str | None:
    """`qwen2.5-coder-1.5b` for `replay/qwen2.5-coder-1.5b`; None for a judge not replayed."""
    return judge.removeprefix(_REPLAY) if judge.startswith(_REPLAY) else None


def _stands_for(card_judge: str, judge: str) -> bool:
    """Whether a replay on one side plays the model on the other (same name after the
    provider)."""
    replayed = _replayed_name(judge) or _replayed_name(card_judge)
    if replayed is None:
        return False
    return card_judge.split("/", 1)[-1] == judge.split("/", 1)[-1]


def card_name(judge: str, kind: str, mode: str) -> str | None:
    """The file stem of the packaged card for ``judge`` judging ``kind`` in ``mode``, or None
    when none is packaged. A card of the judge itself wins over one matched through a replay.

    Raises:
        ValueError: for a kind that has no cards, or a packaged card that cannot be read.
    """
    if kind not in CARD_KINDS:
        raise ValueError(f"no judge cards of kind {kind!r}; kinds: {', '.join(CARD_KINDS)}")
    through_replay: str | None = None
    for name, card in _packaged():
        if card["kind"] != kind or card["mode"] != mode:
            continue
        card_judge = str(card["judge"])
        if card_judge == judge:
            return name
        if through_replay is None and _stands_for(card_judge, judge):
            through_replay = name
    return through_replay


def packaged_card(name: str) -> dict[str, Any]:
    """The packaged card ``name`` (a stem :func:`card_name` gave), as read from its JSON.

    Raises:
        FileNotFoundError: when no card of that name is packaged.
        ValueError: when the file is not a judge card.
    """
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise FileNotFoundError(f"no packaged judge card named {name!r}")
    entry = _cards_folder().joinpath(f"{name}.json")
    if not entry.is_file():
        raise FileNotFoundError(f"no packaged judge card named {name!r} (judges/cards/)")
    return _read(entry, f"judge card {name}.json")


def headline_of(card: Mapping[str, Any]) -> str:
    """A card's headline on one line, e.g.
    `BACC 0.58 [0.52, 0.63] on 20 summaries (booookscore)`.

    The same text as `reports.judge_card.headline_text`, written again here because a judge
    module may not import reports (tests/judges/test_cards.py checks the two agree)."""
    head = card["headline"]
    label = head.get("label") or _LABELS.get(head["name"], head["name"])
    value = head.get("value")
    if isinstance(value, int | float):
        text = f"{label} {value:.2f}"
        low, high = head.get("low"), head.get("high")
        text += f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    else:
        text = f"{label} n/a"
    data = card["data"]
    n = data.get("summaries_judged")
    return f"{text} on {n} summar{'y' if n == 1 else 'ies'} ({data.get('format')})"


def card_headline(name: str) -> str:
    """The headline of the packaged card ``name`` (see :func:`headline_of`).

    Raises:
        FileNotFoundError: when no card of that name is packaged.
        ValueError: when the file is not a judge card.
    """
    return headline_of(packaged_card(name))
