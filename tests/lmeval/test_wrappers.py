"""The wrapper LMs, plain lm-eval models on the suite's tasks, and the errors of bad set-ups."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from helpers import OFFLINE_RULES

pytest.importorskip("lm_eval")

from lm_eval import simple_evaluate
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.tasks import TaskManager

import longform_evals
from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.catalogue import LmEvalSetupError
from longform_evals.lmeval.docs import doc_sample, load_docs, task_arguments
from longform_evals.lmeval.hooks import process_results
from longform_evals.lmeval.launcher import lm_eval_argv
from longform_evals.lmeval.wrappers import WRAPPERS
from longform_evals.scorers.meta_evaluation import summary_label

TruncateLM = WRAPPERS["longform-truncate"]
ReadAgentLM = WRAPPERS["longform-readagent"]

DATA = Path(longform_evals.__file__).resolve().parent / "data"
QUALITY = str(DATA / "reading" / "quality_fixture.jsonl")
BOOKSUM = str(DATA / "narrative" / "booksum_fixture.jsonl")


class AnswerLM(LM):
    """A plain lm-eval model: answers each request with ``answer(doc)``, records prompts, and
    prefers the gold option's log-likelihood when ``knows`` is set."""

    def __init__(self, answer: Any = None, knows: bool = True, **_: Any) -> None:
        super().__init__()
        self.answer = answer or (lambda doc: "I cannot say.")
        self.knows = knows
        self.prompts: list[str] = []

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        self.prompts += [r.args[0] for r in requests]
        return [self.answer(r.doc) for r in requests]

    def loglikelihood(
        self, requests: list[Instance], disable_tqdm: bool = False
    ) -> list[tuple[float, bool]]:
        out = []
        for r in requests:
            gold = r.doc["choices"][r.doc["gold"]]
            right = r.args[1].strip() == gold
            out.append((0.0 if right == self.knows else -5.0, False))
        return out

    def loglikelihood_rolling(
        self, requests: list[Instance], disable_tqdm: bool = False
    ) -> list[float]:
        raise NotImplementedError


register_model("longform-test-answer")(AnswerLM)


def _run(lm: Any, task: str, metadata: dict[str, Any], limit: int = 2) -> dict[str, Any]:
    manager = TaskManager(include_path=str(TASK_FOLDER), include_defaults=False, metadata=metadata)
    results = simple_evaluate(
        model=lm, tasks=[task], task_manager=manager, limit=limit, log_samples=True
    )
    assert results is not None
    return results


@pytest.fixture(autouse=True)
def _log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LONGFORM_LMEVAL_LOG_DIR", str(tmp_path / "lm-eval-logs"))
    monkeypatch.delenv("LONGFORM_JUDGE", raising=False)


def test_plain_model_is_scored_by_the_suite_and_can_fail() -> None:
    right = AnswerLM(lambda doc: f"Answer: ({doc['target']})")
    wrong = AnswerLM(lambda doc: "Answer: (A)" if doc["target"] != "A" else "Answer: (B)")
    metadata = {"quality": {"data": QUALITY}}
    good = _run(right, "longform_quality", metadata)["results"]["longform_quality"]
    bad = _run(wrong, "longform_quality", metadata)["results"]["longform_quality"]
    assert good["correct,none"] == 1.0 and good["unparsed,none"] == 0.0
    assert bad["correct,none"] == 0.0
    # the plain model saw the whole document and the options in one prompt
    assert "(A)" in right.prompts[0] and "Answer: (X)" in right.prompts[0]


def test_log_likelihood_variant_moves_with_the_model() -> None:
    metadata = {"quality": {"data": QUALITY}}
    knows = _run(AnswerLM(knows=True), "longform_quality_mc", metadata)["results"]
    guesses = _run(AnswerLM(knows=False), "longform_quality_mc", metadata)["results"]
    assert knows["longform_quality_mc"]["acc,none"] == 1.0
    assert guesses["longform_quality_mc"]["acc,none"] == 0.0


def test_lm_eval_inner_model_runs_the_strategy_and_is_counted() -> None:
    lm = TruncateLM(inner="longform-test-answer", words=50)
    results = _run(lm, "longform_quality", {"quality": {"data": QUALITY}})
    row = results["results"]["longform_quality"]
    assert row["inner_calls,none"] == 1.0  # truncate_first: one answer call per question
    assert row["inner_tokens,none"] > 50
    assert row["context_words_max,none"] == 50.0
    inner = lm.model.api._lm  # type: ignore[attr-defined]
    assert len(inner.prompts) == 2 and all("Answer: (X)" in p for p in inner.prompts)


def test_judged_task_under_a_plain_model_uses_the_named_judge() -> None:
    judge = {"model": "scripted/judge", "model_args": {"rules": OFFLINE_RULES}}
    metadata = {
        "judge": judge,
        "narrativeqa": {"data": str(DATA / "reading" / "narrativeqa_fixture.jsonl")},
    }
    results = _run(
        AnswerLM(lambda doc: "They meet at the harbour."), "longform_narrativeqa", metadata
    )
    row = results["results"]["longform_narrativeqa"]
    assert row["judge_calls,none"] > 0
    assert not math.isnan(row["lr1,none"])


def test_judged_task_without_a_judge_is_refused() -> None:
    metadata = {"narrativeqa": {"data": str(DATA / "reading" / "narrativeqa_fixture.jsonl")}}
    with pytest.raises(LmEvalSetupError, match="LONGFORM_JUDGE"):
        _run(AnswerLM(), "longform_narrativeqa", metadata)


