"""The judge the judge-agreement scorer studies: its kind and how it is asked, one object.

:class:`AgreementJudge` is what the `judge_agreement` scorer takes (the task builds it from its
parameters); it builds the unit judge of its kind from the two tables, the coherence table
(`coherence/judges.py`) or the support table through the faithfulness scorer's judging
(`faithfulness/judging.py`), so people's units are judged as the suite's scorers judge them.
"""

from __future__ import annotations

from dataclasses import dataclass

from longform_evals.judges.coherence.judges import CoherenceJudging, CoherenceUnitJudge
from longform_evals.judges.coherence.paper import SentenceLayout
from longform_evals.judges.faithfulness.judging import FaithfulnessJudging
from longform_evals.judges.logged_fields import LoggedFields
from longform_evals.judges.unit_judge import UnitJudge
from longform_evals.models.grader import GRADER_ROLE
from longform_evals.vocabulary import JUDGE_KINDS, JudgeKind, ScorerMode

__all__ = ["AgreementJudge"]


@dataclass(frozen=True)
class AgreementJudge(LoggedFields):
    """The judge under study.

    Attributes:
        kind: `coherence` (the BooookScore judge) or `faithfulness` (a support judge).
        mode: coherence: the BooookScore mode (`auto`, `probe`, `sentence`, `batched`, ...).
        layout: coherence, `sentence` mode: the prompt layout.
        calibration: coherence, `probe` mode: a thresholds file instead of the packaged one.
        threshold: one threshold instead of the calibrated ones (coherence `probe` mode: for
            every probe; faithfulness: the support threshold).
        support_judge: faithfulness: the judge's name (`llm` or a MiniCheck judge).
        chunking: faithfulness: how the judge reads the source (default: its calibration).
        prompts_dir: folder overriding the judges' prompt templates.
        retrieval: faithfulness: which source units the judge reads per sentence (`all`, or
            `<retriever>:<k>`; `judges/faithfulness/retrieval.py`); None: the judge's calibration's.
    """

    kind: JudgeKind = "coherence"
    mode: ScorerMode = "auto"
    layout: SentenceLayout = "quoted"
    calibration: str | None = None
    threshold: float | None = None
    support_judge: str = "llm"
    chunking: str | None = None
    prompts_dir: str | None = None
    retrieval: str | None = None

    FIELDS_NAME = "judge fields"

    def __post_init__(self) -> None:
        if self.kind not in JUDGE_KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; expected 'coherence' or 'faithfulness'")

    def coherence(self) -> CoherenceJudging:
        """The coherence table's judging with these settings."""
        return CoherenceJudging(
            mode=self.mode,
            layout=self.layout,
            calibration=self.calibration,
            threshold=self.threshold if self.kind == "coherence" else None,
            prompts_dir=self.prompts_dir,
        )

    def faithfulness(
        self, model: str | None = None, model_role: str | None = GRADER_ROLE
    ) -> FaithfulnessJudging:
        """The faithfulness scorer's judging with this support judge. What these fields do
        not set is the scorer's default (tests/judges/test_unit_judge.py holds them equal), so
        a summary unit's value is the one the scorer gives."""
        return FaithfulnessJudging.build(
            judge=self.support_judge,
            doc_merge="max",
            sentence_merge="mean",
            chunking=self.chunking,
            include_full=False,
            threshold=self.threshold if self.kind == "faithfulness" else None,
            judge_options={
                "prompts_dir": self.prompts_dir,
                "retrieval": self.retrieval,
                "model": model,
                "model_role": model_role,
            },
        )

    def unit_judge(
        self, model: str | None = None, model_role: str | None = GRADER_ROLE
    ) -> UnitJudge:
        """The unit judge of this kind, asking `model` (else the one bound to `model_role`).
        Both kinds' settings are checked, whichever is built (as the scorer's arguments always
        were)."""
        coherence = CoherenceUnitJudge(self.coherence(), model, model_role)
        faithfulness = self.faithfulness(model, model_role)
        return coherence if self.kind == "coherence" else faithfulness
