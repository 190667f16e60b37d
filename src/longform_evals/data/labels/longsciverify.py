"""LongSciVerify: experts' factuality labels of scientific summaries, per sentence.

LongSciVerify (Bishop et al., LREC-COLING 2024, "LongDocFACTScore"; github
jbshp/LongDocFACTScore) has three systems summarize arXiv and PubMed articles and three expert
reviewers label them. A subset (``arxiv`` or ``pubmed``) is published as two parts, e.g. in
``../shared/data/human_labels/longsciverify/``:

- ``data/raw_data/LongSciVerify/<subset>_test.json``: a JSON list of articles with
  ``article_id``, ``article_text`` (a list of sentences), ``abstract_text``, ``section_names``,
  ``sections`` and ``labels``;
- ``data/human_eval_results/LongSciVerify/<subset>_reviewer_<n>.csv`` (UTF-8 with a byte-order
  mark), one file per reviewer, one row per article: ``id``; the three summaries, columns
  ``gencomparesumabs``, ``dancersum``, ``section_conditional`` (``model_1`` to ``model_3``:
  GenCompareSum-abs, DANCERSumm and ZONESumm, per the repository's data README); and the
  reviewer's ratings ``model_<k>_coherence``, ``model_<k>_fluency`` and
  ``model_<k>_sent_<j>_factuality`` for j = 1..3, the first three sentences of summary k.

Conventions, and the evidence for them
--------------------------------------
- Factuality 1 = factually consistent, 0 = not. The authors' evaluation script
  (``evaluation_scripts/run_evaluation.py``) averages the three sentence values into a
  ``factuality`` score and correlates it (Kendall's tau, ``utils/correlations.py``, column
  renamed ``Human``) with metrics where higher means more factual; it even turns FactCC's output
  around (``1 - result``, "0 means 'entailed'") to point the same way. The data agree: the
  near-extractive DANCERSumm has 64-84 % ones per reviewer, the abstractive ZONESumm 7-24 %.
  Here ``flags`` hold ``1 - value`` (1 = unfaithful).
- ``model_<k>_coherence`` and ``_fluency`` are ranks of the three summaries of an article: each
  row of the shared files holds a permutation of 1, 2, 3. Neither the files nor the
  repository's code say which end is best (the script drops these columns before correlating),
  and the paper's text was not at hand. We read 1 as best: in every reviewer's file the
  summaries ranked 3 are the most repetitive (mean share of repeated word trigrams 0.11-0.14
  at rank 3 against 0.05-0.08 at ranks 1 and 2, e.g. DANCERSumm's looping, cut-off outputs).
  They are kept as ``human_scores["reviewer_<n>/coherence_rank"]`` and ``".../fluency_rank"``
  (lower is better), not converted.

Units and samples
-----------------
One sample per (article, system): id ``"longsciverify/<article_id>/<system>"`` with ``system``
the CSV column name, ``group`` the article id, ``document`` the article's sentences one per
line (the file's own sentence boundaries, which a document read line by line keeps). The
summaries are lower-cased, tokenized text (``"brans - klein ( bkt ) ."``), split by
:func:`longsciverify_sentences`: NLTK's ``sent_tokenize`` through
:func:`~longform_evals.text.split_sentences` (the authors' LongDocFACTScore code is built on
NLTK), which ends sentences before lower-case words too. Sentences 0..2 are the rated units;
later sentences are None for every reviewer. ``annotators`` are
``reviewer_<n>``, from the file names.

Data checks: the reviewers' files must hold the same articles and the same summaries (else a
DataError naming file, line and column). An empty rating cell is None for that reviewer and
listed in ``skipped`` (file, line, id, column); so is a rating of a sentence the summary does
not have. The CSV ids were saved through a spreadsheet that dropped zeros (``0806.4325`` is
``806.4325``, ``1007.1070`` is ``1007.107``) and left trailing spaces: an id is matched to
the articles exactly after stripping, else by numeric value; an id matching no article, or
several, is a DataError.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.files import check_file, csv_table, folder_names, source_kind
from longform_evals.data.jsonl import DataError, has_words, max_text_chars, read_json, read_text
from longform_evals.data.labels.schema import (
    JudgeLabelSet,
    PeoplesLabels,
    Skipped,
    SummaryOrigin,
    judge_sample,
)
from longform_evals.text import split_sentences

__all__ = [
    "RATED_SENTENCES",
    "SYSTEM_COLUMNS",
    "SYSTEM_NAMES",
    "load_longsciverify",
    "longsciverify_sentences",
    "match_article_id",
]

SYSTEM_COLUMNS: tuple[str, ...] = ("gencomparesumabs", "dancersum", "section_conditional")
"""The summary columns, in the order of ``model_1`` to ``model_3``."""

SYSTEM_NAMES: dict[str, str] = {
    "gencomparesumabs": "GenCompareSum-abs",
    "dancersum": "DANCERSumm",
    "section_conditional": "ZONESumm",
}
"""The systems' names in the paper, by column."""

