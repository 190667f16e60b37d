"""Whether a judge's settings reached its provider, read from the request Inspect recorded.

A provider may quietly send less than it was given: Inspect's `openai` provider, with
`responses_api=false`, takes a model name it does not know for an OpenAI reasoning model and
sends no temperature, so a judge asked for temperature 0 samples at the server's default. The
call path (:func:`~longform_evals.models.calls.generate`) hands every judge call's output to
:func:`check_judge_request`, which finds the call's `ModelEvent` in the sample's transcript
(by the answer's message id, so concurrent calls cannot be mixed up) and checks its
``call.request`` with :func:`~longform_evals.models.request_settings.missed_settings`.

Each judge model (name and `-M` arguments) and settings is checked once per process, on its
first call with a request record; a failed check fails every later call of it too. Inspect
keeps the record of only the first 5 calls per model and sample (the same model may have
summarized before it judges), so until the check is made the judge's calls run
:func:`watched`, which keeps theirs. Calls without a record of the settings are not checked:
a cache hit, a provider that records the messages alone (Inspect's `mockllm/`) or nothing, or
a run logged with `log_model_api=False`.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator

from inspect_ai.event import Event, ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import GenerateConfig, Model, ModelOutput

from longform_evals.inspect_private import model_calls_kept
from longform_evals.models.announce import announce
from longform_evals.models.judge_errors import settings_error
from longform_evals.models.request_settings import MissedSetting, missed_settings

__all__ = ["check_judge_request", "recorded_event", "watched"]

_LOCK = threading.Lock()
_VERDICTS: dict[tuple[str, ...], list[MissedSetting]] = {}
"""What each checked (model, settings) missed; an empty list when it sent them all."""


@contextlib.contextmanager
def watched(model: Model, config: GenerateConfig) -> Iterator[None]:
    """Around a judge's call: keep its request record while its model and settings are not
    checked yet (module docstring)."""
    with _LOCK:
        checked = _key(model, config) in _VERDICTS
    with contextlib.nullcontext() if checked else model_calls_kept():
        yield


def check_judge_request(model: Model, config: GenerateConfig, output: ModelOutput) -> None:
    """Check, once per judge model and settings, that the request behind `output` carried
    `config`'s temperature, token cap and request for log-probabilities.

    Raises:
        JudgeSettingsError: If the request left one out (module docstring), naming the judge,
            what was asked, what was sent, and the fix.
    """
    key = _key(model, config)
    with _LOCK:
        missed = _VERDICTS.get(key)
    if missed is None:
        event = recorded_event(output)
        if event is None or event.call is None or event.cache == "read":
            return  # nothing to read: a later call of this judge is checked
        missed = missed_settings(event.call.request, config)
        with _LOCK:
            _VERDICTS[key] = missed
    if missed and not _reasoning_model_without_temperature(model, missed):
        raise settings_error(model, missed)


REASONING_MODELS = re.compile(r"^(openai|azure|openai-api/[^/]+)/(o\d+|gpt-5)([-.]|$)")
"""Models of OpenAI's reasoning families by name, which take no temperature at all."""


def _reasoning_model_without_temperature(model: Model, missed: list[MissedSetting]) -> bool:
    """A model of OpenAI's reasoning families (o1, o3, gpt-5...), named as OpenAI names them,
    which sent all but the temperature: its API takes none, so its verdicts are sampled. That
    is said once, and the run goes on; the same drop for a name Inspect merely does not know
    (a model on a server) stops the run."""
    if [m.setting for m in missed] != ["temperature"] or not REASONING_MODELS.match(str(model)):
        return False
    announce(
        ("reasoning judge", str(model)),
        f"the judge {model} is a reasoning model, whose API takes no temperature: its "
        "verdicts are sampled, so two runs of the same judge may differ a little. Compare "
        "models under it in one run, or pick a judge that takes temperature 0.",
    )
    return True


def recorded_event(output: ModelOutput) -> ModelEvent | None:
    """The `ModelEvent` Inspect recorded for the call that returned `output`, in the current
    transcript (None when there is none, as for a model that is not an Inspect model)."""
    message_id = output.choices[0].message.id if output.choices else None
    if message_id is None:
        return None

    def made_it(event: Event) -> bool:
        return (
            isinstance(event, ModelEvent)
            and bool(event.output.choices)
            and event.output.choices[0].message.id == message_id
        )

    try:
        found = transcript().history.find_last(made_it)
    except RuntimeError:  # Inspect's "history unavailable": evicted and not kept
        return None
    return found if isinstance(found, ModelEvent) else None


def _key(model: Model, config: GenerateConfig) -> tuple[str, ...]:
    # Two models under one name with other `-M` arguments may send other requests.
    args = json.dumps(getattr(model, "model_args", None), sort_keys=True, default=repr)
    settings = (config.temperature, config.max_tokens, bool(config.logprobs))
    return (str(model), args, *map(str, settings))
