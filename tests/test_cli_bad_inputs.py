"""Every `longform` subcommand over a table of bad inputs: a non-zero exit and a message that
names what was wrong, never a traceback (issue 35)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from longform_evals.cli import main

# (arguments, with {dir} a folder, {file} a text file, {bad} a garbage .eval, {none} a missing
# path; the words the message must hold)
CASES: list[tuple[str, str]] = [
    ("check --junit {dir}", "is a folder; name the XML file"),
    ("check --only nosuchmetric", "no checks for metric(s) ['nosuchmetric']"),
    ("check --recording {dir}", "is a folder; name the replay file"),
    ("check --recording {none}.jsonl", "no such file"),
    ("check --live gguf/x --record gguf/y", "not both"),
    ("judge-card --from-log {none}.eval", "no log file at"),
    ("judge-card --from-log {bad}", "cannot read the log"),
    ("judge-card --kind coherence --data {dir} --model-role grader=scripted/x", "holds no"),
    ("judge-card --kind coherence --data {dir} --model-role judge=scripted/x", "grader="),
    ("leaderboard {none}", "no such log folder"),
    ("leaderboard {file}", "is a file"),
    ("leaderboard {dir}", "no Inspect logs"),
    ("plot-positions {bad}", "cannot read the log"),
    ("plot-positions {none}.eval", "does not exist"),
    ("quickstart --book nosuchbook --model scripted/x", "no bundled book 'nosuchbook'"),
    ("quickstart --chunk-size -5 --model scripted/x", "chunk_size=-5: must be a positive"),
    ("quickstart --chunk-size big --model scripted/x", "'big' is not a valid integer"),
    ("quickstart -M novalue --model scripted/x", "expected KEY=VALUE"),
    ("run {none}.yaml", "cannot read plan"),
    ("run {dir}", "is a directory"),
    ("run {file}", "use a .yaml, .yml or .toml file"),
    ("serve {dir} --port 0", "is neither a packaged model"),
    ("serve nosuchmodel --port 0", "is neither a packaged model"),
    ("serve qwen2.5-coder-0.5b --port -3", "port must be in 0..65535"),
    ("snapshot nosuchtask", "unknown task(s) nosuchtask"),
    ("snapshot --dir {file} quality", "is a file"),
    ("models prepare nosuch", "unknown gguf model 'nosuch'"),
    ("models verify {dir}", "unknown gguf model"),
    ("lm-eval --model longform-bogus --tasks longform_quality", "no model for this name"),
    # outputs that cannot be written, refused before any work (issue 49)
    ("check --junit {file}/x.xml", "afile.txt is a file, not a folder (in the way of"),
    ("check --junit {loop}", "loop"),
    ("judge-card --from-log {bad} --out {file}/cards", "afile.txt is a file, not a folder"),
    ("leaderboard {dir} --out {file}/o", "cannot write the leaderboard to"),
    ("plot-positions {bad} --out {file}/x.png", "cannot write the plot to"),
    ("plot-positions {bad} --out {dir}", "is a folder; name a file to write"),
]


# The cases of issue 35's fault classes (benchmarks/fault_classes.py) among them.
FAULTS = {"check --junit {dir}": "cli_paths", "check --recording {dir}": "cli_paths"}


def _case(command: str, says: str) -> Any:
    marks = [pytest.mark.fault(FAULTS[command], "clear error")] if command in FAULTS else []
    return pytest.param(command, says, marks=marks, id=command)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("cli")
    (root / "adir").mkdir()
    (root / "afile.txt").write_text("x", encoding="utf-8")
    (root / "bad.eval").write_bytes(b"garbage")
    (root / "loop.xml").symlink_to(root / "loop.xml")
    return {
        "loop": str(root / "loop.xml"),
        "dir": str(root / "adir"),
        "file": str(root / "afile.txt"),
        "bad": str(root / "bad.eval"),
        "none": str(root / "nothere"),
    }


@pytest.mark.parametrize(("command", "says"), [_case(c, s) for c, s in CASES])
def test_a_bad_input_is_a_message_and_a_failure(
    command: str, says: str, paths: dict[str, str]
) -> None:
    if command.startswith("lm-eval"):
        pytest.importorskip("lm_eval")
    args = command.format(**paths).split()
    result = CliRunner().invoke(main, args)
    output = " ".join(result.output.split())
    assert result.exit_code not in (0, None), output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    assert says in output, output


def test_every_subcommand_is_in_the_table() -> None:
    tried = {c.split()[0] for c, _ in CASES}
    assert set(main.commands) <= tried, set(main.commands) - tried  # type: ignore[attr-defined]


def test_the_paths_are_what_they_say(paths: dict[str, str]) -> None:
    assert Path(paths["dir"]).is_dir() and Path(paths["file"]).is_file()
    assert not Path(paths["none"]).exists()


OUTPUTS_IN_PROC = [
    "check --junit /proc/longform-49.xml",
    "judge-card --from-log {bad} --out /proc/longform-49",
    "leaderboard {dir} --out /proc/longform-49",
    "plot-positions {bad} --out /proc/longform-49.png",
]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
@pytest.mark.parametrize("command", OUTPUTS_IN_PROC)
def test_an_output_in_a_folder_that_takes_no_files_is_refused_first(
    command: str, paths: dict[str, str]
) -> None:
    """Root may write anywhere by its permissions, yet /proc takes no new files: the folder
    is probed before the work, so the refusal is one line and the work is not done."""
    result = CliRunner().invoke(main, command.format(**paths).split())
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "the folder /proc cannot be written" in result.output, result.output
    assert "cannot read the log" not in result.output  # refused before the log was read


def test_a_model_cache_that_is_a_file_is_refused(
    paths: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from longform_evals.models import gguf_files

    monkeypatch.setenv(gguf_files.CACHE_ENV, paths["file"])
    with pytest.raises(gguf_files.ModelFileError, match=r"afile\.txt is a file, not a folder"):
        gguf_files.check_cache_folder(gguf_files.cache_dir())
    try:
        gguf_files.part_paths(gguf_files.MODELS["qwen2.5-coder-0.5b"])
    except gguf_files.ModelFileError:
        return  # its packages are not installed: nothing to assemble
    result = CliRunner().invoke(main, ["models", "prepare", "qwen2.5-coder-0.5b"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "the model cache folder" in result.output and "LONGFORM_EVALS_CACHE" in result.output
