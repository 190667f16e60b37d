"""Plan files: what a plan may say, and the clear errors for what it may not."""

from __future__ import annotations

from pathlib import Path

import pytest

import longform_evals
from longform_evals.runs.plan_file import PlanError, read_plan

QUALITY = (
    Path(longform_evals.__file__).resolve().parent / "data" / "reading" / "quality_fixture.jsonl"
)

GOOD = f"""
name: demo
models: [scripted/a, {{model: scripted/b, args: {{default_response: hi}}}}]
judge: {{model: scripted/judge, mode: sentence}}
tasks:
  - task: booookscore
    name: bs
    args: {{chunk_size: 512}}
    variants: {{strategy: [hierarchical, incremental]}}
    samples: [the_frost_hold]
  - task: quality
    args: {{data: {QUALITY}}}
    limit: 2
epochs: 2
budget: {{tokens: 1000}}
"""


ZIGZAG = "strategy='zigzag': Input should be 'hierarchical'"


def write(tmp_path: Path, text: str, name: str = "plan.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_plan_expands_its_variants(tmp_path: Path) -> None:
    plan = read_plan(write(tmp_path, GOOD))
    assert [m.name for m in plan.models] == ["scripted/a", "scripted/b"]
    assert dict(plan.models[1].args) == {"default_response": "hi"}
    assert plan.judge.model == "scripted/judge" and plan.judge.mode == "sentence"
    labels = [v.label for v in plan.variants]
    assert labels == ["bs[strategy=hierarchical]", "bs[strategy=incremental]", "quality"]
    assert plan.variants[0].samples == ("the_frost_hold",) and plan.variants[2].limit == 2
    assert plan.epochs == 2 and plan.budget_tokens == 1000
    assert plan.log_dir == str((tmp_path / "logs" / "plan").resolve())


def test_toml_plans_and_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "q.jsonl").write_text(QUALITY.read_text(encoding="utf-8"))
    text = """
models = ["scripted/a"]
judge = "scripted/judge"
log_dir = "out"
[[tasks]]
task = "quality"
args = { data = "data/q.jsonl", strategy = "full" }
"""
    plan = read_plan(write(tmp_path, text, "plan.toml"))
    assert plan.variants[0].args["data"] == str((tmp_path / "data" / "q.jsonl").resolve())
    assert plan.log_dir == str((tmp_path / "out").resolve())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("judge: {model: scripted/judge, mode: sentence}\n", ""), "`judge` is unset"),
        (("judge: {model: scripted/judge", "judge: {model: scripted/a"), "judge its own output"),
        (("task: booookscore", "task: bookscore"), "unknown task 'bookscore'"),
        (
            ("[hierarchical, incremental]", "[hierarchical, zigzag]"),
            "strategy='zigzag': Input should be 'hierarchical'",
        ),
        (("{chunk_size: 512}", "{chunk_sise: 512}"), "no parameter 'chunk_sise'"),
        (("limit: 2", "limit: 0"), "limit` must be a whole number"),
        (("epochs: 2", "epoch: 2"), "unknown key(s) 'epoch'"),
        (("budget: {tokens: 1000}", "budget: {money: 5}"), "needs a price for every model"),
        ((str(QUALITY), "missing/quality.jsonl"), "data='missing/quality.jsonl': no such file"),
        (
            ("    limit: 2\n", f"    limit: 2\n  - {{task: quality, args: {{data: {QUALITY}}}}}\n"),
            "share the name quality",
        ),
        # list-valued mappings, bad values, non-finite prices: errors, not TypeErrors (issue 35)
        *(
            pytest.param(change, message, marks=pytest.mark.fault("plan_file", "clear error"))
            for change, message in [
                (
                    ("args: {chunk_size: 512}", "args: [chunk_size, 512]"),
                    "tasks[0].args must be a mapping",
                ),
                (
                    ("args: {default_response: hi}", "args: [hi]"),
                    "models[1].args must be a mapping",
                ),
                (
                    ("mode: sentence}", "mode: sentence, args: [1]}"),
                    "`judge.args` must be a mapping",
                ),
                (("{chunk_size: 512}", "{chunk_size: big}"), "chunk_size='big': Input should be"),
                (
                    ("{chunk_size: 512}", "{chunk_size: -5}"),
                    "chunk_size=-5: must be a positive integer",
                ),
                (
                    ("budget: {tokens: 1000}", "budget: {money: .nan}"),
                    "`budget.money` must be a positive finite number",
                ),
                (
                    ("budget: {tokens: 1000}", "prices: {scripted/a: {input: .nan, output: 1}}"),
                    "prices['scripted/a'].input must be a finite number",
                ),
                (
                    ("budget: {tokens: 1000}", "prices: {scripted/a: {input: [1], output: 1}}"),
                    "prices['scripted/a'].input must be a finite number",
                ),
                (("name: demo", "name: demo\nlog_dir: [a]"), "`log_dir` must be a folder path"),
            ]
        ),
    ],
)
def test_bad_plans_are_refused_naming_the_fault(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    old, new = change
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(PlanError, match=r"plan .*plan\.yaml") as error:
        read_plan(path)
    assert message in str(error.value)


def test_self_judging_needs_saying(tmp_path: Path) -> None:
    selfish = GOOD.replace("judge: {model: scripted/judge", "judge: {model: scripted/a")
    plan = read_plan(write(tmp_path, selfish.replace("epochs: 2", "allow_self_judge: true")))
    assert plan.judge.model == "scripted/a"
    unset = GOOD.replace("judge: {model: scripted/judge, mode: sentence}", "judge: self")
    assert read_plan(write(tmp_path, unset)).judge.model is None


@pytest.mark.fault("plan_file", "clear error")
def test_yaml_limits_and_a_log_dir_that_is_a_file(tmp_path: Path) -> None:
    deep = "models: " + "[" * 200 + "]" * 200 + "\n"
    with pytest.raises(PlanError, match="nested deeper than 32 levels"):
        read_plan(write(tmp_path, deep))
    # a billion laughs: aliases of aliases
    laughs = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    with pytest.raises(PlanError, match="more than 64 aliases"):
        read_plan(write(tmp_path, "\n".join(laughs) + "\n" + GOOD))
    (tmp_path / "out").write_text("a file")
    with pytest.raises(PlanError, match=r"`log_dir` .*out is a file, not a folder"):
        read_plan(write(tmp_path, GOOD + "log_dir: out\n"))


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="cannot read plan"):
        read_plan(tmp_path / "absent.yaml")
    with pytest.raises(PlanError, match=r"use a \.yaml, \.yml or \.toml file"):
        read_plan(write(tmp_path, GOOD, "plan.json"))
    with pytest.raises(PlanError, match="not valid yaml"):
        read_plan(write(tmp_path, "models: [a\n"))
    with pytest.raises(PlanError, match="mapping of settings"):
        read_plan(write(tmp_path, "- a\n- b\n"))


