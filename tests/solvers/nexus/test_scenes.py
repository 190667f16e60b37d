"""Scene splitting, grouping and dialogue detection (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longform_evals.solvers.nexus.scenes import Scene, group_scenes, has_dialogue, split_scenes


def _check_cover(text: str, scenes: list[Scene]) -> None:
    assert "".join(s.text for s in scenes) == text
    position = 0
    for i, scene in enumerate(scenes):
        assert scene.index == i and scene.start == position and scene.text
        assert text[scene.start : scene.end] == scene.text
        position = scene.end
    assert position == len(text)


def _firsts(scenes: list[Scene]) -> list[str]:
    return [s.text.strip().splitlines()[0] for s in scenes]


SCRIPT = """FADE IN:

INT. KITCHEN - NIGHT

Anna stirs a pot.

                    ANNA
          You are late again.

EXT. ROAD - DAY

Tomas runs through the rain.


He stops at the gate.

INT./EXT. CAR - CONTINUOUS

The engine will not start.
"""


def test_script_scene_headings() -> None:
    scenes = split_scenes(SCRIPT)
    _check_cover(SCRIPT, scenes)
    # "FADE IN:" has a body of its own; the double blank line in a script is not a break
    assert _firsts(scenes) == [
        "FADE IN:",
        "INT. KITCHEN - NIGHT",
        "EXT. ROAD - DAY",
        "INT./EXT. CAR - CONTINUOUS",
    ]
    assert not scenes[0].fallback


BOOK = """The Lighthouse
by Nobody

CHAPTER 1

Mara climbed the stairs.
The lamp was dark.

Chapter Three: The Storm

Waves hit the rocks.

* * *

In the morning the sea was calm.

III.

Years passed.

***

# Epilogue

The lamp burns still.
"""


def test_chapter_and_section_headings() -> None:
    scenes = split_scenes(BOOK)
    _check_cover(BOOK, scenes)
    assert _firsts(scenes) == [
        "The Lighthouse",
        "CHAPTER 1",
        "Chapter Three: The Storm",
        "In the morning the sea was calm.",
        "III.",
        "# Epilogue",
    ]
    # the separator stays with the scene it closes
    assert scenes[2].text.rstrip().endswith("* * *")


def test_heading_only_pieces_join_the_next_scene() -> None:
    text = "PART ONE\n\nChapter 1\n\nIt began.\n\nChapter 2\n\nIt went on.\n\n***\n"
    scenes = split_scenes(text)
    _check_cover(text, scenes)
    assert _firsts(scenes) == ["PART ONE", "Chapter 2"]
    assert scenes[-1].text.endswith("***\n")


def test_prose_blank_line_breaks() -> None:
    text = "First scene.\n\nStill first.\n\n\nSecond scene.\n\nMore.\n \n\t\nThird scene.\n"
    scenes = split_scenes(text)
    _check_cover(text, scenes)
    assert _firsts(scenes) == ["First scene.", "Second scene.", "Third scene."]


def test_uniform_double_spacing_is_paragraph_spacing() -> None:
    text = "\n\n\n".join(f"Paragraph {i} has some words." for i in range(6))
    scenes = split_scenes(text, max_words=100)
    _check_cover(text, scenes)
    assert len(scenes) == 1 and scenes[0].fallback


def test_no_marks_falls_back_to_paragraph_pieces() -> None:
    paragraphs = [" ".join(["word"] * 30) + "." for _ in range(10)]
    text = "\n\n".join(paragraphs)
    scenes = split_scenes(text, max_words=100)
    _check_cover(text, scenes)
    assert all(s.fallback for s in scenes)
    assert [len(s.text.split()) for s in scenes] == [90, 90, 90, 30]
    assert all(s.start == 0 or text[s.start - 2 : s.start] == "\n\n" for s in scenes)


def test_long_paragraph_is_cut_at_sentences() -> None:
    text = " ".join(f"Sentence {i} is here." for i in range(100))  # 400 words, one line
    scenes = split_scenes(text, max_words=50)
    _check_cover(text, scenes)
    assert all(s.text.rstrip().endswith(".") for s in scenes)
    assert all(len(s.text.split()) <= 50 for s in scenes) and len(scenes) == 9  # 12 sentences each


def test_long_marked_scene_is_cut_into_parts() -> None:
    body = "\n".join(f"Line {i} of the long chapter." for i in range(60))  # 360 words
    text = f"CHAPTER 1\n{body}\nCHAPTER 2\nShort.\n"
    scenes = split_scenes(text, max_words=100)
    _check_cover(text, scenes)
    assert not any(s.fallback for s in scenes)
    assert [s.part for s in scenes] == [0, 1, 2, 3, 0]


def test_empty_and_bad_arguments() -> None:
    assert split_scenes("") == []
    assert [s.text for s in split_scenes("  \n")] == ["  \n"]
    with pytest.raises(ValueError, match="max_words"):
        split_scenes("x", max_words=0)
    with pytest.raises(TypeError):
        split_scenes(b"x")  # type: ignore[arg-type]


def test_group_scenes() -> None:
    scenes = split_scenes("\n\n\n".join(f"Scene {i}.\nMore." for i in range(19)))
    assert len(scenes) == 19
    groups = group_scenes(scenes, 8)
    assert [len(g) for g in groups] == [8, 8, 3]
    assert [s for g in groups for s in g] == scenes
    assert group_scenes([], 8) == []
    with pytest.raises(ValueError, match="per_chunk"):
        group_scenes(scenes, 0)


@pytest.mark.parametrize(
    "text",
    [
        'Anna turned. "Where were you?" she asked.',
        "\u201cStop,\u201d said Tomas.",
        "He laughed. \u2018Not today.\u2019",
        "ANNA: You are late.",
        "MARA (V.O.): It was cold that year.",
        "                ANNA\n        You are late again.",
        "TOMAS (CONT'D)\nI ran all the way.",
    ],
)
def test_dialogue_is_detected(text: str) -> None:
    assert has_dialogue(text)


@pytest.mark.parametrize(
    "text",
    [
        "Anna walked to the shop. It was cold.",
        'The so-called "free market" had failed them.',
        "She didn\u2019t know the captain\u2019s name.",
        "CHAPTER ONE\nIt was cold.",
        "INT. KITCHEN - NIGHT\nAnna stirs a pot.",
        "CUT TO:\nThe road is empty.",
        "",
    ],
)
def test_no_dialogue(text: str) -> None:
    assert not has_dialogue(text)


_PIECES = st.sampled_from(
    [
        "\n",
        "\n\n",
        "\n\n\n",
        " ",
        "\t",
        "\r\n",
        "Anna ran.",
        "word ",
        "INT. HOUSE - DAY",
        "EXT. ROAD",
        "CHAPTER 2",
        "Chapter Three",
        "III.",
        "* * *",
        "***",
        "#",
        "# Title",
        '"Hi," he said.',
        "ANNA",
        "Mr. Smith went. Then",
        "\u2029",
        "x",
    ]
)


@given(st.lists(_PIECES, max_size=40).map("".join), st.integers(1, 20))
@settings(max_examples=300, deadline=None)
def test_split_is_lossless(text: str, max_words: int) -> None:
    scenes = split_scenes(text, max_words)
    _check_cover(text, scenes)
    assert len({s.fallback for s in scenes}) <= 1
    has_dialogue(text)  # never raises


@given(st.text(max_size=300), st.integers(1, 50))
@settings(max_examples=300, deadline=None)
def test_split_is_lossless_on_any_text(text: str, max_words: int) -> None:
    _check_cover(text, split_scenes(text, max_words))
