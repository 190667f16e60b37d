"""How far an LLM judge agrees with human annotators: the figures of a judge card.

Inputs are plain records: one :class:`Unit` per judged unit (a sentence or claim of a summary)
with every annotator's label and the judge's verdict, and one :class:`SummaryRow` per summary
with a human and a judge score. :func:`agreement_figures` turns them into figures
(:class:`Figure`), each a value with a 95 % bootstrap interval, the number of observations
behind it and, where the value or its interval is undefined (NaN), a note saying why.

Conventions:

* A label is 1 when the unit is flagged as a problem, 0 when it is not; the judge's ``judge_p``
  is its probability of a problem, so a higher ``judge_p`` should mean "flagged".
* The reference label of a unit is the majority of its annotators' labels; a tie (one of two
  annotators flags it, say) counts as flagged, so a problem one careful reader saw is not
  voted away. Annotators who did not rate the unit (None) do not vote.
* Units without any human label (``n_no_human``) and units the judge gave no verdict
  (``n_unjudged``) are left out of the unit-level figures and counted; a unit lacking both
  counts under ``n_no_human``. Units without ``judge_p`` are left out of the ROC AUC alone and
  counted as ``n_no_p``. Summaries without both scores are left out of the summary-level
  figures and counted.

How the bootstrap works: the units of one summary are not independent (the same writer, the
same document), so the intervals come from a cluster bootstrap that draws *summaries* with
replacement, the same draw for every figure (units and summary rows are tied together by
``summary_id``). A replicate is a vector of weights, the number of times each summary was
drawn. Before resampling, every unit-level figure is reduced to per-summary counts (confusion
counts, 2x2 tables per annotator, Krippendorff's coincidence sums, ...), so a replicate is a
weighted sum of those counts and all replicates are one matrix product; re-running
scikit-learn on thousands of resampled unit lists would be slower by orders of magnitude.
The point estimates themselves come from the libraries (scikit-learn, scipy, ``krippendorff``),
and the tests check that the count formulas give the same numbers at weight one.
``scipy.stats.bootstrap`` is not used because it resamples one statistic at a time and cannot
skip replicates where a figure is undefined; here a replicate where a figure is undefined
(say, no flagged unit was drawn) is skipped for that figure and counted, and an interval
resting on fewer than half of the replicates is reported as NaN with a note. Intervals are
percentile intervals; the draw depends only on ``seed`` and the sorted summary ids, never on
the order of the inputs.

Everything here is a pure function of its arguments. The package follows the sections of the
computation: `records.py` (inputs and figures), `bootstrap.py` (the draw and the per-summary
counts), `units.py` and `summaries.py` (the figures of each level), `figures.py` (all of them).
"""

from longform_evals.analysis.judge_agreement.figures import agreement_figures
from longform_evals.analysis.judge_agreement.records import (
    CONFIDENCE,
    MIN_USABLE_SHARE,
    N_BOOT,
    AgreementFigures,
    Counts,
    Figure,
    SummaryRow,
    SystemMeans,
    Unit,
    reference_flag,
)

__all__ = [
    "CONFIDENCE",
    "MIN_USABLE_SHARE",
    "N_BOOT",
    "AgreementFigures",
    "Counts",
    "Figure",
    "SummaryRow",
    "SystemMeans",
    "Unit",
    "agreement_figures",
    "reference_flag",
]