RATED_SENTENCES = 3
"""The reviewers rated the first three sentences of each summary."""

_ASPECTS = ("coherence", "fluency")
_REVIEWER_CSV = re.compile(r"^(?P<subset>.+)_reviewer_(?P<n>\d+)\.csv$")
_ARTICLES = re.compile(r"^(?P<subset>.+)_test\.json$")


def longsciverify_sentences(text: str) -> list[str]:
    """The sentences of a LongSciVerify summary: NLTK's ``sent_tokenize`` sentences
    (:func:`~longform_evals.text.split_sentences`)."""
    return split_sentences(text)


def match_article_id(csv_id: str, article_ids: Sequence[str]) -> list[str]:
    """The article ids a reviewer file's id stands for: the id itself (stripped) if present,
    else the ids with the same numeric value (zeros lost in a spreadsheet)."""
    key = csv_id.strip()
    if key in article_ids:
        return [key]
    try:
        value = float(key)
    except ValueError:
        return []
    out = []
    for article_id in article_ids:
        try:
            if float(article_id) == value:
                out.append(article_id)
        except ValueError:
            continue
    return out


@dataclass(frozen=True)
class _Row:
    line: int
    csv_id: str
    cells: dict[str, str]


@dataclass(frozen=True)
class _Reviewer:
    name: str
    path: Path
    rows: dict[str, _Row]  # by stripped id, in file order


def _required_columns() -> list[str]:
    cols = ["id", *SYSTEM_COLUMNS]
    for k in range(1, len(SYSTEM_COLUMNS) + 1):
        cols += [f"model_{k}_{aspect}" for aspect in _ASPECTS]
        cols += [f"model_{k}_sent_{j}_factuality" for j in range(1, RATED_SENTENCES + 1)]
    return cols


def _read_reviewer(path: Path, name: str) -> _Reviewer:
    text = read_text(path, "LongSciVerify reviewer file (.csv)")
    if not text.strip():
        raise DataError(f"{path}: file is empty")
    header, table = csv_table(text, path, max_text_chars())
    missing = [c for c in _required_columns() if c not in header]
    if missing:
        raise DataError(
            f"{path}: not a LongSciVerify reviewer file: missing column(s) "
            f"{', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}"
        )
    rows: dict[str, _Row] = {}
    for line, values in table:
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            raise DataError(f"{path}:{line}: {len(values)} cells for {len(header)} columns")
        cells = dict(zip(header, values, strict=True))
        key = cells["id"].strip()
        if not key:
            raise DataError(f"{path}:{line}: empty 'id'")
        if key in rows:
            raise DataError(f"{path}:{line}: id {key!r} repeats line {rows[key].line}")
        rows[key] = _Row(line, cells["id"], cells)
    if not rows:
        raise DataError(f"{path}: file holds a header but no rows")
    return _Reviewer(name, path, rows)


def _articles(path: Path) -> dict[str, str]:
    """Article id -> the article's text (its sentences one per line)."""
    if not os.path.lexists(path):
        raise DataError(f"{path}: no such file (the articles of the reviewer files next to it)")
    data = read_json(path, "LongSciVerify articles file (<subset>_test.json)")
    if not isinstance(data, list) or not data:
        raise DataError(f"{path}: expected a non-empty JSON list of articles")
    out: dict[str, str] = {}
    for n, article in enumerate(data):
        where = f"{path}: article {n}"
        if not isinstance(article, dict):
            raise DataError(f"{where}: expected an object")
        article_id = article.get("article_id")
        text = article.get("article_text")
        if not isinstance(article_id, str) or not article_id.strip():
            raise DataError(f"{where}: missing or empty 'article_id'")
        if isinstance(text, list) and all(isinstance(s, str) for s in text):
            text = "\n".join(s.strip() for s in text if s.strip())
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{where} ({article_id}): 'article_text' must be non-empty text")
        if article_id in out:
            raise DataError(f"{where}: article id {article_id!r} repeats")
        out[article_id] = text
    return out


