"""Every solver, scorer and metric the package registers with Inspect is named in a test.

Inspect's evaluation linter asks that a test mentions each registered solver; the suite holds
itself to that for scorers and metrics too. The names are read from the source (functions under
`@solver`, `@scorer` or `@metric`, at any depth), and each must appear as a word in some test
file other than this one, so a new component without a test fails here, naming it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "longform_evals"
TESTS = Path(__file__).resolve().parent
KINDS = ("solver", "scorer", "metric")


def _kind(decorator: ast.expr) -> str | None:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
    return name if name in KINDS else None


def _registered_name(node: ast.FunctionDef, decorator: ast.expr) -> str:
    """The function's name, or the `name=` the decorator gives it."""
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value).split("/")[-1]
    return node.name


def registered_components(source: str) -> dict[str, str]:
    """Name -> kind of every solver, scorer and metric `source` defines."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                kind = _kind(decorator)
                if kind:
                    found[_registered_name(node, decorator)] = kind
    return found


def _package_components() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        for name, kind in registered_components(path.read_text(encoding="utf-8")).items():
            found[name] = f"{kind} ({path.relative_to(SRC.parent)})"
    return found


def test_the_reader_finds_decorated_functions() -> None:
    source = (
        "@solver\ndef a(): ...\n"
        "@scorer(metrics=[])\ndef b(): ...\n"
        "@metric(name='pkg/c_name')\ndef c(): ...\n"
        "def outer():\n    @inspect_ai.solver.solver\n    def d(): ...\n"
        "@task\ndef e(): ...\n"
    )
    assert registered_components(source) == {
        "a": "solver",
        "b": "scorer",
        "c_name": "metric",
        "d": "solver",
    }


def test_every_registered_component_is_named_in_a_test() -> None:
    components = _package_components()
    assert len(components) > 30, components
    me = Path(__file__).resolve()
    texts = [p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py") if p.resolve() != me]
    missing = [
        f"{name}: {where}"
        for name, where in sorted(components.items())
        if not any(re.search(rf"\b{re.escape(name)}\b", text) for text in texts)
    ]
    assert not missing, "registered but named in no test:\n" + "\n".join(missing)