def test_the_command_reports_a_bad_plan_in_one_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from longform_evals.cli import main

    path = write(tmp_path, GOOD.replace("[hierarchical, incremental]", "[hierarchical, zigzag]"))
    result = CliRunner().invoke(main, ["run", str(path), "--dry-run"])
    assert result.exit_code == 1
    assert (
        result.output.startswith("Error: plan ")
        and "strategy='zigzag': Input should be 'hierarchical'" in result.output
    )
    assert "Traceback" not in result.output
    missing = write(tmp_path, GOOD.replace("samples: [the_frost_hold]", "samples: [no_such_book]"))
    result = CliRunner().invoke(main, ["run", str(missing), "--dry-run"])
    assert result.exit_code == 1 and "no sample no_such_book" in result.output


@pytest.mark.fault("plan_file", "clear error")
def test_a_model_argument_the_model_refuses_is_a_message(tmp_path: Path) -> None:
    """`latency: .nan` for a scripted model: before, the run failed at the first call."""
    from click.testing import CliRunner

    from longform_evals.cli import main

    nan = GOOD.replace("{default_response: hi}", "{default_response: hi, latency: .nan}")
    result = CliRunner().invoke(main, ["run", str(write(tmp_path, nan))])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit | None)
    assert "latency must be a finite number" in result.output