def _cell_number(value: str, invalid: float) -> float | None:
    """The number in a cell: None when it is empty, ``invalid`` when it is not a number."""
    text = value.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return invalid


def _binary(value: str, where: str, column: str) -> int | None:
    number = _cell_number(value, -1.0)
    if number is None:
        return None
    if number not in (0.0, 1.0):
        raise DataError(f"{where}: {column} = {value!r}, expected 0, 1 or empty")
    return int(number)


def _rank(value: str, where: str, column: str) -> float | None:
    number = _cell_number(value, 0.0)
    if number is None:
        return None
    if not (number.is_integer() and 1 <= number <= len(SYSTEM_COLUMNS)):
        raise DataError(
            f"{where}: {column} = {value!r}, expected a rank 1..{len(SYSTEM_COLUMNS)} or empty"
        )
    return number


def _check_same_rows(reviewers: list[_Reviewer]) -> None:
    first = reviewers[0]
    for other in reviewers[1:]:
        for key, row in other.rows.items():
            if key not in first.rows:
                raise DataError(
                    f"{other.path}:{row.line}: article {key!r} is not in {first.path.name}"
                )
        for key, row in first.rows.items():
            if key not in other.rows:
                raise DataError(
                    f"{first.path}:{row.line}: article {key!r} is not in {other.path.name}"
                )
            theirs = other.rows[key]
            for column in SYSTEM_COLUMNS:
                if theirs.cells[column] != row.cells[column]:
                    raise DataError(
                        f"{other.path}:{theirs.line} (article {key}): column {column!r} differs "
                        f"from {first.path.name}:{row.line}; the reviewers' files must hold the "
                        "same summaries"
                    )


def _subset_files(folder: Path) -> dict[str, list[tuple[int, Path]]]:
    found: dict[str, list[tuple[int, Path]]] = {}
    for name in folder_names(folder, "LongSciVerify folder"):
        match = _REVIEWER_CSV.match(name)
        if match:  # named like a reviewer file: it must be one (not a folder, a broken link)
            path = check_file(folder / name, "LongSciVerify reviewer file (.csv)")
            found.setdefault(match["subset"], []).append((int(match["n"]), path))
    return {subset: sorted(files) for subset, files in sorted(found.items())}


def _where(reviewer: _Reviewer, row: _Row) -> str:
    return f"{reviewer.path}:{row.line} ({row.csv_id.strip()})"


def _article_of(
    key: str, where: str, articles: Mapping[str, str], subset: str, seen: dict[str, str]
) -> str:
    """The one article a reviewers' row id names (recorded in ``seen``, id by article)."""
    matches = match_article_id(key, list(articles))
    if len(matches) != 1:
        found = "no article" if not matches else f"articles {', '.join(matches)}"
        raise DataError(f"{where}: id {key!r} matches {found} of {subset}_test.json")
    article_id = matches[0]
    if article_id in seen:
        raise DataError(
            f"{where}: id {key!r} names article {article_id!r} again (as does {seen[article_id]!r})"
        )
    seen[article_id] = key
    return article_id


def _sentence_flags(
    row: _Row, where: str, k: int, n_sentences: int, skipped: list[Skipped]
) -> list[int | None]:
    """One reviewer's flags of system ``k``'s sentences (1 = not factual, None = not rated);
    an empty cell, or a rating of a sentence the summary does not split into, is skipped."""
    values: list[int | None] = [None] * n_sentences
    for j in range(RATED_SENTENCES):
        column = f"model_{k}_sent_{j + 1}_factuality"
        value = _binary(row.cells[column], where, column)
        if value is None:
            skipped.append(Skipped(where, f"empty cell {column}: not rated"))
        elif j >= n_sentences:
            skipped.append(
                Skipped(
                    where,
                    f"{column} rates sentence {j + 1}, but the summary splits "
                    f"into {n_sentences} sentence(s); rating dropped",
                )
            )
        else:
            values[j] = 1 - value
    return values


def _aspect_ranks(row: _Row, where: str, k: int, skipped: list[Skipped]) -> dict[str, float]:
    """One reviewer's rank of system ``k`` on each aspect (an empty cell is skipped)."""
    ranks: dict[str, float] = {}
    for aspect in _ASPECTS:
        column = f"model_{k}_{aspect}"
        rank = _rank(row.cells[column], where, column)
        if rank is None:
            skipped.append(Skipped(where, f"empty cell {column}: not rated"))
        else:
            ranks[aspect] = rank
    return ranks