def test_longformfact_plain_verdicts_against_labels(shared_data: Path) -> None:
    data = str(shared_data / "longformfact" / "longformfact_12_examples.jsonl")

    def oracle(flip: bool) -> AnswerLM:
        def answer(doc: dict[str, Any]) -> str:
            faithful = summary_label(doc_sample(doc).metadata) == 1
            return "Yes" if faithful != flip else "No"

        return AnswerLM(answer)

    rows = [
        _run(judge, "longform_longformfact", {"data": data}, limit=12)["results"]
        for judge in (oracle(False), oracle(True))
    ]
    right, wrong = (r["longform_longformfact"] for r in rows)
    assert right["unparsed,none"] == 0.0
    assert (right["bacc,none"], right["auc,none"]) == (100.0, 1.0)
    assert (wrong["bacc,none"], wrong["auc,none"]) == (0.0, 0.0)


# --- bad set-ups: a clear error naming what to change ---------------------------------------


def test_unknown_inner_model() -> None:
    with pytest.raises(LmEvalSetupError, match="unknown inner model 'nosuch'"):
        TruncateLM(inner="nosuch")
    with pytest.raises(LmEvalSetupError, match="inner model 'nosuch/model'"):
        TruncateLM(inner="nosuch/model")
    with pytest.raises(LmEvalSetupError, match="needs its inner model"):
        TruncateLM()


def test_wrapper_refuses_log_likelihoods() -> None:
    lm = ReadAgentLM(inner="scripted/x", rules=OFFLINE_RULES)
    with pytest.raises(LmEvalSetupError, match=r"no log-likelihoods.*longform_quality_mc"):
        _run(lm, "longform_quality_mc", {"quality": {"data": QUALITY}})


def test_wrapper_refuses_a_task_of_the_other_kind() -> None:
    lm = ReadAgentLM(inner="scripted/x", rules=OFFLINE_RULES)
    with pytest.raises(
        LmEvalSetupError, match=r"cannot serve longform_booksum.*longform-hierarchical"
    ):
        lm.strategy_for("booksum")
    assert TruncateLM(inner="scripted/x", rules=OFFLINE_RULES).strategy_for("booksum") == "full"
    with pytest.raises(LmEvalSetupError, match="lookup must be parallel or sequential"):
        ReadAgentLM(inner="scripted/x", lookup="both")


def test_wrapper_refuses_other_tasks() -> None:
    lm = TruncateLM(inner="scripted/x", rules=OFFLINE_RULES)
    request = Instance("generate_until", {"question": "q"}, ("q", {}), 0, ("arc_easy", 0, 1))
    with pytest.raises(LmEvalSetupError, match="longform_\\* tasks only; 'arc_easy'"):
        lm.generate_until([request])


def test_missing_or_absent_data(tmp_path: Path) -> None:
    with pytest.raises(LmEvalSetupError, match="longform_qmsum needs its data"):
        load_docs("qmsum")
    missing = str(tmp_path / "nowhere")
    with pytest.raises(LmEvalSetupError, match="does not exist"):
        load_docs("quality", quality={"data": missing})


def test_metadata_arguments() -> None:
    # a top-level key goes to every task that takes it; model arguments lm-eval adds are left
    args = task_arguments("quality", {"data": QUALITY, "inner": "x", "max_pages": 3, "version": 1})
    assert args == {"data": QUALITY}
    assert task_arguments("longformfact", {"data": "."}) == {"data_dir": "."}
    with pytest.raises(LmEvalSetupError, match="strategy is chosen by the model"):
        task_arguments("quality", {"quality": {"strategy": "bm25"}})
    with pytest.raises(LmEvalSetupError, match="no parameter 'hardonly'"):
        task_arguments("quality", {"quality": {"hardonly": True}})


def test_process_results_only_declared_names() -> None:
    docs = load_docs("quality", data=QUALITY)["test"]
    lm = TruncateLM(inner="scripted/x", rules=OFFLINE_RULES)
    doc = docs[0]
    [completion] = lm.generate_until(
        [Instance("generate_until", doc, ("", {}), 0, ("longform_quality", 0, 1))]
    )
    values = process_results(doc, [completion])
    assert values["correct"] in (0.0, 1.0)
    assert "inner_calls" in values and "rouge1" not in values


def test_every_wrapper_is_registered() -> None:
    from lm_eval.api.registry import get_model

    # the packaged strategies' wrappers (a test may have registered more)
    assert set(WRAPPERS) >= {
        "longform-hierarchical",
        "longform-incremental",
        "longform-nexussum",
        "longform-readagent",
        "longform-truncate",
    }
    for name, cls in WRAPPERS.items():
        assert get_model(name) is cls


def test_launcher_arguments() -> None:
    folder = str(TASK_FOLDER)
    assert lm_eval_argv(["--model", "m"]) == [
        "lm-eval",
        "run",
        "--model",
        "m",
        "--include_path",
        folder,
    ]
    assert lm_eval_argv(["ls", "tasks"]) == ["lm-eval", "ls", "tasks", "--include_path", folder]
    joined = lm_eval_argv(["run", "--include_path", "mine"])
    assert joined[-1].split(":") == ["mine", folder]
    assert lm_eval_argv(["--help"]) == ["lm-eval", "run", "--help"]
