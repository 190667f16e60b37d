"""Load prompt templates from text files, with optional user overrides.

Layout and lookup
-----------------
A template is named by a *method* (a folder) and a *name* (a file stem):
``load_prompt("hello", "answer")`` reads ``longform_evals/prompts/hello/answer.txt``. A
method's variants are subfolders of its folder, named ``<method>/<variant>``
(``summarize/focused``: the question-focused templates), so a strategy's templates are one
folder.
When ``prompts_dir`` is given, ``<prompts_dir>/<method>/<name>.txt`` is tried first and
used when it exists, so a user folder mirrors the packaged layout and may override any
subset of templates (files it lacks fall back to the packaged ones). There is no other
place looked in: ``<prompts_dir>/<name>.txt`` is *not* consulted. A ``prompts_dir`` that
is not an existing folder is an error (it is almost always a typo).

Template syntax
---------------
``{field}`` is a placeholder; ``{{`` and ``}}`` stand for literal braces. Field names are
simple identifiers (``[A-Za-z_][A-Za-z0-9_]*``): attribute or index access (``{a.b}``,
``{a[0]}``), positional fields (``{}``, ``{0}``), conversions (``{a!r}``) and format specs
(``{a:>10}``) are rejected, as are unbalanced braces, with a :class:`PromptError` naming
the file, line and column. One trailing newline at the end of the file is dropped.

Rendering
---------
:meth:`PromptTemplate.render` requires a value for every field and, unless
``allow_extra=True``, rejects values for fields the template does not have (which catches
typos in either the template or the code). :meth:`PromptTemplate.fill` fills some fields
ahead of time (a sample's question) and returns a template needing only the rest.

Overrides and packaged fields
-----------------------------
When a user override replaces a packaged template, the two must use the same fields: the
code that renders the template supplies exactly the packaged fields. A mismatch is reported
by :func:`load_prompt`, naming both files and the fields that differ. ``required_fields``
adds an explicit check for templates of any origin.

Parsed templates are cached by file path, modification time and size.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

__all__ = ["PromptError", "PromptTemplate", "load_prompt"]

_PACKAGE = "longform_evals.prompts"
_SUFFIX = ".txt"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMPONENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_BRACES = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|\{|\}")
_RESERVED = frozenset({"allow_extra"})


class PromptError(ValueError):
    """A prompt template could not be found, parsed or rendered."""


@dataclass(frozen=True)
class _Field:
    name: str


@dataclass(frozen=True)
class PromptTemplate:
    """A parsed prompt template.

    Create one with :func:`load_prompt` or :meth:`from_text`.
    """

    text: str
    """The template text as written (one trailing newline removed)."""
    source: str
    """Where the text came from: a file path, or a label for templates made from strings."""
    fields: frozenset[str]
    """The placeholder names the template uses."""
    _parts: tuple[str | _Field, ...] = field(repr=False, compare=False)

    @classmethod
    def from_text(cls, text: str, source: str = "<string>") -> PromptTemplate:
        """Parse ``text`` as a template.

        Args:
            text: The template text (see the module docstring for the syntax).
            source: A label for error messages, normally the file path.

        Raises:
            PromptError: If the text is malformed; the message names ``source``.
        """
        parts = _parse(text, source)
        names = frozenset(p.name for p in parts if isinstance(p, _Field))
        return cls(text=text, source=source, fields=names, _parts=parts)

    def render(
        self,
        given: Mapping[str, object] | None = None,
        /,
        *,
        allow_extra: bool = False,
        **values: object,
    ) -> str:
        """Fill the placeholders with ``values`` (each converted with ``str``).

        Args:
            given: Values as a mapping, for callers that build them up (merged with
                ``values``).
            allow_extra: Accept values for fields the template does not use.
            **values: One value per field.

        Raises:
            PromptError: If a field has no value, or (unless ``allow_extra``) a value has
                no field; the message names the template's source and the fields.
        """
        values = {**(given or {}), **values}
        missing = self.fields - values.keys()
        extra = set() if allow_extra else values.keys() - self.fields
        if missing or extra:
            problems = []
            if missing:
                problems.append(f"no value for field(s) {_names(missing)}")
            if extra:
                problems.append(
                    f"value(s) given for {_names(extra)}, which the template does not use "
                    f"(its fields: {_names(self.fields) or 'none'})"
                )
            raise PromptError(f"cannot render prompt {self.source}: {'; '.join(problems)}")
        return "".join(p if isinstance(p, str) else str(values[p.name]) for p in self._parts)

    def fill(self, **values: object) -> PromptTemplate:
        """Fill some placeholders now and leave the others for :meth:`render`.

        The result keeps ``source``; its ``text`` is the template with those fields replaced
        (braces in the values doubled, so it still parses to the same template).

        Args:
            **values: Values (each converted with ``str``) for some of the fields.

        Raises:
            PromptError: If a value has no field in the template.
        """
        extra = values.keys() - self.fields
        if extra:
            raise PromptError(
                f"cannot fill prompt {self.source}: the template has no field(s) "
                f"{_names(extra)} (its fields: {_names(self.fields) or 'none'})"
            )
        parts: list[str | _Field] = []
        for part in self._parts:
            piece = (
                str(values[part.name]) if isinstance(part, _Field) and part.name in values else part
            )
            if isinstance(piece, str) and parts and isinstance(parts[-1], str):
                parts[-1] += piece
            else:
                parts.append(piece)
        text = "".join(_escape(p) if isinstance(p, str) else "{" + p.name + "}" for p in parts)
        return PromptTemplate(
            text=text, source=self.source, fields=self.fields - values.keys(), _parts=tuple(parts)
        )


def _escape(literal: str) -> str:
    return literal.replace("{", "{{").replace("}", "}}")


def _names(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))


def _position(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line}, column {column}"


def _parse(text: str, source: str) -> tuple[str | _Field, ...]:
    parts: list[str | _Field] = []
    literal: list[str] = []
    last = 0
    for match in _BRACES.finditer(text):
        literal.append(text[last : match.start()])
        last = match.end()
        token = match.group(0)
        if token == "{{":
            literal.append("{")
        elif token == "}}":
            literal.append("}")
        elif token == "{":
            raise PromptError(
                f"malformed prompt template {source}: unmatched '{{' at "
                f"{_position(text, match.start())} (write '{{{{' for a literal brace)"
            )
        elif token == "}":
            raise PromptError(
                f"malformed prompt template {source}: single '}}' at "
                f"{_position(text, match.start())} (write '}}}}' for a literal brace)"
            )
        else:
            name = match.group(1)
            if not _IDENTIFIER.fullmatch(name):
                raise PromptError(
                    f"malformed prompt template {source}: placeholder {token!r} at "
                    f"{_position(text, match.start())} is not a simple field name; only "
                    "{name} placeholders are allowed (no attribute or index access, "
                    "positional fields, conversions or format specs; write '{{' and '}}' "
                    "for literal braces)"
                )
            if name in _RESERVED:
                raise PromptError(
                    f"malformed prompt template {source}: field name {name!r} at "
                    f"{_position(text, match.start())} is reserved"
                )
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(_Field(name))
    literal.append(text[last:])
    tail = "".join(literal)
    if tail:
        parts.append(tail)
    return tuple(parts)


@lru_cache(maxsize=256)
def _load_file(path: str, mtime_ns: int, size: int) -> PromptTemplate:
    """Read and parse a template file; the stat values only key the cache."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as ex:
        raise PromptError(f"cannot read prompt template {path}: {ex}") from ex
    return PromptTemplate.from_text(_drop_final_newline(text), source=path)


