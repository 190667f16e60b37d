"""MiniCheck faithfulness judges: "is this claim supported by this document?" -> [0, 1].

MiniCheck (Tang, Laban and Durrett, 2024; reference code ``Liyan06/MiniCheck``,
``minicheck/inference.py``) checks a claim against a grounding document chunk by chunk
(:mod:`longform_evals.judges.faithfulness.minicheck_chunking`) and keeps the best chunk: the
support of a claim is the max over chunks of P(supported), and its label is ``p > 0.5``.

Four models, by name (:data:`MINICHECK_MODELS`):

* ``minicheck-roberta-large`` / ``minicheck-deberta-v3-large``: sequence classifiers on the text
  ``chunk + eos_token + claim``; P(supported) = softmax(logits)[1].
* ``minicheck-flan-t5-large``: a seq2seq model on ``"predict: " + chunk + eos_token + claim``;
  one decoder step from the start token, P(supported) = softmax over the logits of token ids
  (3, 209) (``"▁"``, the first piece of ``"0"``: unsupported; ``"▁1"``: supported), index 1.
* ``minicheck-7b`` (Bespoke-MiniCheck-7B): any Inspect model (the ``grader`` role by default),
  prompted with MiniCheck's system and user prompts; P(yes) from the first answer token's top
  log-probabilities.

The first three run locally with torch and transformers (the ``minicheck`` extra). Weights are
never downloaded here: ``from_pretrained(..., local_files_only=True)`` reads a local folder or
the Hugging Face hub cache, and a missing model is a :class:`MiniCheckModelNotFoundError`.
Models are loaded once per (path, kind, device) and shared by all judges in the process.

:class:`MiniCheckSupportJudge` is any of the four as a
:class:`~longform_evals.judges.faithfulness.support.SupportJudge` of the `faithfulness` scorer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import anyio.to_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)

from longform_evals.judges.faithfulness.calibration import JudgeCalibration
from longform_evals.judges.faithfulness.minicheck_chunking import (
    CLASSIFIER_CHUNK_TOKENS,
    LLM_CHUNK_TOKENS,
    T5_CHUNK_WORDS,
    minicheck_chunks,
    word_count,
)
from longform_evals.judges.faithfulness.support import (
    JudgeOptions,
    JudgeSetup,
    SupportJudgement,
)
from longform_evals.judges.steps import JUDGE
from longform_evals.judges.yes_no import read_yes_no
from longform_evals.models.calls import generate
from longform_evals.models.fan_out import fan_out
from longform_evals.models.grader import GRADER_ROLE, grader_model
from longform_evals.models.quiet_loading import quiet_loading
from longform_evals.text import TokenizerLike, get_tokenizer

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

__all__ = [
    "DEFAULT_LABEL_TOKEN_IDS",
    "MINICHECK_MODELS",
    "SYSTEM_PROMPT",
    "USER_PROMPT",
    "LocalKind",
    "MiniCheckJudge",
    "MiniCheckLLMJudge",
    "MiniCheckModelNotFoundError",
    "MiniCheckSupportJudge",
    "minicheck_judge",
    "minicheck_support_rows",
]

LocalKind = Literal["roberta-large", "deberta-v3-large", "flan-t5-large"]
LOCAL_KINDS: tuple[LocalKind, ...] = ("roberta-large", "deberta-v3-large", "flan-t5-large")

MINICHECK_MODELS: dict[str, tuple[str, str]] = {
    "minicheck-roberta-large": ("roberta-large", "lytang/MiniCheck-RoBERTa-Large"),
    "minicheck-deberta-v3-large": ("deberta-v3-large", "lytang/MiniCheck-DeBERTa-v3-Large"),
    "minicheck-flan-t5-large": ("flan-t5-large", "lytang/MiniCheck-Flan-T5-Large"),
    "minicheck-7b": ("7b", "bespokelabs/Bespoke-MiniCheck-7B"),
}
"""Judge name -> (kind, Hugging Face hub id). The 7B runs through an Inspect model."""

# Input truncation of the reference code (max_model_len), in model tokens.
_MAX_LENGTH: dict[LocalKind, int] = {
    "roberta-large": 512,
    "deberta-v3-large": 2048,
    "flan-t5-large": 2048,
}

DEFAULT_LABEL_TOKEN_IDS: tuple[int, int] = (3, 209)
"""Flan-T5 vocabulary ids read at the first decoder step: (unsupported, supported)."""

SYSTEM_PROMPT = (
    "Determine whether the provided claim is consistent with the corresponding document. "
    "Consistency in this context implies that all information presented in the claim is "
    "substantiated by the document. If not, it should be considered inconsistent. Please "
    'assess the claim\'s consistency with the document by responding with either "Yes" or "No".'
)
"""Bespoke-MiniCheck-7B's system prompt (``minicheck/utils.py``)."""