def _load_subset(
    folder: Path, subset: str, files: list[tuple[int, Path]], skipped: list[Skipped]
) -> tuple[list[Sample], list[str]]:
    articles = _articles(folder / f"{subset}_test.json")
    reviewers = [_read_reviewer(path, f"reviewer_{n}") for n, path in files]
    _check_same_rows(reviewers)
    first = reviewers[0]
    samples: list[Sample] = []
    seen: dict[str, str] = {}
    for key, row in first.rows.items():
        article_id = _article_of(key, f"{first.path}:{row.line}", articles, subset, seen)
        for k, system in enumerate(SYSTEM_COLUMNS, start=1):
            summary = row.cells[system]
            if not summary.strip():
                skipped.append(Skipped(_where(first, row), f"empty summary in column {system}"))
                continue
            if not has_words(summary):  # nothing a judge could be asked about
                why = f"summary without words in column {system}: {summary.strip()[:30]!r}"
                skipped.append(Skipped(_where(first, row), why))
                continue
            sentences = longsciverify_sentences(summary)
            flags: dict[str, list[int | None]] = {}
            scores: dict[str, float] = {}
            for reviewer in reviewers:
                rrow = reviewer.rows[key]
                where = _where(reviewer, rrow)
                flags[reviewer.name] = _sentence_flags(rrow, where, k, len(sentences), skipped)
                for aspect, rank in _aspect_ranks(rrow, where, k, skipped).items():
                    scores[f"{reviewer.name}/{aspect}_rank"] = rank
            samples.append(
                judge_sample(
                    f"longsciverify/{article_id}/{system}",
                    f"Faithfulness of the {system} summary of {subset} article {article_id}",
                    summary=summary,
                    summary_sentences=sentences,
                    unit="sentence",
                    origin=SummaryOrigin(
                        article_id, system, articles[article_id], f"{first.path}:{row.line}"
                    ),
                    labels=PeoplesLabels(flags, human_scores=scores),
                )
            )
    return samples, [r.name for r in reviewers]


def _folder_and_subset(path: Path, subset: str | None) -> tuple[Path, str | None]:
    if source_kind(path, "LongSciVerify folder or file") == "folder":
        return path, subset
    match = _REVIEWER_CSV.match(path.name) or _ARTICLES.match(path.name)
    if match is None:
        raise DataError(
            f"{path}: not a LongSciVerify file (<subset>_reviewer_<n>.csv or <subset>_test.json)"
        )
    if subset is not None and subset != match["subset"]:
        raise ValueError(f"subset {subset!r} given, but {path.name} is of {match['subset']!r}")
    return path.parent, match["subset"]


def load_longsciverify(path: str | Path, *, subset: str | None = None) -> JudgeLabelSet:
    """Load LongSciVerify's reviewer ratings as per-sentence faithfulness labels.

    Args:
        path: The folder holding ``<subset>_reviewer_<n>.csv`` and ``<subset>_test.json``, or
            one of those files (its subset is then loaded from its folder).
        subset: Load only this subset (``"arxiv"`` or ``"pubmed"``); all found when None.

    Returns:
        A ``"faithfulness"`` set of format ``"longsciverify"`` (see the module docstring).

    Raises:
        DataError: If files are missing, empty or malformed, the reviewers' files disagree, a
            rating is not 0/1 (or a rank 1..3), or an id matches no article (or several);
            the message names the file and line.
        ValueError: If ``subset`` contradicts the file given.
    """
    folder, wanted = _folder_and_subset(Path(path), subset)
    subsets = _subset_files(folder)
    if not subsets:
        raise DataError(f"{folder}: folder holds no LongSciVerify <subset>_reviewer_<n>.csv files")
    if wanted is not None:
        if wanted not in subsets:
            raise DataError(
                f"{folder}: no {wanted}_reviewer_<n>.csv files (found: {', '.join(subsets)})"
            )
        subsets = {wanted: subsets[wanted]}
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    annotators: list[str] = []
    for name, files in subsets.items():
        got, reviewers = _load_subset(folder, name, files, skipped)
        samples.extend(got)
        annotators.extend(r for r in reviewers if r not in annotators)
    _check_unique(samples, folder)
    return JudgeLabelSet.of("longsciverify", path, samples, skipped, annotators)


def _check_unique(samples: list[Sample], folder: Path) -> None:
    seen: dict[Any, str] = {}
    for sample in samples:
        source = str((sample.metadata or {}).get("source"))
        if sample.id in seen:
            raise DataError(f"{source}: sample {sample.id!r} also comes from {seen[sample.id]}")
        seen[sample.id] = source
