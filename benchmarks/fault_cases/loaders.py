"""Data files as users and their pipelines write them, fed to every loader: keys repeated in a
record, sample ids that break Inspect's log, paths that are no plain file, fields of the wrong
type, ids used twice; and valid but unusual files (other line breaks, odd file names, a BOM,
long CSV cells, odd but printable ids) that must load.

Bad files must be refused with the package's own error naming the file (and the key, line or
kind of path: ``error``); valid ones must load (``loaded``). A loader that keeps a repeated
key's last value, an unprintable id or a wrong-typed title is ``silent``; a raw ``OSError`` is a
``crash``; a named pipe opened for reading waits for a writer for ever, a ``hang`` here within
its short timeout. Only loaders that exist before the work are called (and the task functions,
for ``-T data=...``), so the cases also run against the earlier revision.
"""

from __future__ import annotations

import functools
import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fault_cases._case import Case, refused

CLASS = "loaders"
DESCRIPTION = "loaders refuse repeated keys, bad ids, odd paths, wrong types; odd valid files load"

_WORDS = ["lamp", "keeper", "ledger", "harbour", "gull", "tide", "rope", "mast", "anchor"]


def _text(rng: random.Random, sentences: int = 3) -> str:
    out = []
    for _ in range(sentences):
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 7)))
        out.append(words.capitalize() + ".")
    return " ".join(out)


# -- the loaders, each with a valid record of its shape ---------------------------------------


def _loader(name: str) -> Callable[[Path], Any]:
    """The loader ``name`` (imported when a case runs, from whichever revision is on the path)."""
    if name in ("books", "summaries"):
        from longform_evals.data import books

        return books.load_books if name == "books" else books.load_summaries
    modules = {
        "booksum": ("longform_evals.data.booksum", "load_booksum"),
        "squality": ("longform_evals.data.squality", "load_squality"),
        "quality": ("longform_evals.data.quality", "load_quality"),
        "narrativeqa": ("longform_evals.data.narrativeqa", "load_narrativeqa"),
        "qmsum": ("longform_evals.data.qmsum", "load_qmsum"),
        "longformfact": ("longform_evals.data.longformfact", "load_longformfact"),
        "multidoc": ("longform_evals.data.multidoc", "load_multidoc"),
        "planted_answers": ("longform_evals.data.planted.answers", "load_planted_answers"),
        "planted_support": ("longform_evals.data.planted.support", "load_planted_support"),
        "judge_labels": ("longform_evals.data.labels.load", "load_judge_labels"),
    }
    module, function = modules[name]
    loaded: Callable[[Path], Any] = getattr(__import__(module, fromlist=[function]), function)
    return loaded


def _planted(kind: str, sample_id: str) -> dict[str, Any]:
    from longform_evals.data.planted import answers, support

    path = (
        answers.bundled_planted_answers()
        if kind == "answers"
        else support.bundled_planted_support()
    )
    first: dict[str, Any] = json.loads(path.read_text("utf-8").splitlines()[0])
    return {**first, "id": sample_id}


def _record(name: str, sample_id: str, text: str) -> dict[str, Any]:
    """A valid record of loader ``name`` with this id (where the loader reads one)."""
    response = {"worker_id": "w", "uid": "r", "response_text": "A summary."}
    shapes: dict[str, Callable[[], dict[str, Any]]] = {
        "books": lambda: {"id": sample_id, "title": "The Ledger", "text": text},
        "summaries": lambda: {"id": sample_id, "summary": text, "title": "The Ledger"},
        "booksum": lambda: {
            "doc_id": sample_id,
            "level": "chapter",
            "text": text,
            "summaries": ["A summary."],
        },
        "squality": lambda: {
            "metadata": {"passage_id": sample_id, "uid": "u"},
            "document": text,
            "questions": [{"question_text": "What happens?", "responses": [response]}],
        },
        "quality": lambda: {
            "article_id": sample_id,
            "article": text,
            "questions": [{"question": "Who?", "options": ["A", "B"], "gold_label": 1}],
        },
        "narrativeqa": lambda: {"question": "Who?", "answer": ["She."], "passage": text},
        "qmsum": lambda: {
            "meeting_id": sample_id,
            "general_query_list": [{"query": "Summarize.", "answer": "A summary."}],
            "meeting_transcripts": [{"speaker": "A", "content": text}],
        },
        "longformfact": lambda: {
            "subset": sample_id,
            "documents": [text],
            "summary": "A summary.",
            "faithfulness": 1,
        },
        "multidoc": lambda: {"id": sample_id, "documents": [text]},
        "planted_answers": lambda: _planted("answers", sample_id),
        "planted_support": lambda: _planted("support", sample_id),
        "judge_labels": lambda: {
            "subset": sample_id,
            "documents": [text],
            "summary": "A summary.",
            "faithfulness": 1,
        },
    }
    return shapes[name]()


