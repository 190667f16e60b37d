"""Tests of prompt templates kept as files (`longform_evals.prompts`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from longform_evals.prompts import PromptError, PromptTemplate, load_prompt
from longform_evals.prompts import loader as loader_module

PACKAGED_HELLO = Path(loader_module.__file__).parent / "hello" / "answer.txt"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_packaged_hello_template() -> None:
    template = load_prompt("hello", "answer")
    assert Path(template.source) == PACKAGED_HELLO
    assert template.fields == {"passage", "question"}
    text = template.render(passage="The cat sat.", question="Where did the cat sit?")
    assert text.index("The cat sat.") < text.index("Where did the cat sit?")
    assert text.endswith("Where did the cat sit?")  # question last, final newline dropped
    assert "one sentence" in text


def test_override_in_prompts_dir_wins(tmp_path: Path) -> None:
    override = write(tmp_path / "hello" / "answer.txt", "Q: {question}\nP: {passage}\n")
    template = load_prompt("hello", "answer", tmp_path)
    assert template.source == str(override)
    assert template.render(passage="p", question="q") == "Q: q\nP: p"
    # also accepted as a string path
    assert load_prompt("hello", "answer", str(tmp_path)).source == str(override)


def test_prompts_dir_without_the_file_falls_back_to_packaged(tmp_path: Path) -> None:
    write(tmp_path / "other" / "thing.txt", "x")
    assert Path(load_prompt("hello", "answer", tmp_path).source) == PACKAGED_HELLO
    # the flat layout <prompts_dir>/<name>.txt is not consulted
    write(tmp_path / "answer.txt", "flat {passage} {question}")
    assert Path(load_prompt("hello", "answer", tmp_path).source) == PACKAGED_HELLO


def test_empty_or_none_prompts_dir_means_packaged() -> None:
    assert Path(load_prompt("hello", "answer", None).source) == PACKAGED_HELLO
    assert Path(load_prompt("hello", "answer", "").source) == PACKAGED_HELLO


def test_prompts_dir_that_is_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="not a folder"):
        load_prompt("hello", "answer", tmp_path / "nope")


def test_user_only_template(tmp_path: Path) -> None:
    write(tmp_path / "mine" / "ask.txt", "Say {word}.")
    template = load_prompt("mine", "ask", tmp_path)
    assert template.render(word="hi") == "Say hi."


def test_missing_template_names_every_path_tried(tmp_path: Path) -> None:
    with pytest.raises(PromptError) as info:
        load_prompt("nomethod", "noname", tmp_path)
    message = str(info.value)
    assert "nomethod/noname" in message
    assert str(tmp_path / "nomethod" / "noname.txt") in message
    assert str(PACKAGED_HELLO.parent.parent / "nomethod" / "noname.txt") in message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("method", "name"), [("../hello", "answer"), ("hello", "a/b"), ("", "x")])
def test_bad_names_are_rejected(method: str, name: str) -> None:
    with pytest.raises(PromptError, match="invalid prompt"):
        load_prompt(method, name)


def test_missing_field_at_render() -> None:
    with pytest.raises(PromptError) as info:
        load_prompt("hello", "answer").render(passage="p")
    assert "question" in str(info.value)
    assert str(PACKAGED_HELLO) in str(info.value)


def test_extra_field_at_render() -> None:
    template = load_prompt("hello", "answer")
    with pytest.raises(PromptError, match="questoin"):
        template.render(passage="p", question="q", questoin="typo")
    assert "typo" not in template.render(
        passage="p", question="q", questoin="typo", allow_extra=True
    )


def test_values_are_converted_with_str() -> None:
    assert PromptTemplate.from_text("{n} items").render(n=3) == "3 items"


def test_escaped_braces() -> None:
    template = PromptTemplate.from_text('Reply as JSON: {{"answer": "{answer}"}} or {{}}')
    assert template.fields == {"answer"}
    assert template.render(answer="x") == 'Reply as JSON: {"answer": "x"} or {}'
    assert PromptTemplate.from_text("{{{a}}}").render(a="b") == "{b}"
    # field values are inserted verbatim, braces included
    assert PromptTemplate.from_text("{a}").render(a="{b}") == "{b}"


def test_fill_leaves_the_other_fields_for_render() -> None:
    template = PromptTemplate.from_text("Text: {text}\nQ: {question} ({n} words) {{x}}", "t.txt")
    filled = template.fill(question="Why {so}?")
    assert filled.fields == {"text", "n"} and filled.source == "t.txt"
    assert filled.render(text="A", n=3) == "Text: A\nQ: Why {so}? (3 words) {x}"
    # the text is still a template that parses to the same thing
    assert PromptTemplate.from_text(filled.text).render(text="A", n=3) == filled.render(
        text="A", n=3
    )
    assert filled.fill().render(text="B", n=1) == filled.render(text="B", n=1)
    with pytest.raises(PromptError, match="no field"):
        template.fill(title="x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Hello {name", "unmatched '{' at line 1, column 7"),
        ("line one\nbad } here", "single '}' at line 2, column 5"),
        ("{a{b}", "unmatched '{'"),
        ("{obj.attr}", "not a simple field name"),
        ("{items[0]}", "not a simple field name"),
        ("{value:>10}", "not a simple field name"),
        ("{value!r}", "not a simple field name"),
        ("{}", "not a simple field name"),
        ("{0}", "not a simple field name"),
        ("{ name }", "not a simple field name"),
        ("{allow_extra}", "reserved"),
    ],
)
def test_malformed_templates(text: str, message: str) -> None:
    with pytest.raises(PromptError, match="malformed prompt template <string>") as info:
        PromptTemplate.from_text(text)
    assert message in str(info.value)


def test_malformed_file_is_named(tmp_path: Path) -> None:
    bad = write(tmp_path / "mine" / "bad.txt", "oops {a.b}")
    with pytest.raises(PromptError) as info:
        load_prompt("mine", "bad", tmp_path)
    assert str(bad) in str(info.value)


def test_override_lacking_a_packaged_field_is_reported_at_load(tmp_path: Path) -> None:
    override = write(tmp_path / "hello" / "answer.txt", "Just answer: {question}")
    with pytest.raises(PromptError) as info:
        load_prompt("hello", "answer", tmp_path)
    message = str(info.value)
    assert str(override) in message
    assert "lacks field(s) passage" in message
    assert str(PACKAGED_HELLO) in message


def test_override_with_an_unknown_field_is_reported_at_load(tmp_path: Path) -> None:
    write(tmp_path / "hello" / "answer.txt", "{passage} {question} {context}")
    with pytest.raises(PromptError, match="context"):
        load_prompt("hello", "answer", tmp_path)


def test_required_fields(tmp_path: Path) -> None:
    template_file = write(tmp_path / "mine" / "ask.txt", "Say {word}.")
    assert load_prompt("mine", "ask", tmp_path, required_fields=["word"]).fields == {"word"}
    with pytest.raises(PromptError) as info:
        load_prompt("mine", "ask", tmp_path, required_fields=["word", "tone"])
    assert "tone" in str(info.value) and str(template_file) in str(info.value)


def test_cache_is_reused_and_refreshed_on_change(tmp_path: Path) -> None:
    path = write(tmp_path / "mine" / "ask.txt", "Say {word}.")
    first = load_prompt("mine", "ask", tmp_path)
    assert load_prompt("mine", "ask", tmp_path) is first
    write(path, "Shout {word}!!")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert load_prompt("mine", "ask", tmp_path).render(word="hi") == "Shout hi!!"


def test_only_one_final_newline_of_a_file_is_dropped(tmp_path: Path) -> None:
    write(tmp_path / "mine" / "two.txt", "a\n\n")
    assert load_prompt("mine", "two", tmp_path).text == "a\n"
    assert PromptTemplate.from_text("a\n").text == "a\n"  # from_text keeps text as given
