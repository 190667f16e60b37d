"""Cut a document to a token budget, keeping its beginning, its end, or both (pure)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal, TypeAlias

from longform_evals.text import Tokenizer, TokenizerLike, get_tokenizer

__all__ = [
    "OMISSION_MARK",
    "Truncated",
    "TruncationPolicy",
    "document_shares",
    "fit_documents",
    "truncate_to_budget",
]

TruncationPolicy: TypeAlias = Literal["first", "last", "middle"]
"""``first`` keeps the beginning, ``last`` the end, ``middle`` the beginning and the end."""

OMISSION_MARK = "\n\n[...]\n\n"
"""Put where the middle was dropped, so the model sees that the two halves do not join."""

_POLICIES = ("first", "last", "middle")


@dataclass(frozen=True)
class Truncated:
    """A document cut to a budget.

    Attributes:
        text: The text to use (with :data:`OMISSION_MARK` in place of a dropped middle).
        truncated: Whether anything was dropped.
        kept_tokens: Tokens of the document kept (the mark not included).
        dropped_tokens: Tokens of the document dropped.
        policy: The policy applied.
    """

    text: str
    truncated: bool
    kept_tokens: int
    dropped_tokens: int
    policy: str

    def as_metadata(self) -> dict[str, object]:
        """The record kept in the sample metadata: every field but the text."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "text"}


def _head(tok: Tokenizer, ids: list[int], n: int) -> tuple[str, int]:
    """The longest decodable prefix of at most ``n`` tokens that re-counts within ``n``."""
    while n > 0:
        text = tok.decode(ids[:n])
        # A cut inside a multi-byte character decodes to U+FFFD; take one token fewer then.
        if not text.endswith("\ufffd") and tok.count(text) <= n:
            return text, n
        n -= 1
    return "", 0


def _tail(tok: Tokenizer, ids: list[int], n: int) -> tuple[str, int]:
    """The longest decodable suffix of at most ``n`` tokens that re-counts within ``n``."""
    while n > 0:
        text = tok.decode(ids[len(ids) - n :])
        if not text.startswith("\ufffd") and tok.count(text) <= n:
            return text, n
        n -= 1
    return "", 0


def truncate_to_budget(
    text: str,
    budget: int,
    policy: TruncationPolicy = "first",
    tokenizer: TokenizerLike = "cl100k_base",
) -> Truncated:
    """Cut ``text`` on token boundaries so that it takes at most ``budget`` tokens.

    Args:
        text: The document.
        budget: The most tokens the result may take (the omission mark included).
        policy: ``"first"`` keeps the first ``budget`` tokens, ``"last"`` the last ones, and
            ``"middle"`` keeps half the budget from the beginning and the rest from the end,
            dropping the middle and joining the halves with :data:`OMISSION_MARK`.
        tokenizer: Anything :func:`~longform_evals.text.get_tokenizer` accepts that can
            encode and decode (a bare counting function cannot cut text).

    Returns:
        The kept text and how many tokens were kept and dropped.

    Raises:
        ValueError: If ``policy`` is unknown or ``budget`` is negative.
    """
    if policy not in _POLICIES:
        raise ValueError(f"unknown truncation policy {policy!r}; use one of {', '.join(_POLICIES)}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    tok = get_tokenizer(tokenizer)
    total = tok.count(text)
    if total <= budget:
        return Truncated(text, False, total, 0, policy)
    ids = tok.encode(text)
    if policy == "first":
        kept, n = _head(tok, ids, budget)
    elif policy == "last":
        kept, n = _tail(tok, ids, budget)
    else:
        room = max(0, budget - tok.count(OMISSION_MARK))
        kept, n = "", 0
        while room > 0:
            head, n_head = _head(tok, ids, room // 2)
            tail, n_tail = _tail(tok, ids, room - room // 2)
            joined = head + OMISSION_MARK + tail
            # Tokens can merge across the joins; give up a token until the whole fits.
            if tok.count(joined) <= budget:
                kept, n = joined, n_head + n_tail
                break
            room -= 1
    return Truncated(kept, True, n, len(ids) - n, policy)


def document_shares(lengths: list[int], budget: int) -> list[int]:
    """Token allowance per document when they must share ``budget`` fairly.

    Water-filling: documents shorter than an equal share keep all their tokens and the rest
    of the budget is split evenly among the longer ones, so no position (top, middle, bottom)
    loses more than another; the allowances never add up to more than ``budget``.

    Raises:
        ValueError: If ``budget`` is negative or a length is negative.
    """
    if budget < 0 or any(n < 0 for n in lengths):
        raise ValueError(f"budget and lengths must be >= 0, got {budget} and {lengths}")
    shares = [0] * len(lengths)
    left, open_docs = budget, sorted(range(len(lengths)), key=lambda i: lengths[i])
    while open_docs:
        even = left // len(open_docs)
        i = open_docs[0]
        if lengths[i] <= even:
            shares[i] = lengths[i]
            left -= lengths[i]
            open_docs.pop(0)
            continue
        extra = left - even * len(open_docs)
        for n, j in enumerate(open_docs):
            shares[j] = even + (1 if n < extra else 0)
        break
    return shares


def fit_documents(
    documents: list[str], budget: int, tokenizer: TokenizerLike = "cl100k_base"
) -> tuple[list[str], list[int]]:
    """Cut each document's end so that together they take at most ``budget`` tokens, sharing
    the budget fairly (:func:`document_shares`). Returns the texts and the dropped tokens per
    document (all zero when everything fits)."""
    tok = get_tokenizer(tokenizer)
    lengths = [tok.count(d) for d in documents]
    if sum(lengths) <= budget:
        return list(documents), [0] * len(documents)
    shares = document_shares(lengths, budget)
    cuts = [truncate_to_budget(d, s, "first", tok) for d, s in zip(documents, shares, strict=True)]
    return [c.text for c in cuts], [c.dropped_tokens for c in cuts]