ID_FIELDS = {
    "books": ("id",),
    "summaries": ("id",),
    "booksum": ("doc_id",),
    "squality": ("metadata", "passage_id"),
    "quality": ("article_id",),
    "qmsum": ("meeting_id",),
    "multidoc": ("id",),
    "planted_answers": ("id",),
    "planted_support": ("id",),
    "longformfact": ("subset",),
}
FILE_LOADERS = [
    "summaries",
    "booksum",
    "squality",
    "quality",
    "narrativeqa",
    "multidoc",
    "planted_answers",
    "planted_support",
]


def _lines(records: list[str]) -> str:
    return "".join(r + "\n" for r in records)


Build = Callable[[Path, random.Random], Path]
"""Writes a case's input into a folder (with the case's own seeded generator), returns its path."""


def _bad(name: str, loader: str, build: Build, *needles: str, timeout: float = 60) -> Case:
    """A bad input: ``build`` writes it and returns the path handed to ``loader``."""
    seed = sum(map(ord, name + loader))

    def run(folder: Path) -> str:
        path = build(folder, random.Random(seed))
        try:
            _loader(loader)(path)
        except Exception as exc:  # the package's own error, or a crash (re-raised)
            return refused(exc, *needles)
        return "silent"

    return Case(f"{loader}: {name}", run, timeout)


def _good(name: str, loader: str, build: Build, check: Callable[[Any], bool]) -> Case:
    """A valid input: it must load and ``check`` its result."""
    seed = sum(map(ord, name + loader))

    def run(folder: Path) -> str:
        path = build(folder, random.Random(seed))
        try:
            loaded = _loader(loader)(path)
        except ValueError:  # refused: a valid input is not read
            return "silent"
        return "loaded" if check(loaded) else "silent"

    return Case(f"{loader}: {name}", run)


# -- repeated keys --------------------------------------------------------------------------


def _repeated_key_cases(rng: random.Random) -> list[Case]:
    cases = []
    for loader in [*ID_FIELDS, "narrativeqa", "judge_labels"]:
        record = _record(loader, f"r{rng.randint(1, 999)}", _text(rng))
        key = rng.choice(sorted(record))
        first = json.dumps(record, ensure_ascii=False)
        # the repeat comes first, so the record's own (valid) value is the one json keeps
        spoiled = "{" + f"{json.dumps(key)}: {json.dumps(_text(rng, 1))}, " + first[1:]

        def build(folder: Path, r: random.Random, spoiled: str = spoiled) -> Path:
            path = folder / "records.jsonl"
            path.write_text(_lines([spoiled]), "utf-8")
            return path

        cases.append(_bad(f"key {key!r} twice", loader, build, "records.jsonl", key))
    nested = {"squality": "passage_id", "qmsum": "speaker", "quality": "gold_label"}
    for loader, key in nested.items():
        text = json.dumps(_record(loader, "n1", _text(rng)))
        at = text.index(f'"{key}"')
        value = '"zz"' if key != "gold_label" else "2"
        spoiled = text[:at] + f'"{key}": {value}, ' + text[at:]

        def build_nested(folder: Path, r: random.Random, spoiled: str = spoiled) -> Path:
            path = folder / "nested.jsonl"
            path.write_text(_lines([spoiled]), "utf-8")
            return path

        cases.append(_bad(f"nested key {key!r} twice", loader, build_nested, "nested.jsonl", key))

    def label_book(folder: Path, r: random.Random) -> Path:
        book = {"summary": "A b. C d.", "singles": [], "relations": []}
        body = json.dumps({"x.epub": book})[:-1] + ', "x.epub": ' + json.dumps(book) + "}"
        path = folder / "summary-sys.json"
        path.write_text(body, "utf-8")
        return path

    cases.append(
        _bad("a book named twice", "judge_labels", label_book, "summary-sys.json", "x.epub")
    )
    return cases


