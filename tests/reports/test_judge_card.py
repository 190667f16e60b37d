"""`longform judge-card` end to end: a scripted judge on hand-made labelled data, the card's
files, its figures against the log's, and the errors that must not give a card."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from helpers import BOOKS as HELPER_BOOKS
from helpers import FAITH_RULES, SENTENCE_RULES, write_longsciverify
from longform_evals.analysis.judge_agreement import agreement_figures
from longform_evals.cli import main
from longform_evals.reports.judge_card import (
    CardError,
    card_from_log,
    data_sha256,
    headline_text,
    load_card,
    render_markdown,
)
from longform_evals.scorers.judge_agreement_metrics import HEADLINE, rows_of_scores
from longform_evals.scorers.results import result_values

# BooookScore span annotations of one system on three books: the two of the helpers and one
# that people found clear, though it names "Zorb" (so the scripted judge flags a clean sentence).
BOOKS = HELPER_BOOKS | {
    "farm.epub": {
        "summary": "Ada plants wheat. The rain comes late. Zorb sells the farm. Ada leaves.",
        "singles": [],
        "relations": [],
    },
}
COHERENCE_RULES = SENTENCE_RULES
DATA_NAME = "summary-gpt4-4096-hier.json"
STEM = "scripted-judge__coherence__sentence"


def _rules(folder: Path, rules: list[dict[str, Any]], name: str = "rules.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(rules), encoding="utf-8")
    return path


def _invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["judge-card", *map(str, args)])


def _run_card(folder: Path, *extra: str) -> Result:
    """The coherence card of the scripted judge, run in `folder` (logs/ and cards/ there)."""
    data = folder / DATA_NAME
    data.write_text(json.dumps(BOOKS), encoding="utf-8")
    rules = _rules(folder, COHERENCE_RULES)
    return _invoke(
        "--model-role",
        "grader=scripted/judge",
        "-M",
        f"rules={rules}",
        "--kind",
        "coherence",
        "--data",
        data,
        "--log-dir",
        folder / "logs",
        "--out",
        folder / "cards",
        *extra,
    )


def _only_log(folder: Path) -> Path:
    [log] = sorted((folder / "logs").glob("*.eval"))
    return log


@pytest.fixture(scope="module")
def coherence_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("coherence")
    result = _run_card(folder)
    assert result.exit_code == 0, result.output
    return folder


def test_the_card_is_written_with_the_log_s_own_figures(coherence_run: Path) -> None:
    json_path = coherence_run / "cards" / f"{STEM}.json"
    md_path = coherence_run / "cards" / f"{STEM}.md"
    card = load_card(json_path)
    log = read_eval_log(str(_only_log(coherence_run)))

    # The figures recomputed from the log's scores, as a reader of the log would.
    triples = []
    for sample in log.samples or []:
        score = (sample.scores or {})["judge_agreement"]
        assert score.metadata is not None
        triples.append((str(sample.id), score.metadata["summary_scores"], score.metadata))
    units, summaries = rows_of_scores(triples)
    assert card["figures"] == agreement_figures(units, summaries, n_boot=1000, seed=0).as_dict()
    # ... and the log's own metric (1000 replicates, seed 0, like the card's defaults).
    assert log.results is not None
    metric = result_values(log.results.scores)[("judge_agreement", "summaries")]
    figures = card["figures"]["figures"]
    for name in HEADLINE:
        fig = figures[name]
        for key, suffix in (("value", ""), ("low", "_low"), ("high", "_high")):
            logged = metric[f"agreement_card_{name}{suffix}"]
            assert fig[key] == (None if logged != logged else pytest.approx(logged)), name

    # People flag 3 of 11 sentences; the judge the 3 naming Zorb, 2 of them flagged by people.
    assert figures["precision"]["value"] == pytest.approx(2 / 3)
    assert figures["recall"]["value"] == pytest.approx(2 / 3)
    assert card["figures"]["counts"]["n_units"] == 11
    assert card["judge"] == "scripted/judge"
    assert (card["kind"], card["mode"]) == ("coherence", "sentence")
    assert card["settings"]["layout"] == "quoted"
    assert card["headline"]["name"] == "balanced_accuracy"
    assert card["headline"]["value"] == figures["balanced_accuracy"]["value"]
    data = card["data"]
    assert data["path"] == DATA_NAME and data["format"] == "booookscore"
    digest = hashlib.sha256((coherence_run / DATA_NAME).read_bytes()).hexdigest()
    assert data["sha256"] == digest == data_sha256(coherence_run / DATA_NAME)
    assert (data["summaries_judged"], data["summaries_in_data"], data["budget"]) == (3, 3, 20)
    assert data["annotators"] == ["annotators"]
    assert card["log"] == _only_log(coherence_run).name
    assert card["date"] == log.eval.created[:10]
    assert card["task_version"] == "1.4.0"

    markdown = md_path.read_text(encoding="utf-8")
    assert markdown == render_markdown(card)
    assert markdown.startswith("# Judge card: scripted/judge on coherence (sentence)")
    for name, fig in figures.items():
        value = "n/a" if fig["value"] is None else f"{fig['value']:.3f}"
        assert f"| {name} | {value} |" in markdown
        if fig["note"]:
            assert fig["note"] in markdown
    assert "gpt4-4096-hier" in markdown and "## Counts" in markdown

    for text in (json_path.read_text(encoding="utf-8"), markdown):
        assert str(coherence_run) not in text
        assert str(Path.cwd()) not in text


def test_the_command_prints_the_files_and_the_headline(tmp_path: Path) -> None:
    result = _run_card(tmp_path, "--n-boot", "50")
    assert result.exit_code == 0, result.output
    card = load_card(tmp_path / "cards" / f"{STEM}.json")
    assert f"wrote {tmp_path / 'cards' / STEM}.json" in result.output
    assert f"wrote {tmp_path / 'cards' / STEM}.md" in result.output
    assert headline_text(card) in result.output
    assert headline_text(card).startswith("BACC ")
    assert headline_text(card).endswith(" on 3 summaries (booookscore)")
    assert card["figures"]["bootstrap"]["n_boot"] == 50


def test_from_log_gives_the_same_card_and_a_seed_fixes_it(
    coherence_run: Path, tmp_path: Path
) -> None:
    log = _only_log(coherence_run)
    run_card = (coherence_run / "cards" / f"{STEM}.json").read_text(encoding="utf-8")
    for out in ("again", "once_more"):
        result = _invoke("--from-log", log, "--out", tmp_path / out)
        assert result.exit_code == 0, result.output
        assert (tmp_path / out / f"{STEM}.json").read_text(encoding="utf-8") == run_card
    other = _invoke("--from-log", log, "--out", tmp_path / "other", "--seed", "7")
    assert other.exit_code == 0, other.output
    card = load_card(tmp_path / "other" / f"{STEM}.json")
    assert card["figures"]["bootstrap"]["seed"] == 7
    same = json.loads(run_card)
    names = card["figures"]["figures"]
    assert all(names[n]["value"] == same["figures"]["figures"][n]["value"] for n in names)


def test_faithfulness_card_with_the_grader_given_as_an_object(tmp_path: Path) -> None:
    data = write_longsciverify(tmp_path / "LongSciVerify")
    rules = _rules(tmp_path, FAITH_RULES)
    grader = json.dumps({"model": "scripted/judge", "model_args": {"rules": str(rules)}})
    result = _invoke(
        "--model-role",
        f"grader={grader}",
        "--kind",
        "faithfulness",
        "--data",
        data,
        "-T",
        "threshold=0.5",
        "--log-dir",
        tmp_path / "logs",
        "--out",
        tmp_path / "cards",
        "--n-boot",
        "100",
    )
    assert result.exit_code == 0, result.output
    path = tmp_path / "cards" / "scripted-judge__faithfulness__llm-judge.json"
    card = load_card(path)
    figures = card["figures"]["figures"]
    assert figures["recall"]["value"] == 1.0 and figures["roc_auc"]["value"] == 1.0
    assert figures["kappa_annotators_mean"]["value"] == 1.0
    assert card["calibration"]["sentence_threshold"] == 0.5
    assert card["settings"] == {"judge": "llm", "threshold": 0.5}
    data_card = card["data"]
    assert data_card["path"] == "LongSciVerify" and data_card["format"] == "longsciverify"
    assert data_card["sha256"] == data_sha256(data)
    assert data_card["annotators"] == ["reviewer_1", "reviewer_2", "reviewer_3"]
    assert data_card["skipped"]["count"] == 6
    assert data_card["skipped"]["first"][0]["where"].startswith("LongSciVerify/arxiv_reviewer_1")
    assert str(tmp_path) not in path.read_text(encoding="utf-8")
    assert sorted(card["figures"]["systems"]) == [
        "dancersum",
        "gencomparesumabs",
        "section_conditional",
    ]


def test_data_digest_of_a_folder_follows_its_files(tmp_path: Path) -> None:
    folder = write_longsciverify(tmp_path / "LongSciVerify")
    before = data_sha256(folder)
    (folder / ".DS_Store").write_text("ignored", encoding="utf-8")
    assert data_sha256(folder) == before
    (folder / "arxiv_reviewer_1.csv").write_text("changed", encoding="utf-8")
    assert data_sha256(folder) != before


# --- errors: never an empty card ------------------------------------------------------------


def test_a_log_of_another_task_is_refused(tmp_path: Path) -> None:
    [log] = inspect_eval(
        "longform_evals/hello_longform",
        model="scripted/hello",
        model_args={"rules": [{"pattern": "lamp", "response": "Marta did."}]},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    result = _invoke("--from-log", log.location, "--out", tmp_path / "cards")
    assert result.exit_code == 1
    assert "not judge_agreement" in result.output and "hello_longform" in result.output
    assert not (tmp_path / "cards").exists()
    with pytest.raises(CardError, match="not judge_agreement"):
        card_from_log(read_eval_log(log.location))


def test_a_failed_run_gives_no_card(tmp_path: Path) -> None:
    data = tmp_path / DATA_NAME
    data.write_text(json.dumps(BOOKS), encoding="utf-8")
    # No rule matches the judge's prompt and no default: every call fails.
    rules = _rules(tmp_path, [{"pattern": "never in any prompt", "response": "x"}])
    result = _invoke(
        "--model-role",
        "grader=scripted/judge",
        "-M",
        f"rules={rules}",
        "--kind",
        "coherence",
        "--data",
        data,
        "--log-dir",
        tmp_path / "logs",
        "--out",
        tmp_path / "cards",
    )
    assert result.exit_code == 1
    assert "status 'error'" in result.output and "log:" in result.output
    assert not (tmp_path / "cards").exists()


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    missing = _invoke("--from-log", tmp_path / "nope.eval")
    assert missing.exit_code == 1 and "no log file at" in missing.output
    data = tmp_path / DATA_NAME
    data.write_text(json.dumps(BOOKS), encoding="utf-8")
    run = ["--model-role", "grader=scripted/judge", "--data", str(data)]
    unknown = _invoke(*run, "--kind", "fluency")
    assert unknown.exit_code == 2 and "Invalid value for '--kind'" in unknown.output
    zero = _invoke(*run, "--kind", "coherence", "--budget", "0")
    assert zero.exit_code == 2 and "Invalid value for '--budget'" in zero.output
    no_judge = _invoke("--kind", "coherence", "--data", data)
    assert no_judge.exit_code == 2 and "--model-role" in no_judge.output
    not_grader = _invoke("--model-role", "judge=scripted/x", "--kind", "coherence", "--data", data)
    assert not_grader.exit_code == 2 and "grader=MODEL" in not_grader.output
    clash = _invoke(*run, "--kind", "coherence", "-T", "kind=faithfulness")
    assert clash.exit_code == 2 and "--kind, not -T" in clash.output
    unknown_arg = _invoke(*run, "--kind", "coherence", "-T", "colour=red")
    assert unknown_arg.exit_code == 1 and "no parameter 'colour'" in unknown_arg.output
    mixed = _invoke("--from-log", tmp_path / "x.eval", "--kind", "coherence")
    assert mixed.exit_code == 2 and "--kind configure a new run" in mixed.output
    faith_mode = _invoke(*run, "--kind", "faithfulness", "--mode", "probe")
    assert faith_mode.exit_code == 2 and "-T judge=NAME" in faith_mode.output


def test_load_card_names_what_is_wrong(coherence_run: Path, tmp_path: Path) -> None:
    card = load_card(coherence_run / "cards" / f"{STEM}.json")
    broken = tmp_path / "broken.json"
    for change, message in (
        ({"card_version": 2}, "card_version 2"),
        ({"headline": {"name": "balanced_accuracy"}}, "missing headline.value"),
        ({"figures": []}, "figures must be an object"),
    ):
        broken.write_text(json.dumps(card | change), encoding="utf-8")
        with pytest.raises(CardError, match=message):
            load_card(broken)
    without = {k: v for k, v in card.items() if k != "judge"}
    broken.write_text(json.dumps(without), encoding="utf-8")
    with pytest.raises(CardError, match="missing judge"):
        load_card(broken)
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(CardError, match="is not a judge card"):
        load_card(broken)
    with pytest.raises(CardError, match="no judge card at"):
        load_card(tmp_path / "absent.json")


def test_headline_text_without_a_value_or_interval() -> None:
    card: dict[str, Any] = {
        "headline": {"name": "balanced_accuracy", "value": None, "low": None, "high": None},
        "data": {"summaries_judged": 1, "format": "fables"},
    }
    assert headline_text(card) == "BACC n/a on 1 summary (fables)"
    card["headline"] |= {"value": 0.5}
    assert headline_text(card) == "BACC 0.50 on 1 summary (fables)"
    card["headline"] |= {"low": 0.25, "high": 0.75}
    assert headline_text(card) == "BACC 0.50 [0.25, 0.75] on 1 summary (fables)"
