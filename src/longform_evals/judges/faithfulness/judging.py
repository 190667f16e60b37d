"""How the `faithfulness` scorer judges a sample: its checked configuration and its steps (the
support matrix of every document unit and summary sentence, its aggregations, the score's
values and metadata). The judge-agreement scorer judges people's labelled sentences through
this too, so its verdicts are the ones the `faithfulness` scorer would give."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import product
from typing import Any

from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from longform_evals.analysis import MERGES, Merge, SupportMatrix
from longform_evals.data.multidoc import sample_documents
from longform_evals.judges.cards import card_name, faithfulness_mode
from longform_evals.judges.faithfulness.retrieval import Retrieval
from longform_evals.judges.faithfulness.support import (
    NOT_ASKED,
    JudgeOptions,
    JudgeSetup,
    SupportJudge,
    SupportJudgement,
)
from longform_evals.judges.faithfulness.support_judges import check_judge, support_judge
from longform_evals.judges.health import announce_uncalibrated, note_readings
from longform_evals.judges.statement_parts import (
    Ask,
    PartsJudged,
    as_statements,
    judge_with_parts,
    statement_parts,
)
from longform_evals.judges.text_check import READING_DECIDED, TextCheck, check_text
from longform_evals.judges.unit_judge import JudgedUnits, support_verdict
from longform_evals.models.fan_out import fan_out
from longform_evals.models.grader import self_judged
from longform_evals.text import (
    DocChunk,
    chunk_documents,
    join_documents,
    parse_chunk_mode,
    split_sentences,
)
from longform_evals.text.work_limits import WorkLimitError, excess, support_plan, work_limits

AGGREGATIONS: tuple[str, ...] = tuple(f"{d}_{s}" for d, s in product(MERGES, MERGES))
FULL_AGGREGATIONS: tuple[str, ...] = tuple(f"full_{s}" for s in MERGES)
VALUE_KEYS: tuple[str, ...] = ("faithfulness", *AGGREGATIONS, *FULL_AGGREGATIONS)


def summary_sentences(state: TaskState, summary: str) -> list[str]:
    """The summary's sentences (:func:`given_sentences` of the sample's metadata)."""
    return given_sentences(state.metadata, summary)


def given_sentences(metadata: Mapping[str, Any], summary: str) -> list[str]:
    """The summary's sentences; a sample's own split is kept when it describes this summary
    (human labels of meta-evaluation data are aligned to it)."""
    given = metadata.get("summary_sentences")
    if isinstance(given, list) and metadata.get("summary") == summary:
        return [str(s) for s in given]
    return split_sentences(summary)


def _values(rows: list[list[SupportJudgement]]) -> list[list[float | None]]:
    return [[j.value for j in row] for row in rows]


def _as_written(rows: list[list[SupportJudgement]]) -> list[list[SupportJudgement]]:
    """The rows as the statements as written were judged: a judgement a part or reading
    decided (`statement_parts`) replaced by the statement's own."""
    return [
        [replace(j, value=j.whole, reading=None) if j.reading is not None else j for j in row]
        for row in rows
    ]


def decided_by_reading(
    judged: _Judged, matrix: SupportMatrix, doc_merge: Merge
) -> dict[int, list[str]]:
    """The sentences whose score (their support over the documents, by `doc_merge`) a part or
    reading decided: it differs from the score the sentences as written get; each with the
    parts and readings whose judgements were kept for it, in order."""
    unit_docs = [u.doc_index for u in judged.units]
    written = SupportMatrix.from_rows(
        _doc_rows(_as_written(judged.unit_rows), unit_docs, len(judged.kept))
    )
    ours, theirs = matrix.sentence_scores(doc_merge), written.sentence_scores(doc_merge)
    out: dict[int, list[str]] = {}
    for j, (a, b) in enumerate(zip(ours.tolist(), theirs.tolist(), strict=True)):
        if a == b or (math.isnan(a) and math.isnan(b)):
            continue
        readings = [row[j].reading for row in judged.unit_rows if row[j].reading is not None]
        out[j] = list(dict.fromkeys(r for r in readings if r is not None))
    return out


def _unit_records(judged: _Judged) -> list[dict[str, int]]:
    """Where each source unit comes from (document index before empty ones were left out,
    chunk index) and its length in tokens."""
    return [
        {"doc_index": judged.kept[u.doc_index], "chunk_index": u.chunk_index, "tokens": u.n_tokens}
        for u in judged.units
    ]