# -- ids --------------------------------------------------------------------------------------

_UNPRINTABLE = ["\x00", "\x07", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\u200b", "\u200e"]
_UNPRINTABLE += ["\u202e", "\u2028", "\u2029", "\ufeff", "\ue123", "\U000f0001", "\u0378"]


def _id_cases(rng: random.Random) -> list[Case]:
    cases = []
    for loader, id_path in ID_FIELDS.items():
        char = rng.choice(_UNPRINTABLE)
        long_id = "".join(rng.choice("abcdefgh") for _ in range(rng.choice([300, 5000, 100_000])))
        choices = [
            (f"id with U+{ord(char):04X}", f"ch{char}{rng.randint(1, 9)}"),
            (f"id of {len(long_id)} chars", long_id),
        ]
        for label, bad in [rng.choice(choices)]:

            def build(
                folder: Path,
                r: random.Random,
                bad: str = bad,
                loader: str = loader,
                id_path: tuple[str, ...] = id_path,
            ) -> Path:
                good = _record(loader, "fine", _text(r))
                spoiled = _record(loader, "x", _text(r))
                target = spoiled
                for key in id_path[:-1]:
                    target = target[key]
                target[id_path[-1]] = bad
                path = folder / "ids.jsonl"
                path.write_text(_lines([json.dumps(good), json.dumps(spoiled)]), "utf-8")
                return path

            cases.append(_bad(label, loader, build, "ids.jsonl:2"))
    for loader in ("planted_support", "multidoc", "booksum"):

        def twice(folder: Path, r: random.Random, loader: str = loader) -> Path:
            same = f"dup-{r.randint(1, 99)}"
            a = _record(loader, same, _text(r))
            b = json.loads(json.dumps(_record(loader, same, _text(r))).replace("The", "A"))
            if loader == "planted_support":
                b["title"] = "Another cluster"
            path = folder / "twice.jsonl"
            path.write_text(_lines([json.dumps(a), json.dumps(b)]), "utf-8")
            return path

        cases.append(_bad("one id on two records", loader, twice, "twice.jsonl:2"))
    return cases


# -- paths that are no plain file -----------------------------------------------------------


def _oddity(path: Path, kind: str) -> None:
    if kind == "broken link":
        path.symlink_to(path.parent / "gone" / "nowhere.jsonl")
    elif kind == "looping link":
        path.symlink_to(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "named pipe":
        os.mkfifo(path)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "unreadable":
        path.write_text('{"id": "a"}\n', "utf-8")
        path.chmod(0)
    elif kind == "not UTF-8":
        path.write_bytes(b'{"id": "caf\xe9", "text": "x"}\n')


_SAYS = {
    "broken link": "link",
    "looping link": "loop",
    "folder": "folder",
    "named pipe": "pipe",
    "empty": "empty",
    "unreadable": "permission",
    "not UTF-8": "UTF-8",
    "missing": "not found",
}


def _path_cases(rng: random.Random) -> list[Case]:
    kinds = list(_SAYS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        kinds.remove("unreadable")  # root reads any file: nothing to refuse
    cases = []
    for kind in kinds:
        loader = rng.choice(FILE_LOADERS)
        name = f"input {rng.randint(10, 99)}.jsonl"

        def build(folder: Path, r: random.Random, kind: str = kind, name: str = name) -> Path:
            path = folder / name
            if kind != "missing":
                _oddity(path, kind)
            return path

        timeout = 15 if kind == "named pipe" else 60
        cases.append(_bad(f"the path is {kind}", loader, build, name, _SAYS[kind], timeout=timeout))
    folders = {
        "books": ".txt",
        "qmsum": ".json",
        "longformfact": ".jsonl",
        "judge_labels": ".jsonl",
    }
    for loader, suffix in folders.items():
        for kind in rng.sample(["broken link", "looping link", "folder", "named pipe", "empty"], 2):
            entry = f"chapter {rng.randint(1, 9)}{suffix}"

            def build_folder(
                folder: Path,
                r: random.Random,
                kind: str = kind,
                entry: str = entry,
                loader: str = loader,
            ) -> Path:
                data = folder / "data"
                data.mkdir()
                if loader == "books":
                    (data / "a.txt").write_text("Title: A\n" + _text(r), "utf-8")
                _oddity(data / entry, kind)
                return data

            timeout = 15 if kind == "named pipe" else 60
            cases.append(
                _bad(
                    f"a folder entry that is {kind}",
                    loader,
                    build_folder,
                    entry,
                    _SAYS[kind],
                    timeout=timeout,
                )
            )
    return cases


# -- fields of the wrong type ---------------------------------------------------------------


def _type_cases(rng: random.Random) -> list[Case]:
    cases = []
    wrong: list[Any] = [["A", "B"], float("nan"), 1999, True, {"t": "x"}]
    for field in ("title", "text", "summary"):
        value = rng.choice(wrong)

        def build(folder: Path, r: random.Random, field: str = field, value: Any = value) -> Path:
            record = {"id": "s1", "summary": "A summary.", "title": "T", "text": _text(r)}
            record[field] = value
            path = folder / "summaries.jsonl"
            path.write_text(json.dumps(record) + "\n", "utf-8")
            return path

        cases.append(_bad(f"{field} = {value!r}", "summaries", build, "summaries.jsonl:1", field))

    def book_title(folder: Path, r: random.Random) -> Path:
        path = folder / "books.jsonl"
        path.write_text(json.dumps({"id": "b", "title": ["T"], "text": _text(r)}) + "\n", "utf-8")
        return path

    cases.append(_bad("title = a list", "books", book_title, "books.jsonl:1", "title"))
    return cases


# -- valid inputs that must load ------------------------------------------------------------


def _sample_ok(samples: Any) -> bool:
    return bool(samples) and all(s.metadata and s.metadata.get("document") for s in samples)


def _first_id_is(sample_id: str, samples: Any) -> bool:
    return bool(samples) and samples[0].id == sample_id


def _valid_cases(rng: random.Random) -> list[Case]:
    cases = []
    for label, brk in [
        ("U+2029", "\u2029"),
        ("U+2028", "\u2028"),
        ("CR LF", "\r\n"),
        ("CR", "\r"),
        ("NEL", "\x85"),
    ]:
        body = brk.join(_text(rng) for _ in range(3))

        def build(folder: Path, r: random.Random, body: str = body, brk: str = brk) -> Path:
            path = folder / "story.txt"
            path.write_bytes(("Title: The Ledger" + brk + body).encode("utf-8"))
            return path

        cases.append(
            _good(
                f"paragraphs separated by {label}",
                "books",
                build,
                lambda s: _sample_ok(s) and s[0].metadata["title"] == "The Ledger",
            )
        )
    names = [
        "my book.txt",
        "[v2] draft.txt",
        'it\'s "the" one.txt',
        "-dash.txt",
        "\u2039(\u2026)\u203a.txt",
    ]
    names += ["Ærø — ø.txt", "书 (1).txt", "#7, final.txt"]
    for name in rng.sample(names, 6):

        def build_named(folder: Path, r: random.Random, name: str = name) -> Path:
            path = folder / name
            path.write_bytes(b"\xef\xbb\xbfTitle: T\n" + _text(r).encode())
            return path

        cases.append(_good(f"file name {name!r}", "books", build_named, _sample_ok))
    # names Inspect's YAML reading of -T changes (a comma, " #", a leading "#" or "-")
    for name in ["my book, vol 2.txt", "notes #3.txt", "#7.txt", "- dash.txt", "key: value.txt"]:
        cases.append(_task_case(name, rng.randint(0, 2**31)))

    def bom_jsonl(folder: Path, r: random.Random) -> Path:
        path = folder / "bom.jsonl"
        path.write_bytes(
            b"\xef\xbb\xbf" + json.dumps({"id": "a", "documents": [_text(r)]}).encode() + b"\r\n"
        )
        return path

    cases.append(_good("a BOM and CR LF", "multidoc", bom_jsonl, bool))
    for sample_id in ["Ærø — (draft 2)", "क्\u200dष", "x" * 256]:

        def build_id(folder: Path, r: random.Random, sample_id: str = sample_id) -> Path:
            path = folder / "ids.jsonl"
            path.write_text(json.dumps({"id": sample_id, "documents": [_text(r)]}) + "\n", "utf-8")
            return path

        cases.append(
            _good(
                f"printable id of {len(sample_id)} chars",
                "multidoc",
                build_id,
                functools.partial(_first_id_is, sample_id),
            )
        )
    for size in (200_000, 450_000):
        cases.append(
            Case(
                f"longsciverify: a CSV cell of {size:,} characters",
                _csv_case(size, rng.randint(0, 2**31)),
            )
        )
    return cases


def _task_case(name: str, seed: int) -> Case:
    """``-T data=NAME``: the BooookScore task built as Inspect's command line would build it."""

    def run(folder: Path) -> str:
        from inspect_ai._util.config import parse_cli_args

        from longform_evals.tasks.booookscore import booookscore

        (folder / name).write_text("Title: T\n" + _text(random.Random(seed)), "utf-8")
        argument = f"data={name}"
        saved, cwd = sys.argv, os.getcwd()
        sys.argv = ["inspect", "eval", "longform_evals/booookscore", "-T", argument]
        os.chdir(folder)
        try:
            task = booookscore(**parse_cli_args([argument]))
        except ValueError:
            return "silent"
        finally:
            sys.argv = saved
            os.chdir(cwd)
        ids = [sample.id for sample in task.dataset]
        return "loaded" if ids == [name.removesuffix(".txt")] else "silent"

    return Case(f"task: -T data={name!r}", run)


def _csv_case(size: int, seed: int) -> Callable[[Path], str]:
    def run(folder: Path) -> str:
        rng = random.Random(seed)
        from longform_evals.data.labels.longsciverify import load_longsciverify

        systems = ["gencomparesumabs", "dancersum", "section_conditional"]
        header = ["id", *systems]
        for k in (1, 2, 3):
            header += [f"model_{k}_coherence", f"model_{k}_fluency"]
            header += [f"model_{k}_sent_{j}_factuality" for j in (1, 2, 3)]
        long_summary = " ".join(_text(rng, 1) for _ in range(size // 30))[:size]
        cells = {
            "id": "1",
            "gencomparesumabs": long_summary,
            "dancersum": "a b. c d.",
            "section_conditional": "e f.",
        }
        row = [cells.get(h, "1") for h in header]
        csv_text = ",".join(header) + "\n" + ",".join(f'"{c}"' for c in row) + "\n"
        (folder / "arxiv_reviewer_1.csv").write_text(csv_text, "utf-8")
        articles = [{"article_id": "1", "article_text": [_text(rng)]}]
        (folder / "arxiv_test.json").write_text(json.dumps(articles), "utf-8")
        try:
            labels = load_longsciverify(folder)
        except ValueError:
            return "silent"
        return (
            "loaded"
            if any(len((s.metadata or {})["summary"]) == len(long_summary) for s in labels.samples)
            else "silent"
        )

    return run


def cases() -> list[Case]:
    rng = random.Random(4901)
    return [
        *_repeated_key_cases(rng),
        *_id_cases(rng),
        *_path_cases(rng),
        *_type_cases(rng),
        *_valid_cases(rng),
    ]
