"""The package's layers (docs/architecture.md) and the root task files, checked from the source.

1. Imports follow the layers. Every module under `src/longform_evals`, and every root
   `tasks/*.py` file, is parsed with `ast`; each import of a `longform_evals` module is checked
   against LAYERS: `import x`, `from x import y`, relative imports, imports inside functions,
   and imports under `if TYPE_CHECKING:` too (a type-only import still ties one layer to
   another's API, so it counts like any other). A module may import its own layer and layers
   of a lower rank; layers of one rank do not import each other. The failure names the module,
   the line and the rule. Imports made by `importlib` at run time are not seen.
2. EXCEPTIONS lists the imports the rules forbid but the code still makes, each with its
   reason: known debts, to be removed. An entry no import needs any more fails.
3. LAYERS and the layer table of docs/architecture.md are the same, so the doc stays the
   reference.
4. The tasks the package registers (through its `inspect_ai` entry point), the `@task`
   functions of `src/longform_evals/tasks/` and the root `tasks/*.py` files name the same
   tasks. (tests/tasks/test_task_files.py checks each root file's signature and runs it.)
5. The checkers report planted faults: the same functions, given a synthetic module that
   imports upwards and a task without its root file.
"""

from __future__ import annotations

import ast
import graphlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from inspect_ai._util.registry import registry_find, registry_info

from helpers import task_functions

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
PACKAGE = "longform_evals"
DOC = REPO / "docs" / "architecture.md"
ROOT_TASKS = REPO / "tasks"
ENTRY = "tasks/*.py"
"""The layer of the root task files (`inspect eval tasks/X.py`)."""

LAYERS: dict[str, int] = {
    "about": 0,
    "text": 0,
    "prompts": 0,
    "progress": 0,
    "inspect_private": 0,
    "log_keys": 0,
    "log_store": 0,
    "vocabulary": 0,
    "models": 1,
    "data": 1,
    "analysis": 1,
    "judges": 2,
    "solvers": 2,
    "scorers": 3,
    "tasks": 4,
    "reports": 5,
    "runs": 5,
    "checks": 5,
    "lmeval": 5,
    "_registry": 5,
    "longform_evals": 6,  # the package's own __init__.py (it imports `_registry` lazily)
    "cli": 6,
    ENTRY: 7,
}
"""Layer -> rank, as in docs/architecture.md. A layer is the first name below the package
(`longform_evals.solvers.strategies` is in `solvers`)."""

EXCEPTIONS: dict[tuple[str, str], str] = {}
"""(importing module, imported module) -> why the forbidden import is still there, each also
named in docs/architecture.md. The layers above were chosen from the imports measured when this
test was written; there is no exception left (the package's `__init__.py` moved to the top when
the version and launch folder moved to the leaf `about`)."""


@dataclass(frozen=True)
class Import:
    """One import of a package module: who imports it, where, and what."""

    module: str
    path: str
    line: int
    target: str


