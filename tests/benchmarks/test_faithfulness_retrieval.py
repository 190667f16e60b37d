"""benchmarks/faithfulness_retrieval.py on a longformfact log judged by a scripted judge: the
setting that reads every unit reproduces the log's own scores, and retrieval settings ask
fewer pairs, with the figures a judge that says "yes" to unrelated text earns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from helpers import FAITH_RULES, load_benchmark_script, write_longsciverify
from longform_evals.analysis.judge_agreement import reference_flag
from longform_evals.tasks.judge_agreement import judge_agreement
from longform_evals.tasks.longformfact import longformfact

DOCS = [
    "Mara keeps the lighthouse on the cliff and trims its lamp each night.",
    "The harbour froze in January, so the ferries stopped until March.",
    "Wolves came down from the ridge and the village shut its gates.",
]
ROWS = [
    ("ok1", "Mara keeps the lighthouse.", 1),
    ("ok2", "The harbour froze in January.", 1),
    ("bad1", "Mara sold the lighthouse to a bank.", 0),
    ("bad2", "Wolves attacked the ferries in March.", 0),
]
YES = {"Yes": -0.05, "No": -3.0}
NO = {"No": -0.05, "Yes": -3.0}


def _rules() -> list[dict[str, object]]:
    """Backed when the source holds the statement's key phrase (the harbour one with less
    confidence); and, like a small judge, a chance "yes" (0.6) on the wolves document
    whatever the statement."""
    rules: list[dict[str, object]] = []
    unsure = {"Yes": -0.6, "No": -0.8}  # P(yes) 0.55: backed, but the judge is not sure
    for phrase, logprobs in (("keeps the lighthouse", YES), ("harbour froze in January", unsure)):
        pattern = rf"(?s)<source>[^<]*{phrase}[^<]*</source>\s*<statement>[^<]*{phrase}"
        rules.append({"pattern": pattern, "response": "Yes.", "top_logprobs": logprobs})
    rules.append({"pattern": r"(?s)<source>[^<]*Wolves", "response": "Yes.",
                  "top_logprobs": {"Yes": -0.51, "No": -0.92}})  # fmt: skip
    rules.append({"pattern": "", "response": "No.", "top_logprobs": NO})
    return rules


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    data = tmp_path / "lff.jsonl"
    data.write_text(
        "".join(
            json.dumps({"subset": "toy", "id": i, "documents": DOCS, "summary": s,
                        "faithfulness": label}) + "\n"
            for i, s, label in ROWS
        )
    )  # fmt: skip
    judge = get_model("scripted/judge", rules=json.dumps(_rules()), memoize=False)
    [log] = inspect_eval(
        longformfact(data_dir=str(data)), model=judge, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    return Path(log.location)


def test_the_table_reproduces_the_log_and_counts_fewer_calls(
    log_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark_script("faithfulness_retrieval")
    assert bench.main(["--log", str(log_path), "--settings", "all,bm25:1,fused:1"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert rows["all"].split("|")[6].strip() == "3.0"  # 3 documents x 1 sentence
    assert rows["bm25:1"].split("|")[6].strip() == "1.0"
    assert rows["all"].split("|")[5].strip() == "0"  # no unreadable summary
    assert "3.0x fewer" in rows["bm25:1"]
    # Reading every unit, the wolves document vouches for every summary (0.6), above the
    # judge's 0.55 for a backed one: AUC 0.75; asked only the nearest unit, 1.
    assert rows["all"].split("|")[2].strip().startswith("0.75")
    assert rows["bm25:1"].split("|")[2].strip().startswith("1 ")


def test_the_reconstructed_units_and_scores_are_the_logs(log_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    bench = load_benchmark_script("faithfulness_retrieval")
    log = read_eval_log(str(log_path))
    assert log.samples
    for sample in log.samples:
        judged = bench._judged(sample)
        assert judged is not None and judged.units == DOCS
        scored = bench._score(judged, None, 0)
        value = sample.scores["faithfulness"].value  # type: ignore[index]
        assert scored.scores == [pytest.approx(value["max_mean"])]  # type: ignore[index]


def test_sentence_labels_from_a_judge_agreement_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LongSciVerify's reviewers label sentences: each rated sentence is a row, its score the
    max support over the units asked, as the judge_agreement log recorded it."""
    from inspect_ai.log import read_eval_log

    data = write_longsciverify(tmp_path / "LongSciVerify")
    task = judge_agreement(kind="faithfulness", data=str(data), chunking="tokens:4")
    judge = get_model("scripted/judge", rules=json.dumps(FAITH_RULES), memoize=False)
    [log] = inspect_eval(task, model=judge, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    bench = load_benchmark_script("faithfulness_retrieval")
    samples = read_eval_log(log.location).samples
    assert samples
    rows = 0
    for sample in samples:
        judged = bench._judged(sample)
        assert judged is not None and judged.level == "sentence" and len(judged.units) == 3
        meta = sample.scores["judge_agreement"].metadata  # type: ignore[index]
        rated = [u for u in meta["units"] if reference_flag(u["human"]) is not None]
        assert judged.problems == [reference_flag(u["human"]) for u in rated]
        scored = bench._score(judged, None, 0)
        assert scored.scores == [pytest.approx(1 - u["judge_p"]) for u in rated]
        assert scored.calls == 3 * len(rated)
        rows += len(rated)
    assert rows == 7
    assert bench.main(["--log", log.location, "--settings", "all,bm25:1"]) == 0
    out = capsys.readouterr().out
    assert "7 sentence labels (2 unfaithful" in out
    table = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "3.0x fewer" in table["bm25:1"]