def _doc_rows(
    unit_rows: list[list[SupportJudgement]], unit_docs: list[int], n_docs: int
) -> list[list[float | None]]:
    """Support per (document, sentence): the max over the document's units (missing ignored)."""
    by_doc: list[list[list[SupportJudgement]]] = [[] for _ in range(n_docs)]
    for row, doc in zip(unit_rows, unit_docs, strict=True):
        by_doc[doc].append(row)  # one pass: a scan per document would cost documents x units
    rows: list[list[float | None]] = []
    for mine in by_doc:
        rows.append(
            [
                max((v for v in col if v is not None), default=None)
                for col in zip(*([j.value for j in row] for row in mine), strict=True)
            ]
        )
    return rows


async def _judge_retrieved(
    ask: Ask, texts: list[str], statements: list[str], chosen: list[list[int]]
) -> PartsJudged:
    """`judge_with_parts` on the retrieved pairs only: each unit is asked about the statements
    that retrieved it (one request per unit, so its prompts stay together); every other pair
    is :data:`NOT_ASKED`."""
    wanted: list[list[int]] = [[] for _ in texts]
    for j, units in enumerate(chosen):
        for u in dict.fromkeys(units):
            wanted[u].append(j)
    asked = [u for u in range(len(texts)) if wanted[u]]
    judged = await fan_out(
        *[judge_with_parts(ask, [texts[u]], [statements[j] for j in wanted[u]]) for u in asked]
    )
    missing = SupportJudgement(None, NOT_ASKED, "")
    rows = [[missing] * len(statements) for _ in texts]
    parts: list[list[str]] = [[] for _ in statements]
    for u, result in zip(asked, judged, strict=True):
        for column, j in enumerate(wanted[u]):
            rows[u][j] = result.rows[0][column]
            parts[j] = result.parts[column]
    return PartsJudged(rows, parts, sum(r.extra_calls for r in judged))


def _missing_rate(judged: _Judged) -> float:
    """Share of the (document, sentence) cells the judge was asked about whose support could
    not be read; a cell retrieval left unasked is not missing, just not judged."""
    asked = _doc_asked(judged)
    cells = [
        v
        for row, mask in zip(judged.rows, asked, strict=True)
        for v, a in zip(row, mask, strict=True)
        if a
    ]
    return sum(v is None for v in cells) / len(cells) if cells else math.nan


def _doc_asked(judged: _Judged) -> list[list[bool]]:
    """Per (kept document, sentence): whether any of the document's units was asked."""
    asked = [[False] * len(judged.sentences) for _ in judged.kept]
    for unit, row in zip(judged.units, judged.unit_rows, strict=True):
        for j, judgement in enumerate(row):
            asked[unit.doc_index][j] |= judgement.asked
    return asked


def _check_options(judge: str, doc_merge: str, sentence_merge: str, chunking: str | None) -> None:
    """Fail at task construction on an unknown judge, merge or chunking mode."""
    check_judge(judge)
    if doc_merge not in MERGES or sentence_merge not in MERGES:
        raise ValueError(f"doc_merge and sentence_merge must be one of {MERGES}")
    if chunking is not None:
        parse_chunk_mode(chunking)


def _unscorable_score(summary: str, check: TextCheck) -> Score:
    """The score of a summary without words: NaN values, no judge call."""
    return Score(
        value={
            **dict.fromkeys((*VALUE_KEYS, "missing_rate", READING_DECIDED), math.nan),
            "judge_calls": 0.0,
            **check.values(math.nan),
        },
        answer=summary,
        explanation=check.explanation(),
        metadata=check.metadata(),
    )


def check_support_work(
    texts: list[str], statements: list[str], retrieval: Retrieval, full_text: str | None
) -> None:
    """Refuse, before any judge call, a sample whose support judging would pass a work limit
    (`text/work_limits.py`). The statements are planned first, then with their parts, so a
    flood of asides is refused before its parts are worked out.

    Raises:
        WorkLimitError: naming the limit and the variable that raises it.
    """
    limits = work_limits()
    per = None if retrieval.retriever == "all" else retrieval.k
    units = [len(t) for t in texts]
    full = None if full_text is None else len(full_text)
    lengths = [len(s) for s in statements]
    for stage in ("statements", "parts"):
        parts: list[int] = []
        if stage == "parts":
            seen = set(statements)
            extra = {p for s in statements for p in statement_parts(s) if p not in seen}
            parts = [len(p) for p in extra]
        plan = support_plan(units, lengths, parts, per, full)
        over = excess(plan, limits, f"faithfulness ({len(texts)} source units)")
        if over is not None:
            raise WorkLimitError(over)


