"""Pure text utilities: token counting, sentence splitting, chunking and trigram statistics.

Everything here works offline and has no model dependency.
"""

from .chunking import Chunk, chunk_text
from .documents import DocChunk, chunk_documents, join_documents, parse_chunk_mode
from .ngrams import novel_trigram_pct, repeated_trigram_pct, trigrams, words
from .sentences import sentence_spans, split_sentences
from .tokens import (
    DEFAULT_ENCODING,
    Tokenizer,
    TokenizerLike,
    available_encodings,
    count_many,
    count_tokens,
    get_tokenizer,
)

__all__ = [
    "DEFAULT_ENCODING",
    "Chunk",
    "DocChunk",
    "Tokenizer",
    "TokenizerLike",
    "available_encodings",
    "chunk_documents",
    "chunk_text",
    "count_many",
    "count_tokens",
    "get_tokenizer",
    "join_documents",
    "novel_trigram_pct",
    "parse_chunk_mode",
    "repeated_trigram_pct",
    "sentence_spans",
    "split_sentences",
    "trigrams",
    "words",
]
