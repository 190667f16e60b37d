"""Offline token counting.

Counting defaults to ``cl100k_base`` through the bundled ``quicktok`` vocabularies, so it never
touches the network. Counts treat special-token strings such as ``<|endoftext|>`` as plain text
(tiktoken's ``encode_ordinary``): documents are data, and a stray marker must not crash a run.

Any other tokenizer can be plugged in wherever a ``tokenizer`` argument is accepted:

* an encoding name (``"cl100k_base"``, ``"o200k_base"``, ``"qwen3"``, ``"llama3"``, ...) or a model
  name quicktok knows (``"gpt-4o"``);
* an object with ``encode``, ``decode`` and ``count`` (the :class:`Tokenizer` protocol);
* an object with only ``encode`` and ``decode`` (e.g. a Hugging Face tokenizer), counted as
  ``len(encode(text))``; note that such tokenizers may add special tokens (BOS), which makes the
  counts slightly conservative;
* a plain callable ``str -> int`` that only counts.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Protocol, TypeAlias, runtime_checkable

import quicktok

__all__ = [
    "DEFAULT_ENCODING",
    "Tokenizer",
    "TokenizerLike",
    "available_encodings",
    "count_many",
    "count_tokens",
    "get_tokenizer",
]

DEFAULT_ENCODING = "cl100k_base"

# The vocabularies shipped inside the quicktok wheel (llama4 needs gated files, so it is left out).
_BUNDLED = ("cl100k_base", "o200k_base", "o200k_harmony", "llama3", "qwen3")


@runtime_checkable
class Tokenizer(Protocol):
    """What the text layer needs from a tokenizer."""

    def encode(self, text: str) -> list[int]:
        """Return the token ids of ``text``."""
        ...

    def decode(self, tokens: list[int]) -> str:
        """Return the text of ``tokens``."""
        ...

    def count(self, text: str) -> int:
        """Return the number of tokens in ``text``."""
        ...


@runtime_checkable
class _EncodeDecode(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


TokenizerLike: TypeAlias = str | Tokenizer | _EncodeDecode | Callable[[str], int]


class QuicktokTokenizer:
    """A :class:`Tokenizer` backed by a quicktok encoding (tiktoken-compatible ids)."""

    def __init__(self, encoding: quicktok.Tokenizer, name: str) -> None:
        self._enc = encoding
        self.name = name

    def __repr__(self) -> str:
        return f"QuicktokTokenizer({self.name!r})"

    def encode(self, text: str) -> list[int]:
        """Return the token ids of ``text``, special-token strings encoded as plain text."""
        return list(self._enc.encode_ordinary(text))

    def decode(self, tokens: list[int]) -> str:
        """Return the text of ``tokens`` (invalid UTF-8 splits become U+FFFD)."""
        return str(self._enc.decode(tokens))

    def count(self, text: str) -> int:
        """Return the number of tokens in ``text``."""
        try:
            # The native count is fastest but refuses special-token strings; fall back for those.
            return int(self._enc.count(text))
        except ValueError:
            return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return the token count of each text, computed in one native batch call."""
        if not texts:
            return []
        # Starting worker threads costs more than it saves on small batches.
        threads = 0 if sum(map(len, texts)) > 1_000_000 else 1
        return [int(n) for n in quicktok.count_batch(self._enc, texts, threads=threads)]


class _EncodeDecodeAdapter:
    """Adds ``count`` to an object that can only encode and decode."""

    def __init__(self, inner: _EncodeDecode) -> None:
        self._inner = inner

    def __repr__(self) -> str:
        return f"_EncodeDecodeAdapter({self._inner!r})"

    def encode(self, text: str) -> list[int]:
        return list(self._inner.encode(text))

    def decode(self, tokens: list[int]) -> str:
        return self._inner.decode(tokens)

    def count(self, text: str) -> int:
        return len(self._inner.encode(text))


class _CounterAdapter:
    """Wraps a bare ``str -> int`` counter; it counts but cannot encode or decode."""

    def __init__(self, counter: Callable[[str], int]) -> None:
        self._counter = counter

    def __repr__(self) -> str:
        return f"_CounterAdapter({self._counter!r})"

    def encode(self, text: str) -> list[int]:
        raise NotImplementedError("this tokenizer wraps a bare counting function; it cannot encode")

    def decode(self, tokens: list[int]) -> str:
        raise NotImplementedError("this tokenizer wraps a bare counting function; it cannot decode")

    def count(self, text: str) -> int:
        n = self._counter(text)
        try:
            value = operator.index(n)  # accepts numpy integers too
        except TypeError:
            value = -1
        if isinstance(n, bool) or value < 0:
            raise TypeError(f"token counter must return a non-negative int, got {n!r}")
        return value


_CACHE: dict[str, QuicktokTokenizer] = {}


def available_encodings() -> tuple[str, ...]:
    """Return the encoding names that are bundled and always work offline."""
    return _BUNDLED


def _load_named(name: str) -> QuicktokTokenizer:
    try:
        return QuicktokTokenizer(quicktok.get_encoding(name), name)
    except RuntimeError:
        pass
    try:
        # Model names ("gpt-4o", "meta-llama/Llama-3.1-8B") resolve to their encoding.
        enc = quicktok.encoding_for_model(name)
    except KeyError:
        raise ValueError(
            f"unknown tokenizer {name!r}; available encodings: {', '.join(_BUNDLED)} "
            "(or pass a tokenizer object or a str -> int counting function)"
        ) from None
    return QuicktokTokenizer(enc, str(enc.name))


def get_tokenizer(name: TokenizerLike = DEFAULT_ENCODING) -> Tokenizer:
    """Resolve a tokenizer name or object to a :class:`Tokenizer`.

    Args:
        name: An encoding or model name known to quicktok, an object satisfying
            :class:`Tokenizer`, an object with ``encode``/``decode`` only, or a callable that
            returns the token count of a string.

    Returns:
        A tokenizer. Named tokenizers are cached, so repeated calls are cheap.

    Raises:
        ValueError: If ``name`` is a string that names no known encoding or model.
        TypeError: If ``name`` is none of the accepted kinds.
    """
    if isinstance(name, str):
        tok = _CACHE.get(name)
        if tok is None:
            tok = _CACHE[name] = _load_named(name)
        return tok
    if isinstance(name, quicktok.Tokenizer):
        # A raw quicktok encoding would raise on special-token strings; wrap it.
        return QuicktokTokenizer(name, str(name.name))
    if isinstance(name, Tokenizer):
        return name
    if isinstance(name, _EncodeDecode):
        return _EncodeDecodeAdapter(name)
    if callable(name):
        return _CounterAdapter(name)
    raise TypeError(
        "tokenizer must be an encoding name, a tokenizer object or a str -> int counter, "
        f"not {type(name).__name__}"
    )


def count_tokens(text: str, tokenizer: TokenizerLike = DEFAULT_ENCODING) -> int:
    """Count the tokens in ``text``.

    Args:
        text: The text to count.
        tokenizer: Anything :func:`get_tokenizer` accepts; defaults to ``cl100k_base``.

    Returns:
        The number of tokens.

    Raises:
        TypeError: If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return get_tokenizer(tokenizer).count(text)


def count_many(tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
    """Count tokens for many texts, batched natively when the tokenizer supports it.

    Args:
        tokenizer: A resolved tokenizer.
        texts: The texts to count.

    Returns:
        One count per text, in order.
    """
    if isinstance(tokenizer, QuicktokTokenizer):
        return tokenizer.count_many(texts)
    return [tokenizer.count(t) for t in texts]
