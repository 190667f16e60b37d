"""A coherence judge fitted on people's labels: probe answers and text signals, weighed together.

The probe judge (`probe.py`) turns each yes/no probe into a verdict with a threshold
calibrated on planted errors, and flags a sentence when any probe fires. On people's labels
that rule fails: readers' confusions are rarely the clean planted kinds, and some probes fire
on nearly every sentence of a real summary. This judge asks the same probes, computes the cheap
text signals of `longform_evals.analysis.coherence_features` (unintroduced names, near-repeats,
jumps of topic, position, length), and combines them in a logistic regression fitted with
scikit-learn on BooookScore's human span annotations
(`benchmarks/coherence_human_fit.py --write`, cross-validated by book). The file it writes,
`judges/calibration/coherence_fitted_<model>.json`, holds everything the judge needs: the
probes, the feature order, the standardisation, the weights, the threshold and the
cross-validated figures, so what the judge does can be read and checked in one place.

    P(confusion) = sigmoid(intercept + sum_k weight_k * (x_k - mean_k) / scale_k)

A sentence is flagged when P(confusion) reaches the threshold. Its type is the error type of
the feature that pushed it up most (a probe's own type; for a text signal the type the file
gives it), so the scorer's per-type rates stay meaningful. A sentence is read only when every
probe asked about it gave a yes/no answer, as in probe mode.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from longform_evals.analysis.coherence_features import FEATURES, sentence_features
from longform_evals.judges.calibration_files import read_calibration
from longform_evals.judges.coherence.paper import SentenceVerdict
from longform_evals.judges.coherence.probe import (
    PROBE_BY_NAME,
    PROBE_TEMPLATES,
    PROBES,
    Prober,
    ProbeSettings,
    ProbeThreshold,
    probe_signal,
)
from longform_evals.models.fan_out import fan_out

KIND = "coherence_fitted"


@dataclass(frozen=True)
class FittedCoherence:
    """A fitted logistic model over probe signals (`probe:<name>`) and text signals."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    threshold: float
    types: dict[str, str]
    source: str
    probe_template: str = "probe_unfenced"  # the probe prompt its weights were fitted on

    @property
    def probes(self) -> tuple[str, ...]:
        return tuple(f.split(":", 1)[1] for f in self.features if f.startswith("probe:"))

    def contributions(self, row: Sequence[float]) -> list[float]:
        return [
            w * (x - m) / s
            for w, x, m, s in zip(self.weights, row, self.mean, self.scale, strict=True)
        ]

    def probability(self, row: Sequence[float]) -> float:
        z = self.intercept + sum(self.contributions(row))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def parse_fitted(data: Any, source: str) -> FittedCoherence:
    """Check and read a fitted file; a malformed one is refused naming what is wrong."""
    try:
        features = tuple(str(f) for f in data["features"])
        columns = {k: tuple(float(v) for v in data[k]) for k in ("mean", "scale", "weights")}
        model = FittedCoherence(
            features=features,
            mean=columns["mean"],
            scale=columns["scale"],
            weights=columns["weights"],
            intercept=float(data["intercept"]),
            threshold=float(data["threshold"]),
            types={str(k): str(v) for k, v in (data.get("types") or {}).items()},
            source=source,
            probe_template=str(data.get("probe_template", "probe_unfenced")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"fitted coherence file {source} is malformed: {exc!r}") from exc
    for name, values in columns.items():
        if len(values) != len(features):
            raise ValueError(
                f"fitted coherence file {source}: {len(values)} {name} for {len(features)} features"
            )
    if model.probe_template not in PROBE_TEMPLATES:
        raise ValueError(
            f"fitted coherence file {source}: unknown probe_template {model.probe_template!r}"
        )
    if any(s <= 0 for s in model.scale):
        raise ValueError(f"fitted coherence file {source}: every scale must be positive")
    known = {*FEATURES, *(f"probe:{name}" for name in PROBE_BY_NAME)}
    unknown = [f for f in features if f not in known]
    if unknown:
        raise ValueError(f"fitted coherence file {source}: unknown features {unknown}")
    return model


@lru_cache(maxsize=16)
def load_fitted(model: str, path: str | None = None) -> FittedCoherence | None:
    """The fitted judge of `model` (or of the file `path`); None when none is packaged."""
    found = read_calibration(KIND, model, path)
    return None if found is None else parse_fitted(*found)


def _type_of(feature: str, fitted: FittedCoherence) -> str | None:
    if feature.startswith("probe:"):
        return PROBE_BY_NAME[feature.split(":", 1)[1]].error_type
    return fitted.types.get(feature)


def fitted_verdict(
    index: int,
    sentence: str,
    p_yes: dict[str, float | None],
    text_row: Sequence[float],
    fitted: FittedCoherence,
) -> SentenceVerdict:
    """The verdict on one sentence from its probe answers and text signals."""
    verdict = SentenceVerdict(index=index, sentence=sentence, attempts=len(p_yes))
    unread = [name for name, p in p_yes.items() if p is None]
    if unread:
        verdict.problems.append(f"unread: probes {', '.join(unread)} gave no yes/no answer")
        return verdict
    # A probe not asked of the first sentence (it has no earlier text) signals nothing.
    signals = {
        name: probe_signal(p, PROBE_BY_NAME[name]) for name, p in p_yes.items() if p is not None
    }
    text = dict(zip(FEATURES, text_row, strict=True))
    row = [
        signals.get(f.split(":", 1)[1], 0.0) if f.startswith("probe:") else text[f]
        for f in fitted.features
    ]
    verdict.parsed = True
    verdict.p_confusion = fitted.probability(row)
    verdict.type_probabilities = {PROBE_BY_NAME[name].error_type: s for name, s in signals.items()}
    verdict.confused = verdict.p_confusion >= fitted.threshold
    if verdict.confused:
        contributions = fitted.contributions(row)
        ranked = sorted(range(len(row)), key=lambda k: -contributions[k])
        pushing = [k for k in ranked if contributions[k] > 0]
        typed = [t for k in pushing if (t := _type_of(fitted.features[k], fitted))]
        verdict.types = typed[:1]
    return verdict


def fitted_asked(fitted: FittedCoherence) -> dict[str, ProbeThreshold]:
    """The probes the fitted judge asks (those its weights use), as `probes_at` takes them."""
    return {p.name: ProbeThreshold(0.5, enabled=p.name in fitted.probes) for p in PROBES}


async def fitted_summary(
    model: Any, sentences: list[str], settings: ProbeSettings, fitted: FittedCoherence
) -> tuple[list[SentenceVerdict], int]:
    """Fitted-mode verdicts for every sentence of a summary, and the number of calls.

    The probes are asked with the prompt the weights were fitted on, whatever `settings` says.
    """
    prober = Prober(model, replace(settings, template=fitted.probe_template), fitted_asked(fitted))
    results = await fan_out(*[prober.sentence(sentences, i) for i in range(len(sentences))])
    text = sentence_features(sentences)
    verdicts = [
        fitted_verdict(i, sentences[i], p_yes, text[i], fitted)
        for i, (p_yes, _) in enumerate(results)
    ]
    return verdicts, sum(calls for _, calls in results)
