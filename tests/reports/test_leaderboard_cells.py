"""A leaderboard cell is the run's identity: model, every task argument, samples, bound judge.

Runs of LongFormFact with two scripted judges that answer opposite ways (bound through the
`grader` role, as a plan binds a fixed judge) must be two rows naming those judges, with the
BACC/AUC the logs report; runs on other data or of fewer samples are other variants, never
"superseded"; a `--limit` run is complete, not partial.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import Model, get_model

from helpers import OFFLINE_RULES
from longform_evals.reports.leaderboard import Row, build_leaderboard, experiment
from longform_evals.scorers.results import result_values
from longform_evals.tasks.longformfact import longformfact

pytest.importorskip("pandas")

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "longformfact"


def _judge(answer: str) -> Model:
    other = "No" if answer == "Yes" else "Yes"
    rule = {"pattern": "", "response": answer, "top_logprobs": {answer: -0.05, other: -3.0}}
    return get_model(f"scripted/says-{answer.lower()}", rules=[rule], memoize=False)


@pytest.fixture
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared/data is not present on this machine")
    return SHARED


def test_the_bound_judge_is_the_row_and_its_numbers_are_the_logs(
    shared: Path, tmp_path: Path
) -> None:
    writer = get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)
    logs = {}
    for answer in ("Yes", "No"):
        [log] = inspect_eval(
            longformfact(data_dir=str(shared)),
            model=writer,
            model_roles={"grader": _judge(answer)},
            log_dir=str(tmp_path),
            display="none",
        )
        assert log.status == "success"
        logs[answer] = log
    board = build_leaderboard(tmp_path)
    assert not [why for _, why in board.skipped if "superseded" in why], board.skipped
    assert len(board.rows) == 2
    # each row names the judge bound to it, not the evaluated model
    assert {row.judge for row in board.rows} == {"scripted/says-yes", "scripted/says-no"}
    for row in board.rows:
        log = next(lg for lg in logs.values() if lg.location == row.log)
        assert log.results is not None
        found = result_values(log.results.scores)[("faithfulness", "faithfulness")]
        assert row.metrics["BACC"].value == found["bacc_avg"]
        assert row.metrics["AUC"].value == found["auc_avg"]


def test_other_data_and_limits_are_other_variants_and_not_partial(
    shared: Path, tmp_path: Path
) -> None:
    writer = get_model("scripted/agree", rules=OFFLINE_RULES, memoize=False)
    grader = {"grader": _judge("Yes")}
    task = longformfact(data_dir=str(shared))
    for limit in (None, 4):
        inspect_eval(
            task,
            model=writer,
            model_roles=grader,
            limit=limit,
            log_dir=str(tmp_path),
            display="none",
        )
    inspect_eval(
        longformfact(data_dir=str(shared), subsets="qmsum"),
        model=writer,
        model_roles=grader,
        log_dir=str(tmp_path),
        display="none",
    )
    board = build_leaderboard(tmp_path)
    assert not [why for _, why in board.skipped if "superseded" in why], board.skipped
    variants = sorted(row.variant for row in board.rows)
    assert len(set(variants)) == 3, variants
    assert any("limit=4" in v for v in variants) and any("subsets=qmsum" in v for v in variants)
    limited = next(row for row in board.rows if "limit=4" in row.variant)
    assert limited.samples == limited.planned == 4
    assert "partial" not in limited.flags


def test_an_experiment_is_named_by_what_differs_from_the_task_defaults() -> None:
    args = {
        "data": "/somewhere/else/quality_fixture.jsonl",
        "strategy": "full",
        "hard_only": False,  # a default, as Inspect logs every argument
        "cache": True,
        "revision": "main",
        "max_pages": None,
    }
    local = {"data_source": {"path": args["data"], "name": "quality_fixture.jsonl", "sha256": "ab"}}
    label, data = experiment("quality", local, args, {"limit": 5.0, "sample_id": None})
    assert label == "quality[data=quality_fixture.jsonl,strategy=full,limit=5]" and data == "ab"
    # a plan's run of the same experiment: its samples and limit come from the plan's record
    plan = {**local, "longform_plan": {"plan": "p", "variant": "q-full", "limit": 5}}
    assert experiment("quality", plan, args, {"limit": None}) == (label, "ab")
    # a chunk size logged as 512.0 is 512; the default chunk size is no difference
    book, _ = experiment("booookscore", {}, {"chunk_size": 512.0, "context_window": 8192}, {})
    assert book == "booookscore[chunk_size=512]"
    # published data: the dataset, revision and split name it
    hub = {
        "data_source": {"dataset": "emozilla/quality", "revision": "main", "split": "validation"}
    }
    assert experiment("quality", hub, {"strategy": "full"}, {}) == (
        "quality[strategy=full]",
        "emozilla/quality@main@validation",
    )


@pytest.mark.parametrize(("decided", "flag"), [(0, None), (1, "1 sentence"), (3, "3 sentences")])
def test_sentences_scored_by_a_reading_are_a_flag(decided: int, flag: str | None) -> None:
    row = Row(
        model="m",
        variant="v",
        task="longformfact",
        judge="j",
        judge_mode=None,
        judge_quality="",
        log="x.eval",
        status="success",
        samples=2,
        planned=2,
        errors=0,
        budget_refused=0,
        parse_failure_rate=0.0,
        reading_decided=decided,
    )
    shown = [f for f in row.flags if "scored by a reading" in f]
    assert shown == ([] if flag is None else [f"{flag} scored by a reading"])