USER_PROMPT = "Document: {document}\nClaim: {claim}"
"""Bespoke-MiniCheck-7B's user prompt (``minicheck/utils.py``)."""

_EXTRA_HINT = (
    "MiniCheck judges need torch and transformers: install the `minicheck` extra "
    "(pip install 'longform-evals[minicheck]')"
)


class MiniCheckModelNotFoundError(FileNotFoundError):
    """The weights of a local MiniCheck model are not on this machine."""


def _import_backend() -> tuple[Any, Any]:
    """Import torch and transformers, or raise an ImportError naming the extra."""
    try:
        import torch
        import transformers
    except ImportError as err:
        raise ImportError(f"{_EXTRA_HINT} ({err})") from err
    return torch, transformers


@dataclass(frozen=True)
class _Loaded:
    tokenizer: PreTrainedTokenizerBase
    model: PreTrainedModel


_MODELS: dict[tuple[str, str, str], _Loaded] = {}
_LOAD_LOCK = threading.Lock()


def _load(path: str, kind: LocalKind, device: str) -> _Loaded:
    """Load (once) the tokenizer and model of ``kind`` from ``path``, without downloading."""
    key = (path, kind, device)
    with _LOAD_LOCK:
        loaded = _MODELS.get(key)
        if loaded is not None:
            return loaded
        _, transformers = _import_backend()
        auto = (
            transformers.AutoModelForSeq2SeqLM
            if kind == "flan-t5-large"
            else transformers.AutoModelForSequenceClassification
        )
        try:
            with quiet_loading():
                tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
                model = auto.from_pretrained(path, local_files_only=True)
        except (OSError, ValueError) as err:
            raise MiniCheckModelNotFoundError(
                f"MiniCheck model {path!r} ({kind}) could not be loaded from local files: the "
                "weights must already be on this machine, as a local folder or in the Hugging "
                "Face hub cache (nothing is downloaded at run time). Download it once where "
                f"there is network, e.g. `hf download {path}`, or pass a folder path. "
                f"Cause: {err}"
            ) from err
        model.to(device)
        model.eval()
        loaded = _MODELS[key] = _Loaded(tokenizer, model)
        return loaded


