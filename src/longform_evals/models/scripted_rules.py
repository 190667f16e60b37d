"""Rules of the scripted test model: how they are written, validated and answered.

See :mod:`longform_evals.models.scripted` for the rule format.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast, get_args

Where: TypeAlias = Literal["last_user", "system", "all"]
"""Which text of the conversation a rule's pattern is searched in."""

Exhausted: TypeAlias = Literal["cycle", "repeat_last", "error"]
"""What a list response does once all of its items have been used."""

ResponseFn: TypeAlias = Callable[[str, int], str]
"""A computed response: ``(searched text, call index of the rule) -> response text``."""

ResponseSpec: TypeAlias = "str | Sequence[str] | ResponseFn"
"""A fixed string, a list of strings used one per call, or a callable."""

RuleSpec: TypeAlias = "ScriptedRule | Mapping[str, Any] | tuple[str, ResponseSpec]"
"""Any accepted way of writing a rule."""

_WHERE_VALUES: tuple[str, ...] = get_args(Where)
_EXHAUSTED_VALUES: tuple[str, ...] = get_args(Exhausted)
_RULE_KEYS = frozenset({"pattern", "response", "where", "exhausted", "top_logprobs"})
_DEFAULT_KEYS = frozenset({"default", "exhausted", "top_logprobs"})

_GROUP_REF = re.compile(r"\\(?:(\d{1,2})|g<(\w+)>)")


class ScriptedModelError(ValueError):
    """A scripted model was set up wrongly or has no response for a prompt."""


@dataclass(frozen=True)
class ScriptedRule:
    """One scripted rule: when ``pattern`` matches, answer with ``response``.

    See the module docstring for the meaning of each field.
    """

    pattern: str
    response: ResponseSpec
    where: Where = "last_user"
    exhausted: Exhausted = "cycle"
    top_logprobs: Mapping[str, float] | None = None


class _CompiledRule:
    """A validated rule with its compiled regex and call counter."""

    def __init__(self, rule: ScriptedRule, label: str) -> None:
        self.label = label
        self.rule = rule
        try:
            self.regex = re.compile(rule.pattern)
        except re.error as ex:
            raise ScriptedModelError(f"{label}: invalid regex {rule.pattern!r}: {ex}") from ex
        if rule.where not in _WHERE_VALUES:
            raise ScriptedModelError(
                f"{label}: 'where' must be one of {list(_WHERE_VALUES)}, got {rule.where!r}"
            )
        if rule.exhausted not in _EXHAUSTED_VALUES:
            raise ScriptedModelError(
                f"{label}: 'exhausted' must be one of {list(_EXHAUSTED_VALUES)}, "
                f"got {rule.exhausted!r}"
            )
        self.fn: ResponseFn | None = None
        self.items: tuple[str, ...] = ()
        response = rule.response
        if isinstance(response, str):
            self.items = (response,)
        elif callable(response):
            self.fn = response
        elif isinstance(response, Sequence) and all(isinstance(r, str) for r in response):
            if len(response) == 0:
                raise ScriptedModelError(f"{label}: 'response' list is empty")
            self.items = tuple(response)
        else:
            raise ScriptedModelError(
                f"{label}: 'response' must be a string, a list of strings or a callable, "
                f"got {type(response).__name__} {response!r} (on the command line, quote "
                "values that YAML reads as another type: -M default_response='\"yes\"')"
            )
        for item in self.items:
            self._check_group_refs(item)
        self.top_logprobs: dict[str, float] | None = None
        if rule.top_logprobs is not None:
            self.top_logprobs = _validate_top_logprobs(rule.top_logprobs, label)
        self.count = 0

    def _check_group_refs(self, template: str) -> None:
        for ref in _GROUP_REF.finditer(template):
            number, name = ref.group(1), ref.group(2)
            key = number if number is not None else name
            defined = (
                int(key) <= self.regex.groups if key.isdigit() else key in self.regex.groupindex
            )
            if not defined:
                raise ScriptedModelError(
                    f"{self.label}: response {template!r} refers to group {key!r}, "
                    f"which pattern {self.rule.pattern!r} does not define"
                )

    def respond(self, text: str, match: re.Match[str], index: int) -> str:
        """Produce the response for this rule's ``index``-th call."""
        if self.fn is not None:
            result = self.fn(text, index)
            if not isinstance(result, str):
                raise ScriptedModelError(
                    f"{self.label}: response callable returned {type(result).__name__}, not str"
                )
            return result
        n = len(self.items)
        if index < n:
            template = self.items[index]
        elif self.rule.exhausted == "cycle":
            template = self.items[index % n]
        elif self.rule.exhausted == "repeat_last":
            template = self.items[-1]
        else:
            raise ScriptedModelError(
                f"{self.label}: all {n} scripted responses have been used "
                f"(call {index + 1}); set exhausted='cycle' or 'repeat_last' to allow more"
            )
        return _expand(template, match)


