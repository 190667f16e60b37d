"""Plan files: what a plan may say, and the clear errors for what it may not."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


ZIGZAG = "unknown strategy 'zigzag'; known: full, hierarchical"


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
            ZIGZAG,
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
    assert result.output.startswith("Error: plan ") and ZIGZAG in result.output
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


# Issue 49: repeated keys, aliases, files that are no plan, `~`, ids and cells repeated, and
# the plan named in every error.

SMALL = "models: [scripted/a]\njudge: scripted/judge\ntasks: [booookscore]\n"


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        (SMALL + "judge: scripted/other\n", "judge", 4),
        (
            "models: [scripted/a]\njudge: {model: scripted/j, model: scripted/k}\ntasks: [x]\n",
            "model",
            2,
        ),
        (
            SMALL.replace(
                "[booookscore]", "\n  - task: booookscore\n    args: {chunk_size: 1, chunk_size: 2}"
            ),
            "chunk_size",
            5,
        ),
        (SMALL + "budget:\n  tokens: 5\n  tokens: 6\n", "tokens", 6),
        # keys YAML reads as one value are one key (1 and 1.0; true and yes)
        (SMALL + "prices: {1: {input: 1, output: 1}, 1.0: {input: 2, output: 2}}\n", "1", 4),
    ],
)
def test_a_repeated_key_at_any_depth_is_refused_naming_it(
    tmp_path: Path, text: str, key: str, line: int
) -> None:
    with pytest.raises(PlanError, match=r"plan .*plan\.yaml") as error:
        read_plan(write(tmp_path, text))
    message = str(error.value)
    assert f"the key {key}" in message.replace("'", "") and f"line {line}" in message, message
    assert "\n" not in message


def test_a_key_beside_a_merge_overrides_it_as_yaml_says(tmp_path: Path) -> None:
    text = (
        "base: &base {model: scripted/j, mode: sentence}\n"
        "models: [scripted/a]\njudge: {<<: *base, mode: batched}\ntasks: [booookscore]\n"
    )
    with pytest.raises(PlanError, match=r"unknown key.*'base'"):  # merged, not repeated
        read_plan(write(tmp_path, text))


def test_repeated_keys_in_toml_name_the_line(tmp_path: Path) -> None:
    text = 'models = ["scripted/a"]\njudge = "scripted/j"\ntasks = ["booookscore"]\njudge = "x"\n'
    with pytest.raises(PlanError, match=r'plan .*plan\.toml.*line 4.*judge = "x".*twice'):
        read_plan(write(tmp_path, text, "plan.toml"))


@pytest.mark.parametrize(
    "text",
    [
        SMALL.replace("[scripted/a]", "&m [scripted/a, *m]"),
        SMALL + "budget: &b {tokens: *b}\n",
        SMALL.replace("[booookscore]", "[{task: booookscore, args: &a {x: [*a]}}]"),
    ],
)
def test_recursive_aliases_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(PlanError, match=r"plan .*plan\.yaml.*line \d+.*recursive alias"):
        read_plan(write(tmp_path, text))


def test_an_alias_bomb_under_the_alias_limit_is_refused(tmp_path: Path) -> None:
    """31 levels of two aliases each (62 aliases) stand for 2^31 values."""
    lines = ["x0: &x0 [a, b]"] + [f"x{i}: &x{i} [*x{i - 1}, *x{i - 1}]" for i in range(1, 32)]
    with pytest.raises(PlanError, match="more than 100,000 values once its aliases"):
        read_plan(write(tmp_path, "\n".join(lines) + "\n" + SMALL))


def _refused_in_time(path: Path, match: str) -> None:
    """read_plan(path) refuses within a few seconds (a reader blocked on a pipe would not)."""
    import threading

    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_plan(path)
        except BaseException as e:  # handed to the test thread
            outcome.append(e)
        else:
            outcome.append(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert outcome, f"reading {path} hung"
    assert isinstance(outcome[0], PlanError) and re.search(match, str(outcome[0])), outcome


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_reading_it(tmp_path: Path) -> None:
    pipe = tmp_path / "plan.yaml"
    os.mkfifo(pipe)
    _refused_in_time(pipe, r"plan .*plan\.yaml is a named pipe, not a regular file")


def test_folders_and_devices_are_no_plans(tmp_path: Path) -> None:
    (tmp_path / "folder.yaml").mkdir()
    _refused_in_time(tmp_path / "folder.yaml", r"plan .*folder\.yaml is a folder")
    if Path("/dev/null").exists():
        link = tmp_path / "device.yaml"
        link.symlink_to("/dev/null")
        _refused_in_time(link, r"plan .*device\.yaml is a character device")
    big = write(tmp_path, SMALL + "#" * 1_100_000, "big.yaml")
    _refused_in_time(big, r"plan .*big\.yaml is 1,1\d\d,\d\d\d bytes; a plan is at most")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (SMALL.encode() + b"name: caf\xe9\n", r"plan .*plan\.yaml is not UTF-8 text .*line 4"),
        (SMALL.encode("utf-16"), r"plan .*plan\.yaml is not UTF-8 text"),
        (SMALL.encode() + b"name: a\x00b\n", r"plan .*plan\.yaml is not valid yaml: line 4"),
    ],
)
def test_undecodable_plans_name_the_file(tmp_path: Path, data: bytes, match: str) -> None:
    path = tmp_path / "plan.yaml"
    path.write_bytes(data)
    with pytest.raises(PlanError, match=match):
        read_plan(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("samples: []", "tasks[0].samples is empty"),
        ("samples: [a, b, a]", "tasks[0].samples repeats a;"),
        ("samples: [1, '1']", "tasks[0].samples repeats 1;"),
        ("samples: [[a]]", "['a'] is not a sample id"),
        ("samples: [null]", "None is not a sample id"),
        ("samples: the_frost_hold", "must be a list of sample ids"),
        (
            "args: {strategy: full}, variants: {strategy: [full, incremental]}",
            "strategy given in both `args` and `variants`",
        ),
        ("name: [x]", "tasks[0].name must be a non-empty text"),
        ("name: '  '", "tasks[0].name must be a non-empty text"),
    ],
)
def test_sample_ids_and_variants_are_checked(tmp_path: Path, change: str, message: str) -> None:
    text = SMALL.replace("[booookscore]", f"[{{task: booookscore, {change}}}]")
    with pytest.raises(PlanError, match=r"plan .*plan\.yaml") as error:
        read_plan(write(tmp_path, text))
    assert message in str(error.value)


def test_one_cell_named_twice_is_refused(tmp_path: Path) -> None:
    text = SMALL.replace("[booookscore]", "[booookscore, {task: booookscore, name: again}]")
    with pytest.raises(PlanError, match="booookscore and again are the same cell"):
        read_plan(write(tmp_path, text))
    other = SMALL.replace(
        "[booookscore]", "[booookscore, {task: booookscore, name: b, samples: [the_frost_hold]}]"
    )
    assert len(read_plan(write(tmp_path, other)).variants) == 2  # other samples: another cell


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("allow_self_judge: 'no'", "`allow_self_judge` must be true or false, not 'no'"),
        ("name: [a]", "`name` must be a non-empty text"),
        ("name:", "`name` must be a non-empty text, not None"),
    ],
)
def test_settings_of_the_wrong_type(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(PlanError, match=r"plan .*plan\.yaml") as error:
        read_plan(write(tmp_path, SMALL + line + "\n"))
    assert message in str(error.value)


def test_tilde_is_the_home_folder_in_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "q.jsonl").write_text(QUALITY.read_text(encoding="utf-8"))
    monkeypatch.setenv("HOME", str(home))
    text = SMALL.replace(
        "[booookscore]", "[{task: quality, args: {data: ~/data/q.jsonl, strategy: full}}]"
    )
    plan = read_plan(write(tmp_path, text + "log_dir: ~/runs\n"))
    assert plan.log_dir == str((home / "runs").resolve())
    assert plan.variants[0].args["data"] == str(home / "data" / "q.jsonl")
    assert not (tmp_path / "~").exists()
    url = read_plan(write(tmp_path, text + "log_dir: file://~/runs2\n"))
    assert url.log_dir == str((home / "runs2").resolve())
    assert read_plan(write(tmp_path, text + "log_dir: s3://b/~/x\n")).log_dir == "s3://b/~/x"
    with pytest.raises(PlanError, match=r"plan .*`log_dir` '~no-such-user-49/x' cannot be made"):
        read_plan(write(tmp_path, text + "log_dir: ~no-such-user-49/x\n"))


@pytest.mark.parametrize(
    ("log_dir", "message"),
    [
        ("{file}/logs", "is a file, not a folder (in the way of"),
        ("{file}", "is a file, not a folder"),
        ("{link}/logs", "loop"),
        ("/proc/longform-49/logs", "the folder /proc cannot be written"),
        ("logs/" + "x" * 300, "a name is over 255 bytes"),
    ],
)
def test_a_log_dir_that_cannot_be_written_is_refused_when_read(
    tmp_path: Path, log_dir: str, message: str
) -> None:
    if log_dir.startswith("/proc") and not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-link").symlink_to(tmp_path / "a-link")  # a link to itself
    value = log_dir.format(file=tmp_path / "a-file", link=tmp_path / "a-link")
    with pytest.raises(PlanError, match=r"plan .*plan\.yaml: `log_dir` ") as error:
        read_plan(write(tmp_path, SMALL + f"log_dir: {value}\n"))
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_log_dir_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(PlanError, match="cannot be written"):
            read_plan(write(tmp_path, SMALL + f"log_dir: {locked}/logs\n"))
    finally:
        locked.chmod(0o755)


def test_the_command_names_the_plan_or_option_in_every_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from longform_evals.cli import main

    good = write(tmp_path, SMALL)
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "a-file" / "cache"))
    for args in (["--dry-run"], []):
        result = CliRunner().invoke(main, ["run", str(good), *args])
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert f"plan {good}: INSPECT_CACHE_DIR=" in result.output
        assert "a-file is a file, not a folder" in result.output
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    no_cache = SMALL.replace(
        "[booookscore]", "[{task: booookscore, args: {cache: false, judge_cache: false}}]"
    )
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "a-file" / "cache"))
    result = CliRunner().invoke(main, ["run", str(write(tmp_path, no_cache)), "--dry-run"])
    assert result.exit_code == 0, result.output  # a plan that caches nothing needs no cache
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(
        main, ["run", str(good), "--dry-run", "--log-dir", str(tmp_path / "a-file" / "x")]
    )
    assert result.exit_code == 1 and "--log-dir " in result.output and "is a file" in result.output


_KEYS = st.text(
    alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Lo")), min_size=1, max_size=8
).filter(lambda k: k.lower() not in {"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.lists(_KEYS, min_size=1, max_size=6),
    repeated=_KEYS,
    flow=st.booleans(),
    values=st.tuples(st.integers(), st.text(alphabet="abc xyz", min_size=1, max_size=5)),
)
def test_a_repeated_key_is_refused_at_any_depth_in_any_style(
    tmp_path: Path, path: list[str], repeated: str, flow: bool, values: tuple[int, str]
) -> None:
    """A mapping nested `len(path)` deep, in block or flow style, giving one key twice."""
    first, second = values
    if flow:
        inner = f"{{{repeated}: {first}, other: 1, {repeated}: '{second}'}}"
        for key in reversed(path):
            inner = f"{{{key}: {inner}}}"
        text = f"nested: {inner}\n"
        line = 1
    else:
        lines = ["nested:"] + [f"{'  ' * (d + 1)}{key}:" for d, key in enumerate(path)]
        pad = "  " * (len(path) + 1)
        lines += [f"{pad}{repeated}: {first}", f"{pad}other: 1", f"{pad}{repeated}: '{second}'"]
        text = "\n".join(lines) + "\n"
        line = len(lines)
    with pytest.raises(PlanError) as error:
        read_plan(write(tmp_path, SMALL + text))
    message = str(error.value)
    assert f"the key {repeated!r} is repeated" in message, message
    assert f"line {line + 3}" in message and "plan.yaml" in message, message