class MiniCheckJudge:
    """A local MiniCheck model (RoBERTa, DeBERTa or Flan-T5) scoring (document, claim) pairs.

    Args:
        kind: ``roberta-large``, ``deberta-v3-large`` or ``flan-t5-large``.
        path: A local folder or a hub id already in the HF cache; defaults to the kind's
            ``lytang/MiniCheck-*`` id.
        batch_size: (chunk, claim) pairs per forward pass.
        device: torch device, CPU by default.
        chunk_size: chunk limit; 400 tokens (RoBERTa / DeBERTa) or 500 words (Flan-T5).
        max_length: input truncation in model tokens; MiniCheck's 512 (RoBERTa) or 2048.
        label_token_ids: Flan-T5 only: the (unsupported, supported) vocabulary ids compared at
            the first decoder step; MiniCheck's (3, 209).

    The model is loaded lazily, on first use, and cached for the process.
    """

    def __init__(
        self,
        kind: LocalKind,
        path: str | None = None,
        *,
        batch_size: int = 16,
        device: str = "cpu",
        chunk_size: int | None = None,
        max_length: int | None = None,
        label_token_ids: tuple[int, int] = DEFAULT_LABEL_TOKEN_IDS,
    ) -> None:
        if kind not in LOCAL_KINDS:
            raise ValueError(f"unknown MiniCheck kind {kind!r}; local kinds: {LOCAL_KINDS}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.kind: LocalKind = kind
        self.path = path or MINICHECK_MODELS[f"minicheck-{kind}"][1]
        self.batch_size = batch_size
        self.device = device
        self.chunk_size = chunk_size or (
            T5_CHUNK_WORDS if kind == "flan-t5-large" else CLASSIFIER_CHUNK_TOKENS
        )
        self.max_length = max_length or _MAX_LENGTH[kind]
        self.label_token_ids = label_token_ids

    def __repr__(self) -> str:
        return f"MiniCheckJudge(kind={self.kind!r}, path={self.path!r}, device={self.device!r})"

    def _loaded(self) -> _Loaded:
        return _load(self.path, self.kind, self.device)

    def _length(self) -> Callable[[str], int]:
        if self.kind == "flan-t5-large":
            return word_count
        tokenizer = self._loaded().tokenizer

        def tokens(sentence: str) -> int:
            ids = tokenizer(
                sentence, add_special_tokens=False, truncation=True, max_length=self.max_length
            )["input_ids"]
            return len(ids)

        return tokens

    def chunks(self, document: str) -> list[str]:
        """The document's MiniCheck chunks (at least one)."""
        return minicheck_chunks(document, self.chunk_size, self._length())

    def pair_probs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(supported) of each (chunk, claim) pair, batched; blocking."""
        if not pairs:
            return []
        torch, _ = _import_backend()
        loaded = self._loaded()
        tokenizer, model = loaded.tokenizer, loaded.model
        eos = tokenizer.eos_token or tokenizer.sep_token or ""
        prefix = "predict: " if self.kind == "flan-t5-large" else ""
        texts = [f"{prefix}{chunk}{eos}{claim}" for chunk, claim in pairs]
        out: list[float] = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                batch = tokenizer(
                    texts[start : start + self.batch_size],
                    max_length=self.max_length,
                    truncation=True,
                    padding=True,
                    return_tensors="pt",
                )
                inputs = {k: v.to(self.device) for k, v in batch.items()}
                if self.kind == "flan-t5-large":
                    n = inputs["input_ids"].size(0)
                    start_ids = torch.zeros((n, 1), dtype=torch.long, device=self.device)
                    logits = model(
                        input_ids=inputs["input_ids"],
                        attention_mask=inputs["attention_mask"],
                        decoder_input_ids=start_ids,
                    ).logits[:, 0, :]
                    logits = logits[:, list(self.label_token_ids)]
                else:
                    logits = model(**inputs).logits
                probs = torch.softmax(logits.float(), dim=-1)[:, 1]
                out.extend(float(p) for p in probs.cpu().tolist())
        return out

    def support_matrix(
        self, documents: Sequence[str], claims: Sequence[str]
    ) -> list[list[tuple[float, int, int]]]:
        """Max-over-chunks support of every claim by every document; blocking.

        Returns:
            One row per document, one entry per claim: (P(supported), index of the best
            chunk, number of chunks). All pairs of all documents are batched together.
        """
        doc_chunks = [self.chunks(d) for d in documents]
        pairs = [(c, claim) for chunks in doc_chunks for claim in claims for c in chunks]
        probs = self.pair_probs(pairs)
        rows: list[list[tuple[float, int, int]]] = []
        i = 0
        for chunks in doc_chunks:
            row: list[tuple[float, int, int]] = []
            for _ in claims:
                block = probs[i : i + len(chunks)]
                i += len(chunks)
                best = max(range(len(block)), key=block.__getitem__)
                row.append((block[best], best, len(chunks)))
            rows.append(row)
        return rows

    def score(self, document: str, claim: str) -> float:
        """P(supported) of ``claim`` by ``document``: the max over its chunks; blocking."""
        return self.support_matrix([document], [claim])[0][0][0]


class MiniCheckLLMJudge:
    """Bespoke-MiniCheck-7B (or any model prompted the same way) through an Inspect model.

    Args:
        model: An Inspect model or model name; None means the ``grader`` role.
        chunk_size: chunk limit in tokens of ``tokenizer``; MiniCheck's 32768 - 300.
        tokenizer: counts chunk tokens (the Inspect model's own tokenizer is not reachable;
            pass the model's Hugging Face tokenizer for exact counts).
        top_logprobs: how many alternatives of the first answer token to ask for (MiniCheck: 5).
        cache: use Inspect's model cache.
        model_role: the role whose model judges when `model` is not given.
    """

    kind = "7b"

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        chunk_size: int = LLM_CHUNK_TOKENS,
        tokenizer: TokenizerLike = "cl100k_base",
        top_logprobs: int = 5,
        cache: bool = True,
        model_role: str | None = GRADER_ROLE,
    ) -> None:
        self._model = model
        self.model_role = model_role
        self.chunk_size = chunk_size
        self.tokenizer = get_tokenizer(tokenizer)
        self.top_logprobs = top_logprobs
        self.cache = cache

    def model(self) -> Model:
        """The Inspect model (resolved at first use, so a task's roles apply)."""
        if isinstance(self._model, Model):
            return self._model
        return grader_model(self._model, self.model_role)

    def chunks(self, document: str) -> list[str]:
        """The document's chunks (at least one)."""
        return minicheck_chunks(document, self.chunk_size, self.tokenizer.count)

    async def chunk_support(self, chunk: str, claim: str) -> SupportJudgement:
        """P(yes) of one (chunk, claim) pair; from the answer text when there are no
        log-probabilities; value None when neither gives an answer."""
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=SYSTEM_PROMPT),
            ChatMessageUser(content=USER_PROMPT.format(document=chunk, claim=claim)),
        ]
        config = GenerateConfig(
            temperature=0.0, max_tokens=1, logprobs=True, top_logprobs=self.top_logprobs
        )
        # Only this (Bespoke-MiniCheck-7B) path is a model call; the local classifiers have no
        # token usage to record.
        output = await generate(self.model(), messages, config, step=JUDGE, cache=self.cache)
        p, _ = read_yes_no(output)
        return SupportJudgement(p, "minicheck" if p is not None else "missing", output.completion)

    async def support(self, document: str, claim: str) -> SupportJudgement:
        """Max over chunks of P(yes); a chunk without an answer is ignored."""
        found = await fan_out(*[self.chunk_support(c, claim) for c in self.chunks(document)])
        return _best(list(found))


def _best(found: list[SupportJudgement]) -> SupportJudgement:
    valued = [(j.value, i) for i, j in enumerate(found) if j.value is not None]
    if not valued:
        return SupportJudgement(None, "missing", found[0].answer if found else "")
    value, i = max(valued)
    return SupportJudgement(value, "minicheck", f"{_label(value)} (chunk {i + 1}/{len(found)})")


def _label(p: float) -> str:
    return "supported" if p > 0.5 else "unsupported"


def minicheck_judge(
    name: str, path: str | None = None, **kwargs: Any
) -> MiniCheckJudge | MiniCheckLLMJudge:
    """A MiniCheck judge by name (a key of :data:`MINICHECK_MODELS`).

    Args:
        name: ``minicheck-roberta-large``, ``minicheck-deberta-v3-large``,
            ``minicheck-flan-t5-large`` or ``minicheck-7b``.
        path: local models: a folder or hub id in place of the default id; ``minicheck-7b``:
            an Inspect model name in place of the ``grader`` role.
        **kwargs: passed to :class:`MiniCheckJudge` or :class:`MiniCheckLLMJudge`.
    """
    if name not in MINICHECK_MODELS:
        raise ValueError(f"unknown MiniCheck judge {name!r}; available: {list(MINICHECK_MODELS)}")
    kind = MINICHECK_MODELS[name][0]
    if kind == "7b":
        return MiniCheckLLMJudge(path, **kwargs)
    for local in LOCAL_KINDS:
        if local == kind:
            return MiniCheckJudge(local, path, **kwargs)
    raise AssertionError(kind)  # pragma: no cover


async def minicheck_support_rows(
    judge: MiniCheckJudge | MiniCheckLLMJudge, texts: list[str], sentences: list[str]
) -> list[list[SupportJudgement]]:
    """Judgements for every (text, sentence) pair, one row per text, like ``support_rows``.

    Each value is MiniCheck's max over the text's chunks; ``answer`` names the label
    (``p > 0.5``) and the best chunk. Local models run in a worker thread.
    """
    if not texts:
        raise ValueError("no source texts to judge the summary against")
    if not sentences:
        raise ValueError("the summary has no sentences to judge")
    if isinstance(judge, MiniCheckLLMJudge):
        pairs = [(t, s) for t in texts for s in sentences]
        flat = await fan_out(*[judge.support(t, s) for t, s in pairs])
        n = len(sentences)
        return [list(flat[i * n : (i + 1) * n]) for i in range(len(texts))]
    matrix = await anyio.to_thread.run_sync(judge.support_matrix, texts, sentences)
    return [
        [
            SupportJudgement(p, "minicheck", f"{_label(p)} (chunk {best + 1}/{n})")
            for p, best, n in row
        ]
        for row in matrix
    ]


class MiniCheckSupportJudge:
    """A MiniCheck judge (by name) as a support judge of the `faithfulness` scorer.

    Built once, with the options a MiniCheck judge reads: `path`, and for the local
    classifiers `device` and `batch_size`. It chunks each text itself (the scorer's units are
    natural documents unless told otherwise) and has no calibration: thresholds are 0.5.
    """

    def __init__(self, name: str, options: JudgeOptions | None = None) -> None:
        options = options or JudgeOptions()
        local = name in MINICHECK_MODELS and MINICHECK_MODELS[name][0] != "7b"
        extra: dict[str, Any] = (
            {"batch_size": options.batch_size, "device": options.device}
            if local
            else {"model_role": options.model_role}
        )
        self.name = name
        path = options.path if local else (options.path or options.model)
        self.judge = minicheck_judge(name, path=path, **extra)

    def setup(self) -> JudgeSetup:
        return JudgeSetup(self.name, JudgeCalibration(source="none (MiniCheck)"), None, "natural")

    async def support_rows(
        self, setup: JudgeSetup, texts: list[str], sentences: list[str]
    ) -> list[list[SupportJudgement]]:
        return await minicheck_support_rows(self.judge, texts, sentences)
