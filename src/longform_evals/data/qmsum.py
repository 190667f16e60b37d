"""QMSum query-based meeting summarization as Inspect samples.

QMSum (Zhong et al., 2021, "QMSum: A New Benchmark for Query-based Multi-domain Meeting
Summarization") pairs meeting transcripts (product design, academic and parliamentary
committee meetings) with queries: general ones about the whole meeting ("Summarize the whole
meeting.") and specific ones about a topic or a speaker, each with a reference answer and,
for specific queries, the transcript turns that support it.

Source format (the QMSum repository's own): one meeting per JSON object, with
``meeting_transcripts`` = list of ``{speaker, content}``, ``general_query_list`` = list of
``{query, answer}``, ``specific_query_list`` = list of ``{query, answer,
relevant_text_span}`` where each span is a pair of turn indices (inclusive, strings or ints),
``topic_list`` (ignored) and, in JSONL files, ``meeting_id``. :func:`load_qmsum` reads a
``.jsonl`` file (one meeting per line, ``meeting_id`` required), a ``.json`` file (one
meeting; its ``meeting_id`` or else the file name) or a folder of ``.json`` files (the
repository's layout, e.g. ``val/*.json``, read sorted by name).

The document is the transcript, one line per turn, ``"<speaker>: <content>"``, joined by
newlines, so that line ``i`` is turn ``i`` of the spans (a newline inside a turn becomes a
space; empty turns are kept, but a transcript of only empty turns is a DataError). The text
is otherwise kept as transcribed, including the corpus's markers of disfluencies and
non-speech such as ``{vocalsound}``, ``{disfmarker}``, ``{gap}``, ``{pause}``, ``{comment}``
and ``{nonvocalsound}``, and its tokenized spacing (``"it 's"``, ``"ca n't"``).

Samples follow :mod:`longform_evals.data.reading_samples`: ids ``"<meeting_id>:general:<n>"``
and ``"<meeting_id>:specific:<n>"``, ``target`` and ``references`` the one reference answer,
``title`` ``""``, ``doc_kind`` ``"meeting"``, and the extras ``query_type`` (``"general"`` or
``"specific"``) and ``relevant_text_span`` (list of ``[start, end]`` int pairs; None for
general queries and for specific ones without spans).

The Hugging Face ``pszemraj/qmsum-cleaned`` dataset is not supported: it is derived from the
SCROLLS version, where the query and a re-punctuated transcript are joined in one ``input``
string, with no query type or spans, so it cannot be mapped back to this schema reliably.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from longform_evals.data.files import folder_files, source_kind
from longform_evals.data.ids import SampleIds
from longform_evals.data.jsonl import (
    DataError,
    check_size,
    has_words,
    jsonl_records,
    read_json,
    require_text,
)
from longform_evals.data.reading_samples import (
    ReadingDoc,
    ReadingQuestion,
    as_int,
    describe,
    reading_samples,
    require_mapping,
    snippet,
)

__all__ = ["QUERY_TYPES", "load_qmsum", "meeting_document"]

QUERY_TYPES: tuple[str, ...] = ("general", "specific")
"""The query types of QMSum, in the order their samples are emitted per meeting."""


def _check_query_types(query_types: Sequence[str] | str) -> tuple[str, ...]:
    wanted = (query_types,) if isinstance(query_types, str) else tuple(query_types)
    unknown = [t for t in wanted if t not in QUERY_TYPES]
    if not wanted or unknown:
        raise ValueError(
            f"query_types must be a non-empty selection of {QUERY_TYPES}, not {query_types!r}"
        )
    return wanted


def _json_meeting(path: Path) -> Mapping[str, Any]:
    return require_mapping(read_json(path, "QMSum meeting (.json file)"), str(path))


def _meetings(path: Path) -> Iterator[tuple[Mapping[str, Any], str, str | None]]:
    """(meeting record, where, fallback meeting id) for every meeting in ``path``."""
    if source_kind(path, "QMSum data (.jsonl, .json or a folder of .json)") == "folder":
        for file in folder_files(path, ".json", ".json meeting files"):
            yield _json_meeting(file), str(file), file.stem
    elif path.suffix == ".jsonl":
        for number, record in jsonl_records(path):
            yield record, f"{path}:{number}", None
    elif path.suffix == ".json":
        yield _json_meeting(path), str(path), path.stem
    else:
        raise DataError(f"unsupported QMSum source {path}: expected .jsonl, .json or a folder")


def meeting_document(turns: object, where: str = "meeting") -> str:
    """The transcript as text: one ``"<speaker>: <content>"`` line per turn.

    Args:
        turns: The meeting's ``meeting_transcripts``: a non-empty list of
            ``{speaker, content}`` objects.
        where: Names the meeting in error messages.

    Returns:
        The lines joined by newlines; line ``i`` is turn ``i``.

    Raises:
        DataError: If ``turns`` is not a non-empty list of such objects, or every turn's
            content is blank (nothing was said to read).
    """
    if not isinstance(turns, list) or not turns:
        raise DataError(f"{where}: field 'meeting_transcripts' must be a non-empty list")
    lines = []
    spoken = False
    for index, raw in enumerate(turns):
        turn_where = f"{where}: meeting_transcripts[{index}]"
        turn = require_mapping(raw, turn_where)
        speaker = require_text(turn, "speaker", turn_where)
        content = turn.get("content")
        if not isinstance(content, str):
            raise DataError(f"{turn_where}: field 'content' must be a string")
        spoken = spoken or has_words(content)
        # A line break inside a turn would shift the turn numbering that spans refer to.
        lines.append(" ".join(f"{speaker}: {content}".splitlines()))
    if not spoken:
        raise DataError(f"{where}: blank transcript: no turn's 'content' has any words")
    transcript = "\n".join(lines)
    check_size(transcript, f"{where}: field 'meeting_transcripts'")
    return transcript


def _spans(value: object, n_turns: int, where: str) -> list[list[int]]:
    if not isinstance(value, list):
        raise DataError(f"{where}: field 'relevant_text_span' must be a list of [start, end]")
    spans = []
    for index, span in enumerate(value):
        bounds = [as_int(b) for b in span] if isinstance(span, list) and len(span) == 2 else []
        if len(bounds) != 2 or bounds[0] is None or bounds[1] is None:
            raise DataError(
                f"{where}: relevant_text_span[{index}] = {describe(span)} is not [start, end]"
            )
        start, end = bounds[0], bounds[1]
        if not 0 <= start <= end < n_turns:
            raise DataError(
                f"{where}: relevant_text_span[{index}] = {describe(span)} is not a range of turns "
                f"within 0..{n_turns - 1}"
            )
        spans.append([start, end])
    return spans


def _query_list(record: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError(f"{where}: field {key!r} must be a list")
    return value


def _meeting_questions(
    record: Mapping[str, Any], where: str, meeting_id: str, wanted: tuple[str, ...]
) -> list[ReadingQuestion]:
    turns = record.get("meeting_transcripts")
    doc = ReadingDoc(meeting_id, "", meeting_document(turns, where), "meeting")
    n_turns = len(turns) if isinstance(turns, list) else 0
    queries = {t: _query_list(record, f"{t}_query_list", where) for t in QUERY_TYPES}
    if not any(queries.values()):
        raise DataError(f"{where}: meeting {meeting_id!r} has no general or specific queries")
    items = []
    for query_type in QUERY_TYPES:
        for index, raw in enumerate(queries[query_type]):
            query_where = f"{where}: {query_type}_query_list[{index}]"
            query = require_mapping(raw, query_where)
            text = require_text(query, "query", query_where)
            query_where = f"{query_where} {snippet(text)}"
            answer = require_text(query, "answer", query_where)
            spans = query.get("relevant_text_span")
            if spans is not None:
                spans = _spans(spans, n_turns, query_where)
            if query_type not in wanted:
                continue
            items.append(
                ReadingQuestion(
                    doc=doc,
                    sample_id=f"{meeting_id}:{query_type}:{index}",
                    question=text,
                    references=[answer],
                    target=[answer],
                    extras={"query_type": query_type, "relevant_text_span": spans},
                    where=where,
                    id_from="sample id (built from 'meeting_id', or the file name)",
                )
            )
    return items


def _meeting_id(record: Mapping[str, Any], where: str, fallback: str | None) -> str:
    value = record.get("meeting_id")
    if value is None and fallback is not None:
        return fallback
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
        return str(value)
    raise DataError(f"{where}: missing or empty field 'meeting_id' (a string)")


def load_qmsum(source: str | Path, query_types: Sequence[str] | str = QUERY_TYPES) -> list[Sample]:
    """Load QMSum queries as samples (format in the module docstring).

    Args:
        source: A ``.jsonl`` file (one meeting per line), a ``.json`` file (one meeting) or a
            folder of ``.json`` files.
        query_types: Which queries to keep: ``"general"``, ``"specific"`` or both. Queries of
            other types are still validated, and ids do not depend on this choice.

    Returns:
        One sample per query; per meeting (in reading order) general queries first, then
        specific ones, each in list order.

    Raises:
        DataError: If the source is missing, unreadable or keeps no query, or a meeting is
            malformed (no transcript, a turn without speaker, a query without text or answer,
            a bad span, a duplicate meeting id), naming file(:line) and field.
        ValueError: If ``query_types`` names an unknown type or nothing.
    """
    wanted = _check_query_types(query_types)
    path = Path(source)
    seen = SampleIds()
    items: list[ReadingQuestion] = []
    for record, where, fallback in _meetings(path):
        meeting_id = _meeting_id(record, where, fallback)
        seen.add(meeting_id, where, "meeting id")
        items.extend(_meeting_questions(record, where, meeting_id, wanted))
    if not items:
        raise DataError(f"{path}: holds no queries of type {' or '.join(wanted)}")
    return reading_samples("qmsum", items)
