"""Re-scoring a log with `inspect score LOG` (no `--scorer`).

An eval log records each scorer by its name without the package prefix (`booookscore`, not
`longform_evals/booookscore`), and `inspect score` looks that name up as it stands, which
finds only Inspect's own scorers. So each scorer of the package is also registered under
the name the log records, unless Inspect already has a scorer of that name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from inspect_ai.scorer import Scorer

from longform_evals.inspect_private import (
    RegistryInfo,
    registry_add,
    registry_has,
    registry_info,
    registry_unqualified_name,
)


def register_log_names(factories: Iterable[Callable[..., Scorer]]) -> None:
    """Register every scorer factory also under the unprefixed name a log records."""
    for factory in factories:
        info = registry_info(factory)
        name = registry_unqualified_name(info)
        if name != info.name and not registry_has("scorer", name):
            registry_add(
                _same_factory(factory),
                RegistryInfo(type="scorer", name=name, metadata=info.metadata),
            )


def _same_factory(factory: Callable[..., Scorer]) -> Callable[..., Scorer]:
    # A separate object: registering tags it with the unprefixed name, and the factory
    # keeps its own (prefixed) registry info.
    @functools.wraps(factory)
    def same(*args: Any, **kwargs: Any) -> Scorer:
        return factory(*args, **kwargs)

    return same
