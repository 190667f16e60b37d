# inspect-evals-lint: ignore-file[IECQ001] -- no public API for these; the docstring says why
"""The one place the package reaches into Inspect's private modules.

Inspect has no public API for these; each is imported here only, and
``tests/test_inspect_private.py`` fails on an Inspect release that moves or changes one, so an
upgrade breaks a test rather than a user's run.

* ``PrerequisiteError``: Inspect's command line prints such an error's message alone, without
  a traceback (its exception hook); the tasks raise their argument errors as one
  (:func:`readable_error`).
* The registry helpers: rescoring re-registers a scorer under a new name, and lm-eval names a
  scorer's metrics as Inspect does (without its package prefix).
* ``init_model_roles``: `longform check --live` binds the judge as the grader role outside an
  eval, as Inspect does inside one.
* A transcript's ``_log_model_api``: Inspect keeps the request record (``ModelEvent.call``) of
  only the first 5 calls per model and sample unless told otherwise; the check that a judge's
  settings reached its provider reads one, so :func:`model_calls_kept` keeps them a while.
* ``Model._set_role``: a judge named by the user (``model="..."``) is labelled with its role
  (:func:`with_role`), as Inspect labels a model bound to a role, so that its calls are told
  apart from the evaluated model's in the log (recovering a killed run takes a sample's output
  from the last call of the role its first call had).
* ``sample_active``: the log a running sample writes to, so that per-document work shared
  by the samples of one run is not shared by the runs (cells) of one process
  (:func:`active_run`).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from copy import copy

from inspect_ai._util.error import PrerequisiteError
from inspect_ai._util.registry import (
    RegistryInfo,
    registry_add,
    registry_has,
    registry_info,
    registry_unqualified_name,
)
from inspect_ai.log import Transcript, transcript
from inspect_ai.log._samples import sample_active
from inspect_ai.model import Model
from inspect_ai.model._model import init_model_roles

__all__ = [
    "PrerequisiteError",
    "RegistryInfo",
    "init_model_roles",
    "model_calls_kept",
    "readable_error",
    "registry_add",
    "registry_has",
    "registry_info",
    "registry_unqualified_name",
    "with_role",
]


_READABLE: dict[type[Exception], type[Exception]] = {}


def _readable(cls: type[Exception]) -> type[Exception]:
    """One subclass of ``cls`` and ``PrerequisiteError`` per class, made on first use."""
    if cls not in _READABLE:
        bases = (cls, PrerequisiteError)
        _READABLE[cls] = type(cls.__name__, bases, {"__module__": cls.__module__})
    return _READABLE[cls]


def readable_error(exc: Exception, message: str) -> Exception:
    """A copy of ``exc`` of a subclass of its own class (a ``ValueError`` stays one) and of
    Inspect's ``PrerequisiteError``, whose ``message`` is ``message``: Inspect's command line
    prints that message and no traceback. The copy keeps ``exc``'s arguments and attributes
    (its ``__init__`` is not run again).

    With Inspect's display set to ``none`` the hook prints nothing at all, so there ``exc`` is
    returned as it is: its traceback, which ends with the message, is better than silence."""
    if _display_silenced():
        return exc
    cls = _readable(type(exc))
    copy = cls.__new__(cls, *exc.args)
    copy.args = exc.args
    copy.__dict__.update(exc.__dict__)
    copy.message = message  # type: ignore[attr-defined]
    return copy


def _display_silenced() -> bool:
    from inspect_ai.util import display_type

    try:
        return display_type() == "none"
    except Exception:  # no display configured yet: Inspect's default prints
        return False


_KEEPING: weakref.WeakKeyDictionary[Transcript, list[bool | None]] = weakref.WeakKeyDictionary()
"""Per transcript, its own setting, once for every open :func:`model_calls_kept`."""


@contextlib.contextmanager
def model_calls_kept() -> Iterator[None]:
    """While open, the current transcript keeps the request record of every model call that
    completes, not only the first 5 per model (concurrent uses nest). A transcript told to
    keep none (``log_model_api=False``) is left so."""
    current = transcript()
    held = _KEEPING.setdefault(current, [])
    held.append(current._log_model_api)
    if current._log_model_api is None:
        current._log_model_api = True
    try:
        yield
    finally:
        own = held.pop()
        if not held:
            current._log_model_api = own


def with_role(model: Model, role: str) -> Model:
    """A shallow copy of ``model`` whose calls the log records under ``role`` (as Inspect's own
    ``get_model(role=..., default=model)`` makes one for an unbound role)."""
    if model.role == role:
        return model
    labelled = copy(model)
    labelled._set_role(role)
    return labelled


def active_run() -> str:
    """The log location of the eval the running sample belongs to ("" outside a sample): one
    value per run of a task on a model, the same for every sample of it."""
    active = sample_active()
    return str(active.log_location) if active is not None else ""
