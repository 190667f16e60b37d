"""The shape every faithfulness support judge has: "is this sentence supported by this text?".

A support judge reads (text, sentence) pairs and gives each a support value in [0, 1], or None
when its answer cannot be read (reducers ignore it, the scorer counts it). The `faithfulness`
scorer knows judges only through :class:`SupportJudge`; each judge lives in its own module
(the LLM yes/no judge in `llm.py`, MiniCheck in `minicheck.py`) and is named in the table of
`support_judges.py`. Options (prompt, answer length, classifier path, device, batch size) are
given once, when the judge is built, as :class:`JudgeOptions`. Each judgement is also given in
the unit-judge shape (`judges/unit_judge.py`) by
:meth:`SupportJudgement.verdict`, at the judge's sentence threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from longform_evals.judges.faithfulness.calibration import JudgeCalibration
from longform_evals.judges.logged_fields import LoggedFields
from longform_evals.judges.unit_judge import UnitVerdict, support_verdict
from longform_evals.models.grader import GRADER_ROLE

__all__ = ["NOT_ASKED", "JudgeOptions", "JudgeSetup", "SupportJudge", "SupportJudgement"]

NOT_ASKED = "not_asked"
"""The source of a (text, sentence) pair the judge was not asked about (`retrieval.py`)."""


@dataclass(frozen=True)
class SupportJudgement:
    """One (text, sentence) judgement."""

    value: float | None
    """Support in [0, 1]; None when the judge's answer could not be read."""
    source: str
    """Where the value came from: `logprobs`, `text`, `minicheck`, `missing` (unreadable), or
    :data:`NOT_ASKED` (retrieval left the pair out: no call, not a failure)."""

    @property
    def asked(self) -> bool:
        return self.source != NOT_ASKED

    answer: str
    """The judge's answer, as logged (for MiniCheck: the label and the best chunk)."""
    reading: str | None = None
    """The part or reading of the statement whose judgement this is, kept because it was
    less backed (or unreadable) where the statement as written was not (`statement_parts`);
    None: the statement's own judgement."""
    whole: float | None = None
    """With :attr:`reading`: the support of the statement as written."""

    def verdict(self, threshold: float) -> UnitVerdict:
        """The judgement in the unit-judge shape: flagged below ``threshold`` (the judge's
        sentence threshold), its probability of a problem 1 - support."""
        return support_verdict(self.value, threshold, self.answer)


@dataclass(frozen=True)
class JudgeOptions(LoggedFields):
    """How a support judge is built; each judge reads the options it has a use for.

    Attributes:
        max_tokens: LLM judge answer length; 1 reads only the yes/no word (enough with
            log-probabilities), more keeps the judge's short reason in the log.
        cache: cache LLM judge calls (re-scoring costs no calls).
        prompts_dir: folder overriding the `faithfulness/` templates.
        prompt: the `faithfulness/` template; None: the judge model's calibration.
        calibration: a calibration file to use instead of the judge model's packaged one.
        path: MiniCheck classifiers: a local folder or cached hub id in place of the default;
            `minicheck-7b`: an Inspect model name in place of the `grader` role.
        device: torch device of a MiniCheck classifier.
        batch_size: pairs per forward pass of a MiniCheck classifier.
        model: the LLM judge's model (or `minicheck-7b`'s) by name; None: the model bound to
            `model_role`.
        model_role: the role whose model judges when `model` is not given (`grader`; unbound:
            the evaluated model, as in Inspect's model-graded scorers).
        retrieval: which source units the judge reads for each sentence: `all` (every
            unit), or `<retriever>:<k>` with `bm25`, `embedding` or `fused`, the k units most
            related to the sentence (`retrieval.py`); None: the judge's calibration's
            (the setting its thresholds were chosen under; `all` when uncalibrated).
    """

    max_tokens: int = 1
    cache: bool = True
    prompts_dir: str | None = None
    prompt: str | None = None
    calibration: str | None = None
    path: str | None = None
    device: str = "cpu"
    batch_size: int = 16
    model: str | None = None
    model_role: str | None = GRADER_ROLE
    retrieval: str | None = None

    FIELDS_NAME = "judge options"


@dataclass(frozen=True)
class JudgeSetup:
    """A support judge as it stands when a sample is scored (the task's model roles bound)."""

    name: str
    """The judge as the score names it: the grader model, or the MiniCheck judge's name."""
    calibration: JudgeCalibration
    """Its thresholds (and prompt, chunking); `source` says where they came from."""
    prompt: str | None
    """The template it asks with; None for a judge without templates."""
    chunking: str
    """How it reads documents unless the scorer is told otherwise."""


class SupportJudge(Protocol):
    """A faithfulness support judge, built once with its options."""

    def setup(self) -> JudgeSetup:
        """The judge for the sample being scored (resolves model roles and calibration)."""
        ...

    async def support_rows(
        self, setup: JudgeSetup, texts: list[str], sentences: list[str]
    ) -> list[list[SupportJudgement]]:
        """Support of every sentence by every text: one row per text, in order.

        Raises:
            ValueError: when there is no text or no sentence.
        """
        ...