@dataclass(frozen=True)
class _Resolved:
    """The judge of a sample as the task's model roles and calibration make it."""

    setup: JudgeSetup
    chunking: str
    thresholds: dict[str, float]
    """Summary thresholds per aggregation and for `faithfulness`."""
    sentence_threshold: float
    retrieval: Retrieval
    """The units it reads per sentence: the option given, else the calibration's."""


@dataclass(frozen=True)
class _Judged:
    """One sample's judgements, per judge unit and per non-empty document."""

    sentences: list[str]
    kept: list[int]
    """Indices of the non-empty documents (the matrix's rows, in order)."""
    units: list[DocChunk]
    """The units the judge read; `doc_index` counts kept documents."""
    unit_rows: list[list[SupportJudgement]]
    rows: list[list[float | None]]
    """Support per (kept document, sentence)."""
    full_rows: list[list[SupportJudgement]] | None
    """With `include_full`: the one row of all documents read at once."""
    statements: list[str]
    """What each sentence was judged as (an aside with the sentence before it)."""
    parts: list[list[str]]
    """Per sentence, the parts it was also judged as (`judges/statement_parts.py`)."""
    part_calls: int
    """Judge calls made for those parts."""

    @property
    def full(self) -> list[float | None] | None:
        return _values(self.full_rows)[0] if self.full_rows else None


