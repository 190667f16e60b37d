"""The faithfulness judgement: "is this summary sentence supported by this text?" -> [0, 1].

One call per (text, sentence) pair, the text first and the sentence last, so all sentences
judged against one text share the prompt prefix (provider prompt caches, the local KV cache):
the calls are issued text by text for that reason. The support value is P(yes) read from the
first answer token's log-probabilities when the provider returns them (a graded value the
threshold can be calibrated on), else 1.0 / 0.0 from the answer text; an answer that is
neither yes nor no is a missing value (None), which reducers ignore and the scorer counts.

:class:`LLMSupportJudge` is this judge as a
:class:`~longform_evals.judges.faithfulness.support.SupportJudge` (the `llm` judge of the
`faithfulness` scorer): the `grader` role, its calibration's prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspect_ai.model import GenerateConfig, Model

from longform_evals.judges.faithfulness.calibration import load_calibration
from longform_evals.judges.faithfulness.support import (
    JudgeOptions,
    JudgeSetup,
    SupportJudgement,
)
from longform_evals.judges.injection import as_data
from longform_evals.judges.steps import JUDGE
from longform_evals.judges.yes_no import read_yes_no
from longform_evals.models.calls import generate
from longform_evals.models.fan_out import fan_out
from longform_evals.models.grader import grader_model
from longform_evals.prompts import load_prompt

__all__ = [
    "JUDGE_PROMPTS",
    "FaithfulnessSettings",
    "LLMSupportJudge",
    "SupportJudgement",
    "check_prompt",
    "judge_support",
    "support_rows",
]

JUDGE_PROMPTS: tuple[str, ...] = ("judge", "judge_examples")
"""The faithfulness prompt templates: `judge` (instruction only, asks for a reason) and
`judge_examples` (written for small models: the instruction, then six worked statements about an
invented source, then the real pair; the examples sit before the document so every call shares
them as prompt prefix)."""


@dataclass(frozen=True)
class FaithfulnessSettings:
    """How to ask the LLM faithfulness judge.

    Attributes:
        max_tokens: answer length; 1 reads only the yes/no word (enough with log-probabilities,
            and much faster on local models), more lets the judge give its short reason.
        logprobs: ask for log-probabilities and read P(yes) from them.
        cache: use Inspect's model cache for judge calls.
        prompts_dir: folder overriding the `faithfulness/` templates.
        prompt: which template of `faithfulness/` to ask with (see `JUDGE_PROMPTS`).
    """

    max_tokens: int = 32
    logprobs: bool = True
    top_logprobs: int = 10
    cache: bool = True
    prompts_dir: str | None = None
    prompt: str = "judge"

    def __post_init__(self) -> None:
        if self.prompt not in JUDGE_PROMPTS:
            known = ", ".join(JUDGE_PROMPTS)
            raise ValueError(f"unknown faithfulness prompt {self.prompt!r}; available: {known}")


async def judge_support(
    model: Model, text: str, sentence: str, settings: FaithfulnessSettings
) -> SupportJudgement:
    """Support of one sentence by one text."""
    prompt = load_prompt("faithfulness", settings.prompt, settings.prompts_dir).render(
        document=as_data(text), sentence=as_data(sentence)
    )
    config = GenerateConfig(
        temperature=0.0,
        max_tokens=settings.max_tokens,
        logprobs=settings.logprobs or None,
        top_logprobs=settings.top_logprobs if settings.logprobs else None,
    )
    output = await generate(model, prompt, config, step=JUDGE, cache=settings.cache)
    p, source = read_yes_no(output, settings.logprobs)
    return SupportJudgement(p, "missing" if p is None else source, output.completion)


async def support_rows(
    model: Model, texts: list[str], sentences: list[str], settings: FaithfulnessSettings
) -> list[list[SupportJudgement]]:
    """Judgements for every (text, sentence) pair: one row per text, in order.

    All pairs are submitted at once (concurrent for API models); they are issued text by text,
    so a single-slot local model sees each text's prompts back to back and reuses its prefix.
    """
    if not texts:
        raise ValueError("no source texts to judge the summary against")
    if not sentences:
        raise ValueError("the summary has no sentences to judge")
    pairs = [(t, s) for t in texts for s in sentences]
    flat = await fan_out(*[judge_support(model, t, s, settings) for t, s in pairs])
    n = len(sentences)
    return [list(flat[i * n : (i + 1) * n]) for i in range(len(texts))]


def check_prompt(prompt: str | None) -> None:
    """Fail on a template name that is not one of :data:`JUDGE_PROMPTS` (None: calibrated)."""
    if prompt is not None and prompt not in JUDGE_PROMPTS:
        raise ValueError(f"unknown faithfulness prompt {prompt!r}; available: {JUDGE_PROMPTS}")


@dataclass(frozen=True)
class LLMSupportJudge:
    """The `llm` support judge: the `grader` model answers yes/no per (text, sentence).

    Its prompt, chunking and thresholds come from the grader's calibration (or the file
    `options.calibration` names) unless the options give a prompt.
    """

    options: JudgeOptions = field(default_factory=JudgeOptions)

    def __post_init__(self) -> None:
        check_prompt(self.options.prompt)

    def setup(self) -> JudgeSetup:
        name = str(grader_model(self.options.model, self.options.model_role))
        cal = load_calibration(name, self.options.calibration)
        return JudgeSetup(name, cal, self.options.prompt or cal.prompt, cal.chunking)

    async def support_rows(
        self, setup: JudgeSetup, texts: list[str], sentences: list[str]
    ) -> list[list[SupportJudgement]]:
        settings = FaithfulnessSettings(
            max_tokens=self.options.max_tokens,
            cache=self.options.cache,
            prompts_dir=self.options.prompts_dir,
            prompt=setup.prompt or "judge",
        )
        judge = grader_model(self.options.model, self.options.model_role)
        return await support_rows(judge, texts, sentences, settings)