def _expand(template: str, match: re.Match[str]) -> str:
    """Replace ``\\N`` and ``\\g<name>`` in ``template`` by the groups of ``match``."""

    def repl(ref: re.Match[str]) -> str:
        number, name = ref.group(1), ref.group(2)
        key: int | str = int(number) if number is not None else name
        if isinstance(key, str) and key.isdigit():
            key = int(key)
        return match.group(key) or ""

    return _GROUP_REF.sub(repl, template)


def _validate_top_logprobs(value: object, label: str) -> dict[str, float]:
    if not isinstance(value, Mapping) or not value:
        raise ScriptedModelError(
            f"{label}: 'top_logprobs' must be a non-empty mapping of token to logprob"
        )
    result: dict[str, float] = {}
    for token, logprob in value.items():
        if (
            not isinstance(token, str)
            or isinstance(logprob, bool)
            or not isinstance(logprob, (int, float))
            or not logprob <= 0.0
        ):
            raise ScriptedModelError(
                f"{label}: 'top_logprobs' entries must be token -> logprob <= 0, "
                f"got {token!r}: {logprob!r}"
            )
        result[token] = float(logprob)
    return result


def _rule_from_spec(spec: object, label: str) -> ScriptedRule:
    if isinstance(spec, ScriptedRule):
        return spec
    if isinstance(spec, tuple):
        if len(spec) != 2 or not isinstance(spec[0], str):
            raise ScriptedModelError(f"{label}: a tuple rule must be (pattern, response)")
        return ScriptedRule(pattern=spec[0], response=spec[1])
    if isinstance(spec, Mapping):
        unknown = set(spec) - _RULE_KEYS
        if unknown:
            raise ScriptedModelError(
                f"{label}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_RULE_KEYS)}"
            )
        missing = {"pattern", "response"} - set(spec)
        if missing:
            raise ScriptedModelError(f"{label}: missing key(s) {sorted(missing)}")
        pattern = spec["pattern"]
        if not isinstance(pattern, str):
            raise ScriptedModelError(f"{label}: 'pattern' must be a string")
        return ScriptedRule(
            pattern=pattern,
            response=spec["response"],
            where=spec.get("where", "last_user"),
            exhausted=spec.get("exhausted", "cycle"),
            top_logprobs=spec.get("top_logprobs"),
        )
    raise ScriptedModelError(
        f"{label}: a rule must be a mapping, a ScriptedRule or a (pattern, response) tuple, "
        f"got {type(spec).__name__}"
    )


def _load_rules_source(rules: object) -> object:
    """Turn a rules file path or inline JSON string into parsed JSON; pass others through."""
    if isinstance(rules, Path) or (isinstance(rules, str) and not _looks_like_json(rules)):
        path = Path(rules)
        if not path.is_file():
            raise ScriptedModelError(f"scripted model: rules file not found: {str(path)!r}")
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as ex:
            raise ScriptedModelError(
                f"scripted model: rules file {str(path)!r} is not valid JSON: {ex}"
            ) from ex
    if isinstance(rules, str):
        try:
            return json.loads(rules)
        except json.JSONDecodeError as ex:
            raise ScriptedModelError(
                f"scripted model: inline rules are not valid JSON: {ex}"
            ) from ex
    return rules


def _looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("[", "{")


def _parse_rules(rules: object) -> tuple[list[ScriptedRule], Mapping[str, Any] | None]:
    """Parse any accepted ``rules`` value into rules plus an optional default entry."""
    source = _load_rules_source(rules)
    default_entry: Mapping[str, Any] | None = None
    items: Iterable[object]
    if source is None:
        items = []
    elif isinstance(source, Mapping):
        unknown = set(source) - {"rules", "default"}
        if unknown:
            raise ScriptedModelError(
                f"scripted model: unknown top-level key(s) {sorted(unknown)}; "
                "expected 'rules' and optionally 'default'"
            )
        items = cast(Iterable[object], source.get("rules", []))
        if "default" in source:
            default_entry = {"default": source["default"]}
    elif isinstance(source, Sequence) and not isinstance(source, str):
        items = source
    else:
        raise ScriptedModelError(
            "scripted model: 'rules' must be a list of rules, a {'rules', 'default'} "
            f"mapping, a JSON file path or a JSON string, got {type(source).__name__}"
        )
    parsed: list[ScriptedRule] = []
    for i, item in enumerate(items):
        if isinstance(item, Mapping) and "default" in item:
            unknown = set(item) - _DEFAULT_KEYS
            if unknown:
                raise ScriptedModelError(
                    f"scripted model default entry: unknown key(s) {sorted(unknown)}; "
                    f"allowed: {sorted(_DEFAULT_KEYS)}"
                )
            if default_entry is not None:
                raise ScriptedModelError("scripted model: more than one default response")
            default_entry = item
        else:
            parsed.append(_rule_from_spec(item, f"scripted model rule {i}"))
    return parsed, default_entry
