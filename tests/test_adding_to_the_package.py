"""Adding a strategy or a judge *to the package* touches the files docs/architecture.md says,
and no more: each addition of `tests/additions/` is written into a scratch copy of the
repository (its tracked files), which then runs the addition's own test and the suite's
checks over the registries (every entry built, priced, run against its estimate, offered by
the tasks, lm-eval and the plan check; the layer map, the prompts, the step kinds) and
`ruff`; the files `git status` shows changed are counted, a prompt folder once.

A list somewhere that a new name has to be added to (a closed list in a test, a docstring
the tests compare with the registry, a second prompt folder, a hard-coded folder name) makes
one of the checks fail or the count exceed the limit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from additions import coherence_judge, reading_strategy, summary_strategy, support_judge
from additions.shape import Addition

ROOT = Path(__file__).resolve().parents[1]
ADDITIONS = [
    summary_strategy.ADDITION,
    reading_strategy.ADDITION,
    coherence_judge.ADDITION,
    support_judge.ADDITION,
]

# The checks that read the whole repository rather than one registry (a test that lists
# registry entries is found by REGISTRY_READERS below).
STRUCTURE_CHECKS = (
    "tests/test_layers.py",
    "tests/test_how_to_add.py",
    "tests/test_registered_names.py",
    "tests/test_step_kinds_doc.py",
    "tests/test_prompts.py",
    "tests/test_package_exports.py",
    "tests/tasks/test_task_cards.py",
    "tests/tasks/test_descriptor.py",
)
REGISTRY_READERS = re.compile(
    r"strategy_names|SUMMARY_STRATEGIES|\.strategies\b|register_strategy|"
    r"judge_names|judge_entry|judge_entries|coherence_modes|support_judge_names"
)
# The estimate-vs-run matrix covers every entry; in the scratch copy only the new one's cases.
ESTIMATE_MATRIX = "tests/runs/test_estimate_matches_run.py"


def _git(folder: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "scratch",
        "GIT_AUTHOR_EMAIL": "scratch@example.org",
        "GIT_COMMITTER_NAME": "scratch",
        "GIT_COMMITTER_EMAIL": "scratch@example.org",
    }
    done = subprocess.run(
        ["git", *args], cwd=folder, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def _scratch_copy(into: Path) -> Path:
    """The repository's files (tracked, and new ones git does not ignore) in ``into``, committed."""
    try:
        listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs the repository as a git checkout")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    _git(into, "init", "-q")
    _git(into, "add", "-A")
    _git(into, "commit", "-q", "-m", "the repository as it is")
    return into


def _add(folder: Path, addition: Addition) -> None:
    for name, text in addition.files.items():
        path = folder / name
        assert not path.exists(), f"{name} exists already: pick another name for the addition"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for insert in addition.inserts:
        path = folder / insert.path
        path.write_text(insert.apply(path.read_text()))


def touched(folder: Path) -> list[str]:
    """The files ``git status`` shows changed or new, a prompt folder counted once."""
    status = _git(folder, "status", "--porcelain", "--untracked-files=all")
    out: set[str] = set()
    for line in status.splitlines():
        path = line[3:]
        prompts = re.match(r"(src/longform_evals/prompts/[^/]+)/", path)
        out.add(prompts.group(1) + "/" if prompts else path)
    return sorted(out)


def _registry_readers(folder: Path) -> list[str]:
    found = []
    for path in sorted((folder / "tests").rglob("test_*.py")):
        name = str(path.relative_to(folder))
        own = name in (ESTIMATE_MATRIX, *STRUCTURE_CHECKS, "tests/test_adding_to_the_package.py")
        if not own and REGISTRY_READERS.search(path.read_text()):
            found.append(name)
    return found


def _run(folder: Path, *command: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(folder / "src")}
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    output = (done.stdout + done.stderr)[-6000:]
    assert done.returncode == 0, f"{' '.join(command)} failed in the scratch copy:\n{output}"


def test_each_addition_touches_at_most_its_files_and_all_pass_every_check(tmp_path: Path) -> None:
    # one scratch copy: each addition is written and counted on its own (committed before
    # the next), then the checks run once over all of them together
    folder = _scratch_copy(tmp_path / "repo")
    counted = {}
    for addition in ADDITIONS:
        _add(folder, addition)
        counted[addition.kind] = touched(folder)
        _git(folder, "add", "-A")
        _git(folder, "commit", "-q", "-m", addition.kind)
    too_many = {a.kind: counted[a.kind] for a in ADDITIONS if len(counted[a.kind]) > a.limit}
    assert not too_many, too_many
    # the scratch copy's package is the one imported
    _run(
        folder,
        sys.executable,
        "-c",
        f"import longform_evals; assert {str(folder)!r} in longform_evals.__file__",
    )
    _run(folder, sys.executable, "-m", "ruff", "check", "--no-cache", ".")
    own_tests = [name for a in ADDITIONS for name in a.files if Path(name).name.startswith("test_")]
    pytest_command = (sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider")
    _run(
        folder,
        *pytest_command,
        *own_tests,
        *STRUCTURE_CHECKS,
        *_registry_readers(folder),
    )
    names = " or ".join(a.name for a in ADDITIONS if a.matrix)
    _run(folder, *pytest_command, ESTIMATE_MATRIX, "-k", names)


def test_touched_counts_a_prompt_folder_once(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / "src/longform_evals/prompts/x/focused").mkdir(parents=True)
    _git(folder, "init", "-q")
    for name in ("a.txt", "focused/a.txt", "b.txt"):
        (folder / "src/longform_evals/prompts/x" / name).write_text("{text}\n")
    (folder / "module.py").write_text("\n")
    assert touched(folder) == ["module.py", "src/longform_evals/prompts/x/"]