def layer_of(module: str) -> str | None:
    """`longform_evals.solvers.strategies` -> `solvers`; `longform_evals` -> `longform_evals`;
    a root task file `tasks/X.py` -> `tasks/*.py`; None outside the package."""
    if module.startswith("tasks/"):
        return ENTRY
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    return parts[1] if len(parts) > 1 else PACKAGE


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The module a `from ... import` reads from, relative imports resolved."""
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if node.level - 1 >= len(parts):
        raise ValueError(f"{module}:{node.lineno}: relative import beyond the top package")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def package_imports(
    module: str, source: str, *, path: str = "", is_package: bool = False
) -> list[Import]:
    """Every import of a `longform_evals` module in `source`, at any depth of the code.

    `module` is the importing module's dotted name (a root task file: `tasks/X.py`);
    `is_package` says it is an `__init__.py`, for resolving relative imports.
    """
    found: list[Import] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node, is_package)
            if base == PACKAGE:  # `from longform_evals import text`: a layer, or a name
                names = [alias.name for alias in node.names]
                targets = [f"{PACKAGE}.{n}" if n in LAYERS else PACKAGE for n in names]
            else:
                targets = [base]
        else:
            continue
        for target in targets:
            if target == PACKAGE or target.startswith(f"{PACKAGE}."):
                found.append(Import(module, path or module, node.lineno, target))
    return found


def layer_violations(
    imports: Iterable[Import],
    layers: Mapping[str, int] = LAYERS,
    exceptions: Mapping[tuple[str, str], str] = EXCEPTIONS,
) -> list[str]:
    """One message per import the layer rules forbid (and EXCEPTIONS does not allow), and one
    per exception that no forbidden import needs any more."""
    problems: list[str] = []
    used: set[tuple[str, str]] = set()
    for imp in imports:
        mine, theirs = layer_of(imp.module), layer_of(imp.target)
        if mine == theirs or mine is None or theirs is None:
            continue
        where = f"{imp.path}:{imp.line}: {imp.module} imports {imp.target}"
        unknown = [layer for layer in (mine, theirs) if layer not in layers]
        if unknown:
            problems.append(
                f"{where}: layer {unknown[0]!r} is not in the layer table "
                "(LAYERS in tests/test_layers.py and docs/architecture.md)"
            )
            continue
        if layers[theirs] < layers[mine]:
            continue
        if (imp.module, imp.target) in exceptions:
            used.add((imp.module, imp.target))
            continue
        rule = (
            "layers of one rank do not import each other"
            if layers[theirs] == layers[mine]
            else "a layer imports only layers of a lower rank"
        )
        problems.append(
            f"{where}: layer {mine} (rank {layers[mine]}) may not import layer {theirs} "
            f"(rank {layers[theirs]}); rule: {rule} (docs/architecture.md)"
        )
    for stale in sorted(set(exceptions) - used):
        problems.append(f"EXCEPTIONS entry {stale} matches no forbidden import: remove it")
    return problems


def unmapped_modules(modules: Iterable[str], layers: Mapping[str, int] = LAYERS) -> list[str]:
    """Modules whose layer is not in the table."""
    return [m for m in modules if layer_of(m) not in layers]


def _package_sources() -> Iterator[tuple[str, Path, bool]]:
    """(dotted name, path, is a package) of every module of the package."""
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        yield ".".join(parts[:-1] if is_package else parts), path, is_package


def all_imports() -> list[Import]:
    """The package imports of every package module and every root task file."""
    found: list[Import] = []
    sources = [*_package_sources()]
    sources += [(f"tasks/{p.name}", p, False) for p in sorted(ROOT_TASKS.glob("*.py"))]
    for module, path, is_package in sources:
        text = path.read_text(encoding="utf-8")
        shown = str(path.relative_to(REPO))
        found += package_imports(module, text, path=shown, is_package=is_package)
    return found


# --------------------------------------------------------------------------------------------
# The layer table of the doc.

_CODE = re.compile(r"`([^`]+)`")


def doc_layers(markdown: str) -> dict[str, int]:
    """Layer -> rank from the markdown table whose header has `rank` and `layer` columns (the
    layer is the first code span of its cell)."""
    table: dict[str, int] = {}
    header: list[str] | None = None
    for line in markdown.splitlines():
        if not line.lstrip().startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header is None:
            header = [cell.lower() for cell in cells]
            continue
        if not {"rank", "layer"} <= set(header) or set("".join(cells)) <= set("-: "):
            continue
        code = _CODE.search(cells[header.index("layer")])
        assert code, f"docs/architecture.md: a layer row without a `code` name: {line}"
        layer = code.group(1)
        assert layer not in table, f"docs/architecture.md: layer {layer!r} is listed twice"
        table[layer] = int(cells[header.index("rank")])
    return table


def table_differences(doc: Mapping[str, int], test: Mapping[str, int]) -> list[str]:
    """How the doc's layer table differs from the test's."""
    problems = [f"{k!r}: rank {doc[k]} in the doc, not in LAYERS" for k in doc if k not in test]
    problems += [f"{k!r}: rank {test[k]} in LAYERS, not in the doc" for k in test if k not in doc]
    problems += [
        f"{k!r}: rank {doc[k]} in the doc, {test[k]} in LAYERS"
        for k in doc
        if k in test and doc[k] != test[k]
    ]
    return problems


# --------------------------------------------------------------------------------------------
# Registered package tasks and root task files.


def registered_tasks() -> set[str]:
    """The tasks registered by importing the module the package's `inspect_ai` entry point
    names (what `inspect eval longform_evals/X` finds), without the `longform_evals/` prefix."""
    modules = {ep.value for ep in entry_points(group="inspect_ai") if ep.name == PACKAGE}
    assert modules, "no `inspect_ai` entry point named longform_evals: is the package installed?"
    for module in modules:
        import_module(module.split(":")[0])
    prefix = f"{PACKAGE}/"
    tasks = registry_find(lambda info: info.type == "task" and info.name.startswith(prefix))
    return {registry_info(t).name.removeprefix(prefix) for t in tasks}


def defined_tasks() -> dict[str, str]:
    """Task name -> file, for every `@task` function in `src/longform_evals/tasks/`."""
    folder = SRC / PACKAGE / "tasks"
    return {
        name: str(path.relative_to(REPO))
        for path in sorted(folder.glob("*.py"))
        for name in task_functions(path)
    }


def root_tasks() -> dict[str, list[str]]:
    """Root file (`tasks/X.py`) -> the `@task` functions it defines."""
    return {f"tasks/{p.name}": task_functions(p) for p in sorted(ROOT_TASKS.glob("*.py"))}


def task_file_problems(
    registered: set[str], defined: Mapping[str, str], root: Mapping[str, list[str]]
) -> list[str]:
    """Package tasks without a root file, root files without a package task, and `@task`
    functions of the package that are not registered, each by name."""
    problems = [
        f"package task {name!r} ({defined[name]}) is not registered: import it in "
        "src/longform_evals/_registry.py"
        for name in sorted(set(defined) - registered)
    ]
    problems += [
        f"registered task {name!r} is not a @task function of src/longform_evals/tasks/"
        for name in sorted(registered - set(defined))
    ]
    files: dict[str, list[str]] = {}
    for file, names in root.items():
        if not names:
            problems.append(f"{file} defines no @task: it should name a package task")
        for name in names:
            files.setdefault(name, []).append(file)
            if name not in registered:
                problems.append(
                    f"{file} defines @task {name!r}, which the package registry does not have "
                    f"(no longform_evals/{name})"
                )
    problems += [
        f"package task {name!r} has no root file: add tasks/{name}.py defining @task {name}"
        for name in sorted(registered - set(files))
    ]
    problems += [
        f"package task {name!r} is defined by several root files: {', '.join(found)}"
        for name, found in sorted(files.items())
        if len(found) > 1
    ]
    return problems


# --------------------------------------------------------------------------------------------
# The checks of the real code.


def test_every_module_is_in_a_layer() -> None:
    modules = [module for module, _, _ in _package_sources()]
    assert len(modules) > 50, modules
    assert not unmapped_modules(modules), unmapped_modules(modules)


def test_imports_follow_the_layers() -> None:
    imports = all_imports()
    assert len(imports) > 100, "too few package imports found: is the parser reading the code?"
    problems = layer_violations(imports)
    assert not problems, "\n".join(problems)


def test_the_doc_has_the_same_layer_table() -> None:
    problems = table_differences(doc_layers(DOC.read_text(encoding="utf-8")), LAYERS)
    assert not problems, "docs/architecture.md and LAYERS differ:\n" + "\n".join(problems)


def test_the_doc_names_every_exception() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [module for module, _ in EXCEPTIONS if f"`{module}`" not in text]
    assert not missing, f"docs/architecture.md should list these known debts: {missing}"


def test_package_tasks_and_root_task_files_match() -> None:
    registered = registered_tasks()
    assert len(registered) >= 9, registered
    problems = task_file_problems(registered, defined_tasks(), root_tasks())
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------------------------
# The same checkers, given planted faults.


def test_an_upward_import_is_reported_with_its_line_and_rule() -> None:
    source = '"""A planted module."""\n\nimport longform_evals.scorers\n'
    imports = package_imports("longform_evals.text.fake", source, path="text/fake.py")
    [problem] = layer_violations(imports, exceptions={})
    assert problem.startswith("text/fake.py:3: longform_evals.text.fake imports")
    assert "layer text (rank 0) may not import layer scorers (rank 3)" in problem
    assert "a layer imports only layers of a lower rank" in problem


@pytest.mark.parametrize(
    "source",
    [
        "from longform_evals.scorers.rouge import rouge\n",
        "from longform_evals import scorers\n",
        "from ..scorers import rouge\n",
        "from .. import scorers\n",
        "def later():\n    from longform_evals.scorers import rouge\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import longform_evals.scorers\n",
    ],
)
def test_every_form_of_import_is_seen(source: str) -> None:
    imports = package_imports("longform_evals.text.fake", source)
    problems = layer_violations(imports, exceptions={})
    assert len(problems) == 1 and "may not import layer scorers" in problems[0], problems


def test_a_sibling_import_is_reported() -> None:
    imports = package_imports("longform_evals.solvers.fake", "import longform_evals.judges\n")
    [problem] = layer_violations(imports, exceptions={})
    assert "layers of one rank do not import each other" in problem


def test_downward_and_same_layer_imports_pass() -> None:
    source = "from longform_evals.text import chunk_text\nfrom . import limits\nimport os\n"
    imports = package_imports("longform_evals.solvers.fake", source)
    assert [i.target for i in imports] == ["longform_evals.text", "longform_evals.solvers"]
    assert layer_violations(imports, exceptions={}) == []


def test_an_exception_allows_its_import_and_a_stale_one_is_reported() -> None:
    imports = package_imports("longform_evals.text.fake", "import longform_evals.scorers\n")
    allowed = {("longform_evals.text.fake", "longform_evals.scorers"): "planted"}
    assert layer_violations(imports, exceptions=allowed) == []
    [stale] = layer_violations([], exceptions=allowed)
    assert "matches no forbidden import" in stale


def test_a_module_outside_the_table_is_reported() -> None:
    assert unmapped_modules(["longform_evals.text.tokens", "longform_evals.newpart.x"]) == [
        "longform_evals.newpart.x"
    ]
    imports = package_imports("longform_evals.newpart.x", "import longform_evals.text\n")
    [problem] = layer_violations(imports, exceptions={})
    assert "layer 'newpart' is not in the layer table" in problem


def test_a_doc_table_that_differs_is_reported() -> None:
    doc = "| rank | layer | holds |\n|---|---|---|\n| 0 | `text` | words |\n| 2 | `models` | x |\n"
    assert doc_layers(doc) == {"text": 0, "models": 2}
    problems = table_differences(doc_layers(doc), {"text": 0, "models": 1, "data": 1})
    assert problems == [
        "'data': rank 1 in LAYERS, not in the doc",
        "'models': rank 2 in the doc, 1 in LAYERS",
    ]


def test_a_package_task_without_root_file_is_reported() -> None:
    defined = {"quality": "src/t.py", "qmsum": "src/t.py"}
    problems = task_file_problems({"quality", "qmsum"}, defined, {"tasks/quality.py": ["quality"]})
    assert problems == [
        "package task 'qmsum' has no root file: add tasks/qmsum.py defining @task qmsum"
    ]


def test_a_root_file_without_package_task_is_reported() -> None:
    root = {"tasks/quality.py": ["quality"], "tasks/extra.py": ["extra"]}
    problems = task_file_problems({"quality"}, {"quality": "src/t.py"}, root)
    assert problems == [
        "tasks/extra.py defines @task 'extra', which the package registry does not have "
        "(no longform_evals/extra)"
    ]


def test_an_unregistered_package_task_is_reported() -> None:
    defined = {"quality": "src/t.py", "fresh": "src/new.py"}
    root = {"tasks/quality.py": ["quality"], "tasks/fresh.py": ["fresh"]}
    assert task_file_problems({"quality"}, defined, root) == [
        "package task 'fresh' (src/new.py) is not registered: import it in "
        "src/longform_evals/_registry.py",
        "tasks/fresh.py defines @task 'fresh', which the package registry does not have "
        "(no longform_evals/fresh)",
    ]


# --------------------------------------------------------------------------------------------
# No import circle: no module's top-level imports lead back to it.


def load_time_imports(module: str, source: str, modules: set[str]) -> set[str]:
    """The package modules `module` imports when it loads: its top-level imports (not those
    inside functions, nor those under `if TYPE_CHECKING:`), each `from X import name` counted
    as an import of `X.name` where that is a module."""
    found: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m in modules and m != module}


def import_circle(graph: Mapping[str, set[str]]) -> list[str]:
    """One circle of the import graph (empty when there is none)."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def test_no_module_imports_itself_back_when_it_loads() -> None:
    sources = list(_package_sources())
    modules = {m for m, _, _ in sources}
    graph = {
        m: load_time_imports(m, path.read_text(encoding="utf-8"), modules) for m, path, _ in sources
    }
    circle = import_circle(graph)
    assert not circle, " -> ".join(circle)


