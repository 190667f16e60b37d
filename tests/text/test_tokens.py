"""Token counting: quicktok-backed encodings and pluggable tokenizers."""

from __future__ import annotations

import pytest

from longform_evals.text import Tokenizer, available_encodings, count_tokens, get_tokenizer
from longform_evals.text.tokens import count_many


def test_cl100k_known_ids() -> None:
    tok = get_tokenizer("cl100k_base")
    assert tok.encode("hello world") == [15339, 1917]
    assert tok.decode([15339, 1917]) == "hello world"
    assert tok.count("hello world") == 2


def test_default_is_cl100k_and_cached() -> None:
    assert get_tokenizer() is get_tokenizer("cl100k_base")
    assert count_tokens("hello world") == 2


def test_special_token_strings_count_as_text() -> None:
    text = "before <|endoftext|> after"
    tok = get_tokenizer()
    assert tok.count(text) == len(tok.encode(text)) > 3
    assert count_many(tok, [text, "x"]) == [tok.count(text), 1]


@pytest.mark.parametrize("name", available_encodings())
def test_bundled_encodings_round_trip(name: str) -> None:
    tok = get_tokenizer(name)
    text = "Mr. Smith paid 3.14 € — naïve café 😀"
    assert tok.decode(tok.encode(text)) == text
    assert tok.count(text) == len(tok.encode(text))


def test_model_name_resolves() -> None:
    assert get_tokenizer("gpt-4o").encode("hi") == get_tokenizer("o200k_base").encode("hi")


def test_unknown_name_lists_available() -> None:
    with pytest.raises(ValueError, match="no-such-enc") as info:
        get_tokenizer("no-such-enc")
    assert "cl100k_base" in str(info.value) and "o200k_base" in str(info.value)


def test_protocol_object_passes_through() -> None:
    class Chars:
        def encode(self, text: str) -> list[int]:
            return [ord(c) for c in text]

        def decode(self, tokens: list[int]) -> str:
            return "".join(map(chr, tokens))

        def count(self, text: str) -> int:
            return len(text)

    chars = Chars()
    assert isinstance(chars, Tokenizer)
    assert get_tokenizer(chars) is chars
    assert count_tokens("abc", chars) == 3


def test_encode_decode_object_gets_count() -> None:
    class HFLike:
        def encode(self, text: str) -> list[int]:
            return [1, *(ord(c) for c in text)]  # adds a BOS, like many HF tokenizers

        def decode(self, tokens: list[int]) -> str:
            return "".join(chr(t) for t in tokens if t != 1)

    tok = get_tokenizer(HFLike())
    assert tok.count("abc") == 4
    assert tok.decode(tok.encode("abc")) == "abc"


def test_callable_counter() -> None:
    tok = get_tokenizer(lambda s: len(s.split()))
    assert tok.count("one two three") == 3
    assert count_tokens("a b", lambda s: len(s.split())) == 2
    with pytest.raises(NotImplementedError):
        tok.encode("x")


def test_bad_counter_result_and_bad_kinds() -> None:
    with pytest.raises(TypeError, match="non-negative int"):
        count_tokens("x", lambda s: -1)
    with pytest.raises(TypeError, match="int"):
        get_tokenizer(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes"):
        count_tokens(b"x")  # type: ignore[arg-type]