def _drop_final_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text


def _read(path: Path) -> PromptTemplate:
    stat = path.stat()
    return _load_file(str(path), stat.st_mtime_ns, stat.st_size)


def _check_component(kind: str, value: str, parts: int = 1) -> None:
    """Raise unless ``value`` is at most ``parts`` plain file-name components joined by '/'."""
    pieces = value.split("/") if isinstance(value, str) else [value]
    if len(pieces) > parts or not all(
        isinstance(piece, str) and _COMPONENT.fullmatch(piece) and ".." not in piece
        for piece in pieces
    ):
        separators = "one '/' before a variant" if parts > 1 else "no path separators"
        raise PromptError(
            f"invalid prompt {kind} {value!r}: use letters, digits, '_', '-' or '.' ({separators})"
        )


def _packaged(method: str, name: str) -> tuple[str, PromptTemplate | None]:
    """The packaged template's location and the template (None when it does not exist)."""
    resource = resources.files(_PACKAGE).joinpath(*method.split("/")).joinpath(name + _SUFFIX)
    if isinstance(resource, Path):
        return str(resource), _read(resource) if resource.is_file() else None
    # A non-filesystem install (e.g. a zip): no modification time to key a cache on.
    if not resource.is_file():
        return str(resource), None
    text = _drop_final_newline(resource.read_text(encoding="utf-8"))
    return str(resource), PromptTemplate.from_text(text, source=str(resource))


