"""Summary-level figures: Kendall's tau between people's and the judge's scores (over
summaries, within groups, over systems), and the systems' means."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from longform_evals.analysis.judge_agreement.bootstrap import Spec, nan_ratio
from longform_evals.analysis.judge_agreement.records import FloatArray, IntArray, Replicates

# Kendall's tau over more points than this is resampled one replicate at a time with scipy,
# instead of through dense point-by-point sign matrices (their memory grows with the square).
DENSE_TAU_LIMIT = 2000

# --- Kendall's tau -------------------------------------------------------------------------


def tau_b(
    x: FloatArray, y: FloatArray, points: str = "scored summaries", what: str = "scores"
) -> tuple[float, str | None]:
    """scipy's tau-b, or NaN with the reason when it is undefined."""
    if len(x) < 2:
        return math.nan, f"fewer than two {points}: tau undefined"
    if np.all(x == x[0]):
        return math.nan, f"the human {what} are all equal: tau undefined"
    if np.all(y == y[0]):
        return math.nan, f"the judge {what} are all equal: tau undefined"
    from scipy.stats import kendalltau

    return float(kendalltau(x, y, variant="b").statistic), None


def weighted_tau_b(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Tau-b of each replicate, where point i appears ``w[r, i]`` times (NaN if undefined).

    With the copies as ties: concordant minus discordant pairs = w'Cw / 2 with C the
    product of the sign matrices; pairs tied in x = (w'T_x w - sum w) / 2, with T_x the
    equality matrix including its diagonal (copies of one point tie with each other).
    """
    if len(x) > DENSE_TAU_LIMIT:
        return looped_tau_b(x, y, w)
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    total = w.sum(axis=1)
    pairs = (total * total - total) / 2

    def quad(matrix: FloatArray) -> FloatArray:
        return np.asarray(np.einsum("ri,ri->r", w @ matrix, w), dtype=np.float64)

    score = quad(sx * sy) / 2
    tied_x = (quad((sx == 0).astype(np.float64)) - total) / 2
    tied_y = (quad((sy == 0).astype(np.float64)) - total) / 2
    return nan_ratio(score, np.sqrt((pairs - tied_x) * (pairs - tied_y)))


def looped_tau_b(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    out = np.full(w.shape[0], np.nan)
    counts = w.astype(np.intp)
    for r in range(w.shape[0]):
        out[r] = tau_b(np.repeat(x, counts[r]), np.repeat(y, counts[r]))[0]
    return out


def summary_level_specs(
    rows: Sequence[tuple[int, str | None, str, float, float]], n_clusters: int
) -> tuple[list[Spec], dict[str, tuple[Spec, Spec]], bool | None]:
    """Kendall taus over summaries, within groups and over systems; the systems' means."""
    cluster = np.array([r[0] for r in rows], dtype=np.intp)
    human = np.array([r[3] for r in rows], dtype=np.float64)
    judge = np.array([r[4] for r in rows], dtype=np.float64)
    specs = [
        _over_summaries_spec(human, judge, cluster),
        _within_groups_spec([r[2] for r in rows], human, judge, cluster),
    ]
    means = _SystemMeans.of([r[1] for r in rows], human, judge, cluster)
    systems = means.mean_specs()
    tau_spec, same_order = means.tau_spec()
    specs.append(tau_spec)
    return specs, systems, same_order


def _over_summaries_spec(human: FloatArray, judge: FloatArray, cluster: IntArray) -> Spec:
    """Kendall's tau over every scored summary."""
    value, note = tau_b(human, judge)
    return Spec(
        "kendall_tau_summaries",
        value,
        len(human),
        note,
        None if note else (lambda w: weighted_tau_b(human, judge, w[:, cluster])),
    )


def _within_groups_spec(
    group_of: Sequence[str], human: FloatArray, judge: FloatArray, cluster: IntArray
) -> Spec:
    """The mean of the groups' taus over the groups where tau is defined (in the data, then in
    each replicate: a group drawn once or with equal scores drops out of that replicate)."""
    group_index: dict[str, list[int]] = {}
    for i, group in enumerate(group_of):
        group_index.setdefault(group, []).append(i)
    groups = [np.array(group_index[g], dtype=np.intp) for g in sorted(group_index)]
    taus = [tau_b(human[g], judge[g])[0] for g in groups]
    defined = [t for t in taus if not math.isnan(t)]
    if defined:
        group_value = float(np.mean(defined))
        group_note = None
    else:
        group_value = math.nan
        group_note = "no group has two summaries with differing scores"

    def group_reps(w: FloatArray) -> FloatArray:
        per_group = np.stack(
            [weighted_tau_b(human[g], judge[g], w[:, cluster[g]]) for g in groups], axis=1
        )
        usable = ~np.isnan(per_group)
        return nan_ratio(np.where(usable, per_group, 0.0).sum(axis=1), usable.sum(axis=1))

    return Spec(
        "kendall_tau_within_groups",
        group_value,
        len(defined),
        group_note,
        None if group_note else group_reps,
    )


@dataclass(frozen=True)
class _SystemMeans:
    """Each system's mean over its scored summaries, by people and by the judge."""

    names: list[str]
    member: FloatArray
    """Summary by system: 1 where the summary is the system's."""
    cluster: IntArray
    human: FloatArray
    judge: FloatArray
    n_per: FloatArray
    mean_h: FloatArray
    mean_j: FloatArray

    @classmethod
    def of(
        cls,
        system_of: Sequence[str | None],
        human: FloatArray,
        judge: FloatArray,
        cluster: IntArray,
    ) -> _SystemMeans:
        names = sorted({s for s in system_of if s is not None})
        member = np.array(
            [[s == name for name in names] for s in system_of], dtype=np.float64
        ).reshape(len(system_of), len(names))
        n_per = member.sum(axis=0)
        mean_h = member.T @ human / np.maximum(n_per, 1)
        mean_j = member.T @ judge / np.maximum(n_per, 1)
        return cls(names, member, cluster, human, judge, n_per, mean_h, mean_j)

    def means_reps(self, w: FloatArray, scores: FloatArray) -> FloatArray:
        """Each system's weighted mean score per replicate; NaN for a system not drawn."""
        wr = w[:, self.cluster]
        return nan_ratio(wr @ (self.member * scores[:, None]), wr @ self.member)

    def one_system(self, k: int, scores: FloatArray) -> Replicates:
        def reps(w: FloatArray) -> FloatArray:
            return self.means_reps(w, scores)[:, k]

        return reps

    def mean_specs(self) -> dict[str, tuple[Spec, Spec]]:
        """Per system: its people's mean and its judge's mean."""
        systems: dict[str, tuple[Spec, Spec]] = {}
        for k, name in enumerate(self.names):
            n_k = int(self.n_per[k])
            systems[name] = (
                Spec(name, float(self.mean_h[k]), n_k, None, self.one_system(k, self.human)),
                Spec(name, float(self.mean_j[k]), n_k, None, self.one_system(k, self.judge)),
            )
        return systems

    def tau_spec(self) -> tuple[Spec, bool | None]:
        """Kendall's tau over the systems' means, and whether the judge orders the systems as
        people do (None where that is not measurable)."""
        names, mean_h, mean_j = self.names, self.mean_h, self.mean_j
        if len(names) < 2:
            return (
                Spec("kendall_tau_systems", math.nan, len(names), "fewer than two systems", None),
                None,
            )
        sign_h = np.sign(mean_h[:, None] - mean_h[None, :])
        sign_j = np.sign(mean_j[:, None] - mean_j[None, :])
        value, note = tau_b(mean_h, mean_j, "systems", "system means")
        # "orders the systems as people do" only where the order is measurable: with every
        # system tied on one side there is no order to share (and Kendall's tau is undefined).
        same_order = None if math.isnan(value) else bool(np.array_equal(sign_h, sign_j))
        if len(names) == 2 and note is None:
            note = "two systems: tau is +1 (same order) or -1"
        spec = Spec(
            "kendall_tau_systems",
            value,
            len(names),
            note,
            None if math.isnan(value) else self.system_reps,
        )
        return spec, same_order

    def system_reps(self, w: FloatArray) -> FloatArray:
        mh, mj = self.means_reps(w, self.human), self.means_reps(w, self.judge)
        sh = np.sign(mh[:, :, None] - mh[:, None, :])
        sj = np.sign(mj[:, :, None] - mj[:, None, :])
        k = len(self.names)
        pairs = k * (k - 1) / 2
        score = (sh * sj).sum(axis=(1, 2)) / 2
        tied_h = ((sh == 0).sum(axis=(1, 2)) - k) / 2
        tied_j = ((sj == 0).sum(axis=(1, 2)) - k) / 2
        # A system not drawn has NaN means, so its signs (and the replicate) are NaN.
        return nan_ratio(score, np.sqrt((pairs - tied_h) * (pairs - tied_j)))
