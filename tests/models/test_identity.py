"""Two models under one name never share cached answers: every cache key carries the model's
identity (its name, its `-M` arguments and what its provider says makes its outputs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import CachePolicy, get_model

from helpers import needs_smollm2
from longform_evals.models.gguf_files import MODELS, model_file_path
from longform_evals.models.identity import IDENTITY_SCOPE, cache_policy, model_identity
from longform_evals.tasks.booookscore import booookscore

SUMMARIES = Path(__file__).resolve().parents[2] / "src/longform_evals/data/summaries"


def _judged(tmp_path: Path, rules: Path, run: str) -> EvalLog:
    task = booookscore(score_only=True, data=str(SUMMARIES / "the_frost_hold.jsonl"))
    [log] = inspect_eval(
        task,
        # a fresh instance that reads the rules file now (get_model memoizes by arguments)
        model=get_model("scripted/judge", rules=str(rules), memoize=False),
        log_dir=str(tmp_path / run),
        display="none",
        limit=1,
    )
    assert log.status == "success" and log.results is not None
    return log


def _booookscore(log: EvalLog) -> float:
    [sample] = log.samples or []
    value = (sample.scores or {})["booookscore"].value
    assert isinstance(value, dict)
    return float(value["booookscore"])


def test_two_judges_under_one_name_never_share_verdicts(tmp_path: Path) -> None:
    # the same name and the same rules file path; only the file's rules differ
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"default": "No confusion."}), encoding="utf-8")
    clean = _booookscore(_judged(tmp_path, rules, "clean"))
    confused = "Questions: Who is Owen?\nTypes: entity omission"
    rules.write_text(json.dumps({"default": confused}), encoding="utf-8")
    flagged = _booookscore(_judged(tmp_path, rules, "flagged"))
    assert clean == 100.0 and flagged == 0.0


def test_the_same_judge_reads_its_verdicts_back(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"default": "No confusion."}), encoding="utf-8")
    _judged(tmp_path, rules, "first")
    again = _judged(tmp_path, rules, "again")
    [sample] = again.samples or []
    calls = [e for e in sample.events if e.event == "model"]
    assert calls and all(e.cache == "read" for e in calls)


def test_identity_follows_what_changes_outputs() -> None:
    a = get_model("scripted/same", default_response="a", memoize=False)
    a2 = get_model("scripted/same", default_response="a", memoize=False)
    b = get_model("scripted/same", default_response="b", memoize=False)
    other_name = get_model("scripted/other", default_response="a", memoize=False)
    assert model_identity(a) == model_identity(a2)
    assert len({model_identity(a), model_identity(b), model_identity(other_name)}) == 3
    policy = cache_policy(a, True, sample="s1")
    assert isinstance(policy, CachePolicy) and policy.expiry is None
    assert policy.scopes == {IDENTITY_SCOPE: model_identity(a), "sample": "s1"}
    assert cache_policy(a, False) is False


@pytest.mark.slow
@needs_smollm2
def test_a_gguf_file_under_another_path_or_edited_is_another_model(tmp_path: Path) -> None:
    spec = MODELS["smollm2-135m"]
    named = get_model("gguf/smollm2-135m")
    assert named.api.identity() == spec.sha256
    copy = tmp_path / "copy.gguf"
    shutil.copyfile(model_file_path(spec), copy)
    by_path = get_model("gguf/smol", path=str(copy), memoize=False)
    digest = by_path.api.identity()
    assert digest.startswith("fingerprint:")
    with open(copy, "r+b") as f:  # the last bytes are in the fingerprinted tail
        f.seek(-16, 2)
        f.write(b"\0" * 16)
    edited = get_model("gguf/smol", path=str(copy), memoize=False)
    assert edited.api.identity() != digest
    assert model_identity(edited) != model_identity(by_path)
