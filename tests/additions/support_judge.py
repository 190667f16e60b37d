"""A faithfulness judge added to the package: `word_overlap` says how much of a sentence's
wording the text holds (no model call, so no prompt folder); the files
`test_adding_to_the_package.py` writes into a scratch copy."""

from __future__ import annotations

from additions.shape import Addition, Insert

MODULE = '''"""The `word_overlap` support judge: the share of a sentence's words that the text
contains, a lexical baseline that calls no model."""

from __future__ import annotations

import re

from longform_evals.judges.faithfulness.calibration import JudgeCalibration
from longform_evals.judges.faithfulness.support import (
    JudgeOptions,
    JudgeSetup,
    SupportJudgement,
)

__all__ = ["WordOverlapJudge"]

_WORD = re.compile(r"\\w+")


class WordOverlapJudge:
    """Support = the share of a sentence's words found in the text (case folded)."""

    def __init__(self, options: JudgeOptions) -> None:
        self.options = options

    def setup(self) -> JudgeSetup:
        return JudgeSetup("word_overlap", JudgeCalibration("none (word overlap)"), None, "natural")

    async def support_rows(
        self, setup: JudgeSetup, texts: list[str], sentences: list[str]
    ) -> list[list[SupportJudgement]]:
        rows = []
        for text in texts:
            seen = set(_WORD.findall(text.casefold()))
            row = []
            for sentence in sentences:
                words = _WORD.findall(sentence.casefold())
                share = sum(w in seen for w in words) / max(1, len(words))
                row.append(SupportJudgement(share, "words", f"{share:.2f}"))
            rows.append(row)
        return rows
'''

TEST = '''"""The `word_overlap` support judge through the faithfulness scorer."""

from __future__ import annotations

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample

from longform_evals.scorers.faithfulness import faithfulness
from longform_evals.solvers.summarize.given import given_summary


def _score(summary: str, tmp_path) -> float:
    sample = Sample(
        id="s",
        input="Summarize.",
        metadata={"documents": ["The lattice is stable at low heat."], "summary": summary},
    )
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=given_summary(),
        scorer=faithfulness(judge="word_overlap"),
    )
    [log] = eval(task, model="scripted/x", log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.samples and log.samples[0].scores
    value = log.samples[0].scores["faithfulness"].value
    assert isinstance(value, dict)
    return float(value["faithfulness"])


def test_a_sentence_the_text_holds_is_supported_and_an_unrelated_one_is_not(tmp_path) -> None:
    assert _score("The lattice is stable.", tmp_path) == 1.0
    assert _score("Whales sing loudly.", tmp_path) == 0.0
'''

ADDITION = Addition(
    kind="faithfulness judge",
    name="word_overlap",
    files={
        "src/longform_evals/judges/faithfulness/word_overlap.py": MODULE,
        "tests/judges/test_word_overlap.py": TEST,
    },
    inserts=(
        Insert(
            "src/longform_evals/judges/faithfulness/support_judges.py",
            anchor="from longform_evals.judges.registry import (",
            text="from longform_evals.judges.faithfulness.word_overlap import WordOverlapJudge\n",
            before=True,
        ),
        Insert(
            "src/longform_evals/judges/faithfulness/support_judges.py",
            anchor="\n\ndef check_judge(",
            text="\nregister_judge(\n"
            '    JudgeEntry("faithfulness", "word_overlap", WordOverlapJudge, JudgeOptions,\n'
            "               lambda work: 0.0, steps=())\n)",
            before=True,
        ),
    ),
    limit=4,
    matrix=False,
)