@dataclass(frozen=True)
class FaithfulnessJudging:
    """The scorer's fixed configuration (the factory's checked arguments) and its steps.

    The judge-agreement task judges human-labelled sentences through this too (`build`,
    `sentence_support`), so its verdicts are the ones this scorer would give."""

    judge: SupportJudge
    doc_merge: Merge
    sentence_merge: Merge
    chunking: str | None
    include_full: bool
    threshold: float | None
    judge_name: str = "llm"
    """The judge's registered name (what its judge card's mode begins with)."""
    retrieval: Retrieval | None = None
    """Which units the judge reads for each sentence (`retrieval.py`); None: what the
    judge's calibration was chosen under."""

    @classmethod
    def build(
        cls,
        judge: str,
        doc_merge: Merge,
        sentence_merge: Merge,
        chunking: str | None,
        include_full: bool,
        threshold: float | None,
        judge_options: JudgeOptions | Mapping[str, Any] | None,
    ) -> FaithfulnessJudging:
        """The configuration of the scorer's arguments, checked. Every one is given: their
        defaults are the scorer's (`longform_evals.scorers.faithfulness.faithfulness`), which
        also says what each means."""
        _check_options(judge, doc_merge, sentence_merge, chunking)
        options = JudgeOptions.of(judge_options)
        return cls(
            judge=support_judge(judge, options),
            doc_merge=doc_merge,
            sentence_merge=sentence_merge,
            chunking=chunking,
            include_full=include_full,
            threshold=threshold,
            judge_name=judge,
            retrieval=None if options.retrieval is None else Retrieval.parse(options.retrieval),
        )

    @property
    def aggregation(self) -> str:
        return f"{self.doc_merge}_{self.sentence_merge}"

    async def sentence_support(
        self, state: TaskState, sentences: list[str], statements: list[str] | None = None
    ) -> tuple[list[float | None], float, dict[str, Any]]:
        """Support of each given sentence by the sample's documents (AGG_D over them; None
        where no answer was readable), the calibrated sentence threshold, and metadata saying
        how they were judged. Each sentence is judged as its statement (itself, or with the
        sentence it is an aside to: `as_statements` over the whole summary, which the caller
        gives when it asks about a subset), so any subset may be asked."""
        documents = sample_documents(state.metadata, state.sample_id)
        judge = self.resolve()
        judged = await self.judge_sample(state, documents, sentences, judge, statements)
        matrix = SupportMatrix.from_rows(judged.rows, full=judged.full)
        supports = [
            None if math.isnan(v) else float(v)
            for v in matrix.sentence_scores(self.doc_merge).tolist()
        ]
        meta = {
            "judge": judge.setup.name,
            "prompt": judge.setup.prompt,
            "chunking": judge.chunking,
            "calibration": judge.setup.calibration.source,
            "sentence_threshold": judge.sentence_threshold,
            "judge_card": self.judge_card(judge),
            "retrieval": judge.retrieval.spec,
            "matrix": judged.rows,
            # per source unit (the chunks, in order) and statement: what the judge answered
            # (None: unreadable, or not asked under retrieval)
            "unit_matrix": _values(judged.unit_rows),
            "statements": judged.statements,
            "units": _unit_records(judged),
        }
        return supports, judge.sentence_threshold, meta

    async def judge_units(
        self, state: TaskState, units: list[str], statements: list[str] | None = None
    ) -> JudgedUnits:
        """The sentences ``units`` as a unit judge sees them (:class:`~longform_evals.judges.
        unit_judge.UnitJudge`): flagged below the sentence threshold, each scored by its
        support (:meth:`sentence_support`, whose metadata it keeps)."""
        supports, threshold, meta = await self.sentence_support(state, units, statements)
        verdicts = [
            support_verdict(s, threshold, "" if s is None else f"support {s:.3g}") for s in supports
        ]
        return JudgedUnits(verdicts, list(supports), meta)

    def judge_card(self, judge: _Resolved) -> str | None:
        """The packaged judge card of this judge asked with its prompt, or None
        (`judges/cards.py`). A card measures the packaged calibration: with another threshold,
        chunking or calibration file, none applies."""
        own = (
            self.threshold is None
            # cards and calibrations measure the judge reading the units it was calibrated on
            and judge.retrieval.spec == judge.setup.calibration.retrieval
            and judge.chunking == judge.setup.chunking
            # a user's calibration file is named by its path
            and str(judge.setup.calibration.source).startswith(("packaged", "none", "uncalibrated"))
        )
        if not own:
            return None
        mode = faithfulness_mode(self.judge_name, judge.setup.prompt)
        return card_name(judge.setup.name, "faithfulness", mode)

    def resolve(self) -> _Resolved:
        """The judge as it stands for this sample, the chunking and the thresholds."""
        setup = self.judge.setup()
        cal = setup.calibration
        threshold = self.threshold
        thresholds = {
            key: threshold if threshold is not None else cal.threshold(key)
            for key in (*AGGREGATIONS, *FULL_AGGREGATIONS)
        }
        thresholds["faithfulness"] = thresholds[self.aggregation]
        sentence_threshold = threshold if threshold is not None else cal.sentence_threshold
        retrieval = self.retrieval or Retrieval.parse(cal.retrieval)
        return _Resolved(
            setup, self.chunking or setup.chunking, thresholds, sentence_threshold, retrieval
        )

    async def judge_sample(
        self,
        state: TaskState,
        documents: list[str],
        sentences: list[str],
        judge: _Resolved,
        statements: list[str] | None = None,
    ) -> _Judged:
        """Judge the sentences against each unit of the documents (and, with `include_full`,
        against all documents at once)."""
        # Empty documents (they occur in real data) have nothing to support a sentence: they
        # are left out of the matrix and listed, rather than failing the sample.
        kept = [i for i, d in enumerate(documents) if d.strip()]
        if not kept:
            raise ValueError(f"sample {state.sample_id!r}: every source document is empty")
        units = chunk_documents([documents[i] for i in kept], judge.chunking)

        async def ask(texts: list[str], statements: list[str]) -> list[list[SupportJudgement]]:
            return await self.judge.support_rows(judge.setup, texts, statements)

        statements = statements or as_statements(sentences)
        texts = [u.text for u in units]
        full_text = join_documents([documents[i] for i in kept]) if self.include_full else None
        check_support_work(texts, statements, judge.retrieval, full_text)
        chosen = await judge.retrieval.select(texts, statements)
        if chosen is None:
            by_unit = await judge_with_parts(ask, texts, statements)
        else:
            by_unit = await _judge_retrieved(ask, texts, statements, chosen)
        unit_rows = by_unit.rows
        rows = _doc_rows(unit_rows, [u.doc_index for u in units], len(kept))
        full_rows: list[list[SupportJudgement]] | None = None
        part_calls = by_unit.extra_calls
        if full_text is not None:
            by_all = await judge_with_parts(ask, [full_text], statements)
            full_rows, part_calls = by_all.rows, part_calls + by_all.extra_calls
        return _Judged(
            sentences,
            kept,
            units,
            unit_rows,
            rows,
            full_rows,
            statements,
            by_unit.parts,
            part_calls,
        )

    def score_values(
        self, judged: _Judged, matrix: SupportMatrix, check: TextCheck
    ) -> dict[str, float]:
        """The score's values: every aggregation, the missing rate, the judge calls, the
        sentences whose score a reading decided (:data:`READING_DECIDED`) and the counted
        reasons."""
        n_sentences = len(judged.sentences)
        aggregations = matrix.all_aggregations()
        values: dict[str, float] = {
            "faithfulness": matrix.aggregate(self.doc_merge, self.sentence_merge),
            **{key: aggregations.get(key, math.nan) for key in (*AGGREGATIONS, *FULL_AGGREGATIONS)},
            "missing_rate": _missing_rate(judged),
            "judge_calls": float(
                sum(j.asked for row in judged.unit_rows for j in row)
                + (n_sentences if judged.full_rows else 0)
                + judged.part_calls
            ),
            READING_DECIDED: float(len(decided_by_reading(judged, matrix, self.doc_merge))),
        }
        values.update(check.values(values["faithfulness"]))
        return values

    def score_metadata(
        self,
        judge: _Resolved,
        judged: _Judged,
        matrix: SupportMatrix,
        n_documents: int,
        check: TextCheck,
    ) -> dict[str, Any]:
        """The score's metadata: the judge and its thresholds, the matrices, attribution and
        the position profiles."""
        kept, units, unit_rows = judged.kept, judged.units, judged.unit_rows
        return {
            "judge": judge.setup.name,
            "prompt": judge.setup.prompt,
            "aggregation": self.aggregation,
            "chunking": judge.chunking,
            "retrieval": judge.retrieval.spec,
            "calibration": judge.setup.calibration.source,
            "thresholds": judge.thresholds,
            "sentence_threshold": judge.sentence_threshold,
            "judge_card": self.judge_card(judge),
            "units": _unit_records(judged),
            "sentences": judged.sentences,
            "matrix": judged.rows,
            "unit_matrix": _values(unit_rows) if len(units) > len(kept) else None,
            "full": judged.full,
            "answer_sources": [[j.source for j in row] for row in unit_rows],
            # Sentences judged as more than themselves (an aside with the sentence it follows)
            # and as their parts (asides set aside, one sentence each): the least support.
            "sentence_statements": {
                str(i): st
                for i, (st, s) in enumerate(zip(judged.statements, judged.sentences, strict=True))
                if st != s
            },
            "sentence_parts": {str(i): ps for i, ps in enumerate(judged.parts) if ps},
            # Sentences whose score came from a part or reading rather than from themselves.
            READING_DECIDED: {
                str(j): readings
                for j, readings in decided_by_reading(judged, matrix, self.doc_merge).items()
            },
            "sentence_scores": [
                None if math.isnan(v) else v
                for v in matrix.sentence_scores(self.doc_merge).tolist()
            ],
            "attribution": matrix.attribution().tolist(),
            # Yes/no judges tie often; split tied sentences instead of crediting the first.
            "position_faithfulness": matrix.position_faithfulness(
                judge.sentence_threshold, ties="split"
            ),
            "position_coverage": matrix.position_coverage(judge.sentence_threshold),
            "empty_documents": [i for i in range(n_documents) if i not in kept],
            **check.metadata(),
        }

    async def score(self, state: TaskState) -> Score:
        """Score one sample's completion."""
        documents = sample_documents(state.metadata, state.sample_id)
        summary = state.output.completion if state.output else ""
        check = check_text(summary, summary_sentences(state, summary), judged=True)
        if check.problem:
            return _unscorable_score(summary, check)
        judge = self.resolve()
        try:
            judged = await self.judge_sample(state, documents, check.sentences, judge)
        except WorkLimitError as exc:
            return _unscorable_score(summary, check.refused(str(exc)))
        matrix = SupportMatrix.from_rows(judged.rows, full=judged.full)
        values = self.score_values(judged, matrix, check)
        metadata = self.score_metadata(judge, judged, matrix, len(documents), check)
        metadata["self_judged"] = self_judged(
            judge.setup.name, state.output.model if state.output else None
        )
        unread = sum(1 for row in judged.unit_rows for j in row if j.asked and j.value is None)
        total = sum(j.asked for row in judged.unit_rows for j in row)
        if judge.setup.calibration.source == "uncalibrated" and self.threshold is None:
            # (a threshold given is the user's choice, not a default: nothing to say)
            announce_uncalibrated(judge.setup.name, "faithfulness", "uncalibrated")
        note_readings(judge.setup.name, "faithfulness", total - unread, unread)
        return Score(
            value=values,
            answer=summary,
            explanation=(
                f"{self.aggregation} over {len(judged.kept)} documents ({len(judged.units)} "
                f"judge units, {judge.chunking}) x {len(judged.sentences)} sentences = "
                f"{values['faithfulness']:.3f}; {unread} answers unreadable; "
                f"thresholds: {judge.setup.calibration.source}"
            ),
            metadata=metadata,
        )
