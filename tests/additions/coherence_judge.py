"""A coherence judge added to the package (a BooookScore mode): `earlier_text` asks, for each
sentence, whether a reader of the summary's earlier sentences alone would be confused by it;
the files `test_adding_to_the_package.py` writes into a scratch copy."""

from __future__ import annotations

from additions.shape import Addition, Insert

MODULE = '''"""The `earlier_text` coherence judge: each sentence judged against the sentences
before it only, one yes/no call per sentence (a reader who has not seen what comes later)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspect_ai.model import GenerateConfig, Model

from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.injection import as_data
from longform_evals.judges.steps import JUDGE
from longform_evals.judges.yes_no import parse_yes_no
from longform_evals.models.calls import generate
from longform_evals.prompts import load_prompt

if TYPE_CHECKING:  # the table that registers this judge defines its options
    from longform_evals.judges.coherence.judges import CoherenceJudging

__all__ = ["earlier_text"]


async def earlier_text(
    options: CoherenceJudging, judge: Model, sentences: list[str], extra: dict[str, Any]
) -> tuple[list[SentenceVerdict], int]:
    """One call per sentence; an answer that is not a clear yes or no is asked again, up to
    ``options.max_attempts`` calls, then left unreadable."""
    template = load_prompt("earlier_text", "judge", options.prompts_dir)
    config = GenerateConfig(temperature=0.0, max_tokens=8)
    verdicts: list[SentenceVerdict] = []
    calls = 0
    for index, sentence in enumerate(sentences):
        earlier = " ".join(as_data(s) for s in sentences[:index]) or "(nothing yet)"
        prompt = template.render(earlier=earlier, sentence=as_data(sentence))
        verdict = SentenceVerdict(index=index, sentence=sentence)
        for _ in range(options.max_attempts):
            output = await generate(judge, prompt, config, step=JUDGE, cache=options.cache)
            calls += 1
            verdict.attempts += 1
            answer = parse_yes_no(output.completion)
            if answer is None:
                verdict.problems.append(f"not a clear yes or no: {output.completion[:80]!r}")
                continue
            verdict.parsed, verdict.confused = True, answer == 1.0
            break
        verdicts.append(verdict)
    extra["calibration"] = "none (the judge's answers as given)"
    return verdicts, calls
'''

PROMPT = """You are reading a summary one sentence at a time. Here is what you have read so far:

<earlier>
{earlier}
</earlier>

Here is the next sentence:

<sentence>
{sentence}
</sentence>

Would a reader who has read only the earlier sentences be confused by this one, because it
names a person, place or event they have not been told about, contradicts them, or does not
follow from them? Answer the question with a single word, Yes or No.
"""

TEST = '''"""The `earlier_text` coherence judge: one call per sentence, yes means confused."""

from __future__ import annotations

import asyncio

from inspect_ai.model import get_model

from longform_evals.judges.coherence.earlier_text import earlier_text
from longform_evals.judges.coherence.judges import CoherenceJudging
from longform_evals.models import providers  # noqa: F401  (the scripted model)


def test_each_sentence_is_one_call_and_an_unclear_answer_is_unreadable() -> None:
    judge = get_model(
        "scripted/judge",
        rules=[
            {"pattern": "Zorb", "response": "Yes"},
            {"pattern": "maybe", "response": "Hard to say."},
            {"default": "No"},
        ],
        memoize=False,
    )
    sentences = ["Ana rows out.", "It is maybe dawn.", "Zorb waves."]
    extra: dict[str, str] = {}
    verdicts, calls = asyncio.run(
        earlier_text(CoherenceJudging(cache=False), judge, sentences, extra)
    )
    assert [v.confused for v in verdicts] == [False, None, True]
    assert not verdicts[1].parsed and calls == 1 + 3 + 1
'''

ADDITION = Addition(
    kind="coherence judge",
    name="earlier_text",
    files={
        "src/longform_evals/judges/coherence/earlier_text.py": MODULE,
        "src/longform_evals/prompts/earlier_text/judge.txt": PROMPT,
        "tests/judges/test_earlier_text.py": TEST,
    },
    inserts=(
        Insert(
            "src/longform_evals/judges/coherence/judges.py",
            anchor="from longform_evals.judges.coherence.fitted import",
            text="from longform_evals.judges.coherence.earlier_text import earlier_text\n",
            before=True,
        ),
        Insert(
            "src/longform_evals/judges/coherence/judges.py",
            anchor="):  # fmt: skip\n    register_judge(_entry)\n",
            text='    JudgeEntry("coherence", "earlier_text", earlier_text, CoherenceJudging,\n'
            "               lambda w: float(w.items)),\n",
            before=True,
        ),
    ),
    limit=4,
)
