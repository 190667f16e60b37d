"""Plan files as people and their scripts write them, fed to ``longform run`` (with and without
``--dry-run``): a key given twice (at the top, nested, in YAML and TOML), aliases that contain
themselves or expand into millions of values, a plan that is a named pipe, a folder or a device,
text that is not UTF-8, sample lists that are empty or name an id twice, one cell named twice,
settings of the wrong type, log folders that cannot be written (under a file, in ``/proc``, an
unknown user's ``~``), an unwritable ``INSPECT_CACHE_DIR``; and valid but unusual plans (merge
keys, anchors, ``~`` paths, a BOM, TOML, non-ASCII names) that must run their dry run.

A bad plan must be refused with a non-zero exit whose one message names the plan file (or the
option) and what is wrong in it (``error``). A plan whose second key silently wins, that passes
the dry run with a repeated id, or a refusal that does not name the plan is ``silent``; a named
pipe read for ever is a ``hang``; a traceback is a ``crash``.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from fault_cases._case import Case, CliResult, cli, cli_loaded, cli_refused

CLASS = "plans"
DESCRIPTION = "plans: repeated keys, aliases, non-files, encodings, ids, log folders; odd ones run"

_MODELS = ["scripted/amber", "scripted/birch", "scripted/cedar", "scripted/delta"]
_JUDGES = ["scripted/judge", "scripted/grader", "scripted/referee"]
_BOOK = "the_frost_hold"
_NAMES = ["nightly", "sweep", "baseline", "grid", "trial", "smoke", "ablation"]


def _base(rng: random.Random) -> dict[str, str]:
    """The lines of a small valid plan (YAML), chosen by ``rng``."""
    return {
        "models": f"models: [{rng.choice(_MODELS)}]",
        "judge": f"judge: {rng.choice(_JUDGES)}",
        "tasks": "tasks: [booookscore]",
    }


def _yaml(lines: dict[str, str], *extra: str) -> str:
    return "\n".join([*lines.values(), *extra]) + "\n"


def _plan_name(rng: random.Random, suffix: str = ".yaml") -> str:
    return f"{rng.choice(_NAMES)}_{rng.randrange(1000)}{suffix}"


def _refuse(
    name: str,
    text: str | bytes,
    needles: tuple[str, ...],
    *,
    dry: bool = True,
    env: dict[str, str] | None = None,
    extra: tuple[str, ...] = (),
    timeout: float = 60.0,
) -> Callable[[Path], str]:
    """A case: write ``text`` as the plan ``name``, run it, expect a refusal naming the plan
    and every needle."""

    def run(folder: Path) -> str:
        path = folder / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        args = ["run", str(path), *(["--dry-run"] if dry else []), *extra]
        result = cli(args, folder, env=_env(folder, env), timeout=timeout)
        return cli_refused(result, name, *needles)

    return run


def _env(folder: Path, env: dict[str, str] | None) -> dict[str, str]:
    base = {"INSPECT_CACHE_DIR": str(folder / "inspect-cache")}
    return {**base, **{k: v.format(folder=folder) for k, v in (env or {}).items()}}


def _repeated_keys(rng: random.Random) -> list[Case]:
    out = []
    for i in range(4):  # a top-level key written twice, somewhere in the plan
        lines = _base(rng)
        key = rng.choice(["models", "judge", "tasks"])
        doubled = list(lines.values())
        doubled.insert(rng.randrange(len(doubled) + 1), lines[key])
        text = "\n".join(doubled) + "\n"
        out.append(Case(f"yaml top key {key} twice #{i}", _refuse(_plan_name(rng), text, (key,))))
    nested = {
        "judge mapping": "judge: {model: scripted/judge, mode: sentence, mode: batched}",
        "task args": "tasks: [{task: booookscore, args: {chunk_size: 512, chunk_size: 900}}]",
        "budget": "budget:\n  tokens: 5000\n  tokens: 90000",
        "a model's args": "models: [{model: scripted/a, args: {latency: 0, latency: 1}}]",
        "task entry": "tasks:\n  - task: booookscore\n    limit: 1\n    limit: 3",
    }
    keys = {
        "judge mapping": "mode",
        "task args": "chunk_size",
        "budget": "tokens",
        "a model's args": "latency",
        "task entry": "limit",
    }
    for where, line in nested.items():
        lines = _base(rng)
        slot = {"judge mapping": "judge", "task args": "tasks", "task entry": "tasks"}
        target = slot.get(where, "models" if "model" in where else "")
        if target:
            lines[target] = line
            text = _yaml(lines)
        else:
            text = _yaml(lines, line)
        needles = (keys[where], "repeated")
        out.append(Case(f"yaml nested key twice: {where}", _refuse(_plan_name(rng), text, needles)))
    for i, (key, first, second) in enumerate(
        [("judge", '"scripted/j"', '"scripted/k"'), ("epochs", "1", "2"), ("limit", "2", "5")]
    ):
        text = (
            f'models = ["{rng.choice(_MODELS)}"]\njudge = "scripted/judge"\n'
            f'tasks = ["booookscore"]\n'
        )
        text = text.replace('judge = "scripted/judge"\n', "") if key == "judge" else text
        text += f"{key} = {first}\n{key} = {second}\n"
        name = _plan_name(rng, ".toml")
        out.append(Case(f"toml key {key} twice #{i}", _refuse(name, text, (key, "line"))))
    return out


def _aliases(rng: random.Random) -> list[Case]:
    lines = _base(rng)
    recursive = {
        "a list in itself": lines | {"models": f"models: &m [{rng.choice(_MODELS)}, *m]"},
        "a mapping in itself": lines
        | {"tasks": "tasks: [{task: booookscore, args: &a {nested: *a}}]"},
        "deep inside": lines
        | {"judge": "judge: &j {model: scripted/judge, args: {deeper: [1, {x: *j}]}}"},
    }
    out = [
        Case(f"recursive alias: {what}", _refuse(_plan_name(rng), _yaml(v), ("recursive alias",)))
        for what, v in recursive.items()
    ]
    for width, levels in ((2, 30), (3, 20)):
        chain = [f"x0: &x0 [{', '.join(['v'] * width)}]"]
        chain += [f"x{i}: &x{i} [{', '.join([f'*x{i - 1}'] * width)}]" for i in range(1, levels)]
        text = "\n".join(chain) + "\n" + _yaml(_base(rng))
        out.append(
            Case(f"alias bomb {width}^{levels}", _refuse(_plan_name(rng), text, ("aliases",)))
        )
    return out


_BLOCKED_S = 20.0
"""How long a command may take on a plan that is no file before it counts as blocked."""


def _within(args: list[str], folder: Path) -> CliResult:
    """``longform ARGS``, stopped after :data:`_BLOCKED_S`: a command blocked on a pipe is
    killed here (no process is left behind), then the case outlasts its own timeout, so the
    runner records a hang rather than a crash."""
    try:
        return cli(args, folder, timeout=_BLOCKED_S)
    except subprocess.TimeoutExpired:
        time.sleep(2 * _BLOCKED_S)
        raise


def _not_files(rng: random.Random) -> list[Case]:
    def pipe(suffix: str) -> Callable[[Path], str]:
        def run(folder: Path) -> str:
            name = _plan_name(rng_pipe, suffix)
            os.mkfifo(folder / name)
            return cli_refused(
                _within(["run", str(folder / name), "--dry-run"], folder), name, "pipe"
            )

        return run

    def device(folder: Path) -> str:
        link = folder / "device.yaml"
        link.symlink_to("/dev/zero")
        return cli_refused(_within(["run", str(link), "--dry-run"], folder), "device")

    def directory(folder: Path) -> str:
        (folder / "plans.yaml").mkdir()
        return cli_refused(cli(["run", str(folder / "plans.yaml")], folder), "plans.yaml")

    rng_pipe = random.Random(rng.random())
    return [
        Case("a named pipe .yaml", pipe(".yaml"), timeout=_BLOCKED_S + 10),
        Case("a named pipe .toml", pipe(".toml"), timeout=_BLOCKED_S + 10),
        Case("a device behind a .yaml link", device, timeout=_BLOCKED_S + 10),
        Case("a folder named .yaml", directory),
    ]


def _encodings(rng: random.Random) -> list[Case]:
    text = _yaml(_base(rng))
    return [
        Case(
            "latin-1 plan name",
            _refuse(_plan_name(rng), text.encode() + "name: café\n".encode("latin-1"), ("UTF-8",)),
        ),
        Case("utf-16 plan", _refuse(_plan_name(rng), text.encode("utf-16"), ("UTF-8",))),
        Case(
            "cp1252 toml",
            _refuse(
                _plan_name(rng, ".toml"),
                'models = ["scripted/a"]\njudge = "scripted/j"\ntasks = ["booookscore"]\n'
                'name = "smart “quotes”"\n'.encode("cp1252"),
                ("UTF-8",),
            ),
        ),
    ]


def _ids_and_cells(rng: random.Random) -> list[Case]:
    def with_task(entry: str) -> str:
        return _yaml(_base(rng) | {"tasks": f"tasks: [{entry}]"})

    ids = [_BOOK, "x1", "x2", "7"]
    twice = rng.sample(ids, 2)
    cases = {
        "samples: [] (yaml)": (with_task("{task: booookscore, samples: []}"), ("samples",)),
        "a sample id twice": (
            with_task(f"{{task: booookscore, samples: [{twice[0]}, {twice[1]}, {twice[0]}]}}"),
            ("repeats", twice[0]),
        ),
        "an id as number and text": (
            with_task("{task: booookscore, samples: [7, '7']}"),
            ("repeats", "7"),
        ),
        "a list as an id": (
            with_task(f"{{task: booookscore, samples: [[{_BOOK}]]}}"),
            ("sample id",),
        ),
        "one cell under two names": (
            with_task("booookscore, {task: booookscore, name: again}"),
            ("same cell",),
        ),
        "an argument in args and variants": (
            with_task(
                "{task: booookscore, args: {strategy: hierarchical}, "
                "variants: {strategy: [hierarchical, incremental]}}"
            ),
            ("strategy", "both"),
        ),
        "allow_self_judge as text": (
            _yaml(_base(rng), "allow_self_judge: 'no'"),
            ("allow_self_judge",),
        ),
        "a name that is a list": (_yaml(_base(rng), "name: [a, b]"), ("`name`",)),
    }
    out = [
        Case(what, _refuse(_plan_name(rng), text, needles))
        for what, (text, needles) in cases.items()
    ]
    toml = (
        'models = ["scripted/a"]\njudge = "scripted/j"\n'
        '[[tasks]]\ntask = "booookscore"\nsamples = []\n'
    )
    out.append(Case("samples = [] (toml)", _refuse(_plan_name(rng, ".toml"), toml, ("samples",))))
    return out


def _log_folders(rng: random.Random) -> list[Case]:
    def blocked(folder: Path) -> None:
        (folder / "taken").write_text("a file, not a folder")

    out = []
    for dry in (True, False):
        for where, value in (("under a file", "{folder}/taken/logs"), ("in /proc", "/proc/lf/x")):

            def run(folder: Path, value: str = value, dry: bool = dry) -> str:
                blocked(folder)
                name = _plan_name(rng_logs)
                text = _yaml(_base(rng_logs), f"log_dir: {value.format(folder=folder)}")
                return _refuse(name, text, ("log_dir",), dry=dry)(folder)

            mode = "dry run" if dry else "run"
            out.append(Case(f"log_dir {where} ({mode})", run))
    rng_logs = random.Random(rng.random())
    out.append(
        Case(
            "log_dir of an unknown user's ~",
            _refuse(
                _plan_name(rng), _yaml(_base(rng), "log_dir: ~nosuchuser49/logs"), ("log_dir",)
            ),
        )
    )

    def option(folder: Path) -> str:
        blocked(folder)
        name = _plan_name(rng_logs)
        (folder / name).write_text(_yaml(_base(rng_logs)), encoding="utf-8")
        args = ["run", str(folder / name), "--log-dir", str(folder / "taken" / "x")]
        return cli_refused(cli(args, folder, env=_env(folder, None)), "--log-dir", "taken")

    def cache(folder: Path) -> str:
        blocked(folder)
        env = {"INSPECT_CACHE_DIR": str(folder / "taken" / "cache")}
        return _refuse(
            _plan_name(rng_logs), _yaml(_base(rng_logs)), ("INSPECT_CACHE_DIR",), env=env
        )(folder)

    def cache_proc(folder: Path) -> str:
        env = {"INSPECT_CACHE_DIR": "/proc/inspect-cache"}
        return _refuse(
            _plan_name(rng_logs), _yaml(_base(rng_logs)), ("INSPECT_CACHE_DIR",), env=env
        )(folder)

    out += [
        Case("--log-dir under a file", option),
        Case("INSPECT_CACHE_DIR under a file", cache),
        Case("INSPECT_CACHE_DIR in /proc", cache_proc),
    ]
    return out


def _valid(rng: random.Random) -> list[Case]:
    def loads(name: str, text: str | bytes, expect: str = "") -> Callable[[Path], str]:
        def run(folder: Path) -> str:
            home = folder / "home"
            (home / "data").mkdir(parents=True)
            path = folder / name
            path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
            env = {"HOME": str(home)}
            result = cli(["run", str(path), "--dry-run"], folder, env=_env(folder, env))
            ended = cli_loaded(result)
            wanted = expect.format(home=home.resolve(), folder=folder.resolve())
            if ended == "loaded" and wanted and wanted not in result.output:
                return "silent"  # ran, but not with what the plan said
            if (folder / "~").exists():
                return "silent"  # a folder literally named ~
            return ended

        return run

    lines = _base(rng)
    merge = (
        f"{lines['models']}\n"
        "judge: {<<: {model: scripted/judge, mode: sentence}, mode: batched}\n"
        "tasks: [booookscore]\n"
    )
    anchors = (
        f"models: [&m {rng.choice(_MODELS)}]\njudge: scripted/judge\n"
        "tasks: [{task: booookscore, name: a, args: &args {chunk_size: 700}},"
        " {task: booookscore, name: b, args: *args, samples: [" + _BOOK + "]}]\n"
    )
    toml = (
        f'name = "{rng.choice(_NAMES)}"\nmodels = ["{rng.choice(_MODELS)}"]\n'
        'judge = "scripted/judge"\n[[tasks]]\ntask = "booookscore"\n'
        f'samples = ["{_BOOK}"]\n'
    )
    return [
        Case("merge key overridden beside it", loads(_plan_name(rng), merge, "mode: batched")),
        Case("anchors used twice", loads(_plan_name(rng), anchors)),
        Case(
            "log_dir under ~",
            loads(_plan_name(rng), _yaml(lines, "log_dir: ~/runs"), "{home}/runs"),
        ),
        Case(
            "log_dir as file://~",
            loads(_plan_name(rng), _yaml(_base(rng), "log_dir: file://~/r2"), "{home}/r2"),
        ),
        Case(
            "a BOM and CRLF",
            loads(
                _plan_name(rng), b"\xef\xbb\xbf" + _yaml(_base(rng)).replace("\n", "\r\n").encode()
            ),
        ),
        Case("toml with samples", loads(_plan_name(rng, ".toml"), toml)),
        Case(
            "non-ASCII plan and variant names",
            loads(
                "plan_ünïcödé.yaml",
                _yaml(
                    _base(rng) | {"tasks": "tasks: [{task: booookscore, name: Ξ-café}]"},
                    "name: 夜間",
                ),
                "Ξ-café",
            ),
        ),
        Case(
            "one named sample",
            loads(
                _plan_name(rng),
                _yaml(
                    _base(rng) | {"tasks": f"tasks: [{{task: booookscore, samples: [{_BOOK}]}}]"}
                ),
            ),
        ),
    ]


def cases() -> list[Case]:
    rng = random.Random(4949)
    return [
        *_repeated_keys(rng),
        *_aliases(rng),
        *_not_files(rng),
        *_encodings(rng),
        *_ids_and_cells(rng),
        *_log_folders(rng),
        *_valid(rng),
    ]