def load_prompt(
    method: str,
    name: str,
    prompts_dir: str | Path | None = None,
    *,
    required_fields: Iterable[str] | None = None,
) -> PromptTemplate:
    """Load the template ``<method>/<name>.txt``.

    Args:
        method: The template's folder, e.g. ``"hello"``, or a variant's subfolder of it,
            e.g. ``"summarize/focused"``.
        name: The template's file stem, e.g. ``"answer"``.
        prompts_dir: A user folder tried first (``<prompts_dir>/<method>/<name>.txt``);
            ``None`` or ``""`` uses the packaged templates only.
        required_fields: Fields the template must use; checked at load time.

    Returns:
        The parsed template; its ``source`` is the path of the file used.

    Raises:
        PromptError: If ``method`` is not a plain file-name component (or two, joined by
            '/'), or ``name`` not one, if
            ``prompts_dir`` is not a folder, if no file is found (the message lists every
            path tried), if the file is malformed, if a user override does not use exactly
            the fields of the packaged template it replaces, or if a required field is
            missing.
    """
    _check_component("method", method, parts=2)
    _check_component("name", name)
    tried: list[str] = []
    template: PromptTemplate | None = None
    if prompts_dir is not None and str(prompts_dir) != "":
        folder = Path(prompts_dir).expanduser()
        if not folder.is_dir():
            raise PromptError(
                f"prompts_dir {str(folder)!r} is not a folder (looking for prompt {method}/{name})"
            )
        candidate = folder.joinpath(*method.split("/"), name + _SUFFIX)
        tried.append(str(candidate))
        if candidate.is_file():
            template = _read(candidate)
    packaged_source, packaged = _packaged(method, name)
    tried.append(packaged_source)
    if template is None:
        template = packaged
    elif packaged is not None and template.fields != packaged.fields:
        lacking = packaged.fields - template.fields
        surplus = template.fields - packaged.fields
        problems = []
        if lacking:
            problems.append(f"lacks field(s) {_names(lacking)}")
        if surplus:
            problems.append(f"uses field(s) {_names(surplus)} that are never supplied")
        raise PromptError(
            f"prompt override {template.source} {' and '.join(problems)}; it must use the "
            f"same fields as the packaged template {packaged.source} "
            f"({_names(packaged.fields) or 'none'})"
        )
    if template is None:
        raise PromptError(f"prompt {method}/{name} not found; tried: {', '.join(tried)}")
    if required_fields is not None:
        absent = set(required_fields) - template.fields
        if absent:
            raise PromptError(
                f"prompt template {template.source} lacks required field(s) {_names(absent)}"
            )
    return template