def test_an_import_circle_is_found() -> None:
    modules = {"p.a", "p.b", "p.c"}
    graph = {
        "p.a": load_time_imports("p.a", "from p.b import x\n", modules),
        "p.b": load_time_imports("p.b", "import p.c\n", modules),
        "p.c": load_time_imports("p.c", "from p import a\nfrom p.a import y\n", modules),
    }
    assert set(import_circle(graph)) == modules
    graph["p.c"] = load_time_imports("p.c", "def f():\n    from p.a import y\n", modules)
    assert import_circle(graph) == []


# --------------------------------------------------------------------------------------------
# No scorer imports another scorer: shared pieces live in helper modules (no `@scorer`).


def defines_scorer(source: str) -> bool:
    """Whether a module defines an Inspect scorer (a function decorated `@scorer(...)`)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(target, ast.Name) and target.id == "scorer":
                    return True
    return False


def scorer_imports_of_scorers(sources: Mapping[str, str]) -> list[str]:
    """`A imports scorer module B` for every scorer module A of `sources` (dotted name ->
    text) that imports another module of `sources` defining a scorer."""
    scorers = {name for name, text in sources.items() if defines_scorer(text)}
    problems = []
    for name in sorted(scorers):
        for found in package_imports(name, sources[name]):
            if found.target in scorers and found.target != name:
                problems.append(f"{name} imports scorer module {found.target} (line {found.line})")
    return problems


def test_no_scorer_imports_another_scorer() -> None:
    sources = {
        name: path.read_text(encoding="utf-8")
        for name, path, _ in _package_sources()
        if name.startswith(f"{PACKAGE}.scorers.")
    }
    assert scorer_imports_of_scorers(sources) == []


def test_a_scorer_importing_another_scorer_is_reported() -> None:
    sources = {
        "longform_evals.scorers.a": "from inspect_ai.scorer import scorer\n"
        "from longform_evals.scorers.b import helper\n@scorer(metrics=[])\ndef a(): ...\n",
        "longform_evals.scorers.b": "@scorer(metrics=[])\ndef b(): ...\ndef helper(): ...\n",
        "longform_evals.scorers.c": "def helper(): ...\n",
    }
    assert scorer_imports_of_scorers(sources) == [
        "longform_evals.scorers.a imports scorer module longform_evals.scorers.b (line 2)"
    ]
    sources["longform_evals.scorers.a"] = sources["longform_evals.scorers.a"].replace(".b", ".c")
    assert scorer_imports_of_scorers(sources) == []
