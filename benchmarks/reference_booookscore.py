"""BooookScore's official package and this suite side by side: same served model, same book,
temperature 0, one table per part and the issue's targets marked met or not.

The official code (`booookscore==0.1.3`) runs only in subprocesses of the reference env
(benchmarks/reference_env.py: the overlay, its shims and its plain-bug patches, printed at the
start), pointed at llama.cpp's server (`longform serve`'s `ServedModel`) through
`OPENAI_BASE_URL`; the suite runs in this process through `inspect_ai.eval` with the model
`openai-api/longform/<alias>` on the same server. Every measured run gets a fresh server, so no
run reads another's prompt cache.

Parts (`--parts`, default all three):

- chunks: `booookscore.chunk.process_books` against the suite's `chunk_text` on the bundled
  books at 2048 and 4096 tokens (as tests/benchmarks/test_reference_chunks.py does at 512 and
  2048): boundaries equal, or the first difference of each pair listed.
- summarizing: the official `Summarizer` (`hier`, `inc`) against the suite's
  `hierarchical_merge` and `incremental_update` on one book (`--book`): calls, prompt and output
  tokens, wall time; then all four summaries judged by one judge (the suite's `sentence` mode).
- scoring: on the bundled summary (and, with `--score-produced`, the summaries the summarizing
  part wrote), the official `Scorer` per sentence (v1) and batched (v2, 10 sentences a call)
  against the suite's `sentence` and `batched` modes, and the suite's `sentence` judge given the
  official per-sentence prompt (below). Sentences are aligned by their place in the summary
  (the official side splits with nltk punkt, the suite with its own splitter); sentences cut
  differently are counted apart, and every verdict that differs is listed with both answers.

Settings of the comparison, not bug fixes (the official code is run as shipped otherwise):

- temperature 0 for every official call: `APIClient.obtain_response` is wrapped to send 0
  whatever the code asks (Summarizer asks 0.5 and 1, the v2 scorer 0.1 after the patch); the
  requested temperatures are printed. The suite runs with `temperature=0`, and incremental
  updating with `compression_temperature=0`.
- bounded loops: at temperature 0 a judge repeats an answer, and the v1 scorer asks again
  until `validate_response` accepts one, forever; after `--max-attempts` answers (3, the
  suite's own bound) the sentence is counted unreadable, as the suite counts a parse failure,
  and left out of `get_score`'s file as the suite leaves it out of its score. An IndexError of
  `validate_response` (NOT_PATCHED in reference_env.py) counts as a rejected answer. A v2 batch
  whose tries all fail (the official code then raises) or whose items lack questions/types
  (get_score would raise KeyError) has its sentences counted unreadable. A request the server
  refuses stops the run (the official client would retry it forever).
- back-off sleeps are counted, not slept (`time.sleep(10)` after a failed v2 batch or an empty
  summary: waiting for a rate limit a local server does not have); they are printed, and the
  official wall time excludes them.
- the official scorer is timed around `get_annot` (its model calls), not its imports; the suite
  around `inspect_ai.eval`, Inspect's start-up included.
- prompt tokens come from the server's own usage of every call (both sides): sent, and
  processed (sent minus read from llama.cpp's prompt cache).

The official prompts are not in the package: `--official-prompts DIR` is a checkout's `prompts/`
folder of lilakk/BooookScore (get_annotations.txt, get_gpt4_annotations_v2.txt, the
get_summaries_hier/ and get_summaries_inc/ templates); nothing of them is kept in this repository.

The suite with the official per-sentence prompt: `load_prompt` lets `prompts_dir` replace
`booookscore/judge_sentence_quoted.txt` only with a template of the same fields (summary,
sentence, demonstrations), so the official text goes in with its two `{}` named and
`{demonstrations}` at its end, rendered empty: the task cannot empty the demonstrations, so this
run calls the suite's judge (`judge_summary`) with an empty demonstrations file in a small task
of its own. The judge then sees the official prompt, except that the suite shows the summary as
its sentences joined by spaces (no paragraph breaks); its retry prompt is the suite's.

    python benchmarks/reference_booookscore.py --official-prompts ~/BooookScore/prompts
    python benchmarks/reference_booookscore.py --parts chunks
    python benchmarks/reference_booookscore.py --official-prompts DIR --parts scoring --json a.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import ChatMessageUser, Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Solver, TaskState

from longform_evals.data.books import bundled_books_dir, load_books, load_summaries
from longform_evals.judges.coherence import JudgeSettings, judge_summary
from longform_evals.judges.text_check import check_text
from longform_evals.scorers.booookscore import booookscore_values
from longform_evals.solvers.settings import SummarySettings
from longform_evals.solvers.summarize.given import given_summary
from longform_evals.solvers.summarize.hierarchical import hierarchical_merge
from longform_evals.solvers.summarize.incremental import incremental_update
from longform_evals.text import chunk_text

if TYPE_CHECKING:
    import reference_env
else:

    def _sibling(name: str) -> ModuleType:
        # The sibling script, also when a test loads this file by path (benchmarks/ is no package).
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(
                name, Path(__file__).with_name(f"{name}.py")
            )
            assert spec is not None and spec.loader is not None
            sys.modules[name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(sys.modules[name])
        return sys.modules[name]

    reference_env = _sibling("reference_env")

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_SUMMARIES = (
    REPO_ROOT / "src" / "longform_evals" / "data" / "summaries" / "the_frost_hold.jsonl"
)
PARTS = ("chunks", "summarizing", "scoring")  # the order they run in
STRATEGIES = {"hierarchical": "hier", "incremental": "inc"}  # suite name: official method

# What each part reads from --official-prompts, by role: the accepted file names, first the
# one the package's code opens (score.py's __main__ opens get_annotations_v2.txt, the repository
# ships get_gpt4_annotations_v2.txt).
OFFICIAL_FILES: dict[str, tuple[str, ...]] = {
    "v1": ("get_annotations.txt",),
    "v2": ("get_annotations_v2.txt", "get_gpt4_annotations_v2.txt"),
    "hier/init": ("get_summaries_hier/init.txt",),
    "hier/merge": ("get_summaries_hier/merge.txt",),
    "hier/merge_context": ("get_summaries_hier/merge_context.txt",),
    "inc/init": ("get_summaries_inc/init.txt",),
    "inc/intermediate": ("get_summaries_inc/intermediate.txt",),
    "inc/compress": ("get_summaries_inc/compress.txt",),
}
PART_FILES: dict[str, tuple[str, ...]] = {
    "chunks": (),
    "summarizing": tuple(k for k in OFFICIAL_FILES if "/" in k),
    "scoring": ("v1", "v2"),
}


class OfficialPromptsError(SystemExit):
    """The official prompts are not given, or lack files a chosen part reads."""


def find_official_prompts(folder: Path | None, parts: Sequence[str]) -> dict[str, Path]:
    """The official prompt files the chosen parts read, by role.

    Raises:
        OfficialPromptsError: naming the folder and every missing file.
    """
    roles = [role for part in parts for role in PART_FILES[part]]
    if not roles:
        return {}
    wanted = ", ".join(OFFICIAL_FILES[role][-1] for role in roles)
    needing = [p for p in parts if PART_FILES[p]]
    if folder is None:
        raise OfficialPromptsError(
            f"--official-prompts DIR is needed for the parts {', '.join(needing)}: "
            "the prompts/ folder of a checkout of https://github.com/lilakk/BooookScore (the "
            f"package does not ship its prompts), holding {wanted}"
        )
    found, missing = {}, []
    for role in roles:
        paths = [folder / name for name in OFFICIAL_FILES[role]]
        hit = next((p for p in paths if p.is_file()), None)
        if hit is None:
            missing.append(" or ".join(str(p) for p in paths))
        else:
            found[role] = hit
    if missing:
        raise OfficialPromptsError(
            f"--official-prompts {folder} lacks {len(missing)} file(s) the parts "
            f"{', '.join(parts)} read: " + "; ".join(missing)
        )
    return found


# --- the official side: one measured run in the reference env --------------------------------

_DRIVER = r'''
import contextlib, io, json, math, os, sys, threading, time
from argparse import Namespace

cfg = json.load(open(sys.argv[1]))
os.environ["OPENAI_BASE_URL"] = cfg["base_url"]  # read by OpenAI() when the client is built

import booookscore.chunk as bchunk
import booookscore.score as bscore
import booookscore.summ as bsumm
import booookscore.utils as butils
from openai.resources.chat.completions import Completions

UNREAD = "<no readable answer>"
lock = threading.Lock()
out = {"calls": [], "requested_temperatures": {}, "sleeps": [], "guards": [], "error": None}


class GiveUp(BaseException):
    """Ends a loop of the official code that would not end (its `except Exception` lets it by)."""


_create = Completions.create
def create(self, *args, **kwargs):  # the server's usage of every call
    start = time.perf_counter()
    response = _create(self, *args, **kwargs)
    usage = response.usage
    details = getattr(usage, "prompt_tokens_details", None)
    call = {
        "prompt_tokens": usage.prompt_tokens,
        "cached_tokens": (getattr(details, "cached_tokens", 0) or 0) if details else 0,
        "completion_tokens": usage.completion_tokens,
        "finish_reason": response.choices[0].finish_reason,
        "seconds": time.perf_counter() - start,
    }
    with lock:
        out["calls"].append(call)
        with open("calls.jsonl", "a") as log:  # progress, and what a run cut short made
            log.write(json.dumps(call) + "\n")
    return response
Completions.create = create

_obtain = butils.APIClient.obtain_response
def obtain_response(self, prompt, max_tokens, temperature):  # the benchmark's temperature
    with lock:
        asked = out["requested_temperatures"]
        asked[str(temperature)] = asked.get(str(temperature), 0) + 1
    chosen = temperature if cfg["temperature"] is None else cfg["temperature"]
    return _obtain(self, prompt, max_tokens=max_tokens, temperature=chosen)
butils.APIClient.obtain_response = obtain_response

_send = butils.OpenAIClient.send_request
def send_request(self, prompt, max_tokens, temperature):
    try:
        return _send(self, prompt, max_tokens, temperature)
    except Exception as exc:
        raise GiveUp(f"the server refused a request ({exc!r}); the client retries forever") from exc
butils.OpenAIClient.send_request = send_request


class Clock:
    """`time` for the official modules: sleeps counted, not slept."""
    def __getattr__(self, name):
        return getattr(time, name)
    def sleep(self, seconds):
        with lock:
            out["sleeps"].append(seconds)
            if len(out["sleeps"]) > cfg["max_sleeps"]:
                raise GiveUp(f"over {cfg['max_sleeps']} back-off sleeps: the loop does not end")
bscore.time = Clock()
bsumm.time = Clock()


def record_v1(verdicts):
    """v1: every answer through validate_response, at most max_attempts per sentence."""
    split, validate = bscore.sent_tokenize, bscore.Scorer.validate_response
    sentences, state = [], {"answers": [], "problems": []}
    def sent_tokenize(text):
        sentences[:] = split(text)
        return list(sentences)
    def validate_response(self, response):
        state["answers"].append(response)
        said = io.StringIO()
        try:
            with contextlib.redirect_stdout(said):
                valid, questions, types = validate(self, response)
            problem = said.getvalue().strip() or "rejected"
        except IndexError:
            valid, questions, types = False, [], []
            problem = "IndexError: fewer than two lines hold 'Questions: ' or 'Types: '"
        if not valid:
            state["problems"].append(problem)
            if len(state["answers"]) < cfg["max_attempts"]:
                return False, [], []
            questions, types = UNREAD, None
            out["guards"].append(f"v1: {cfg['max_attempts']} answers rejected, left unread")
        read = questions != UNREAD
        verdicts.append({
            "sentence": sentences[len(verdicts)], "parsed": read,
            "flagged": read and bool(questions or types),
            "types": types if read and isinstance(types, list) else [],
            "answers": state["answers"], "problems": state["problems"],
        })
        state.update(answers=[], problems=[])
        return True, questions, types
    bscore.sent_tokenize = sent_tokenize
    bscore.Scorer.validate_response = validate_response


def record_v2(verdicts):
    """v2: each batch's answers; a batch that fails or lacks questions/types is unreadable."""
    calc, parse = bscore.Scorer.calc_instance, bscore.Scorer.parse_response
    local = threading.local()
    def parse_response(self, response):
        local.raw.append(response)
        return parse(self, response)
    def calc_instance(self, summary, sentences, template, num_retries, model_name):
        local.raw, problem = [], None
        try:
            answers = calc(self, summary, sentences, template, num_retries, model_name)
        except Exception as exc:  # every try failed (answers unbound), or a count mismatch
            problem = f"{type(exc).__name__}: {exc}"
            out["guards"].append(f"v2: a batch failed ({type(exc).__name__}), left unread")
            answers = [{"sentence": s} for s in sentences]
        fixed = []
        for answer, sentence in zip(answers, sentences):
            read = problem is None and "questions" in answer and "types" in answer
            if not read:
                answer = {"sentence": sentence, "questions": UNREAD, "types": None}
            fixed.append(answer)
            types = answer["types"] if read else None
            with lock:
                verdicts.append({
                    "sentence": sentence, "parsed": read,
                    "flagged": read and bool(answer["questions"] or answer["types"]),
                    "types": [t.strip() for t in types.split(",")] if isinstance(types, str)
                    else list(types) if isinstance(types, list) else [],
                    "answers": list(local.raw),
                    "problems": [] if read else [problem or "an item lacks questions or types"],
                })
        return fixed
    bscore.Scorer.calc_instance = calc_instance
    bscore.Scorer.parse_response = parse_response


def score():
    verdicts = []
    (record_v2 if cfg["v2"] else record_v1)(verdicts)
    json.dump({cfg["book"]: cfg["summary"]}, open("summaries.json", "w"))
    def scorer(annot_path):
        return bscore.Scorer(model=cfg["model"], api="openai", api_key=cfg["key_path"],
                             summ_path="summaries.json", annot_path=annot_path,
                             template_path=cfg["template"], v2=cfg["v2"],
                             batch_size=cfg["batch_size"])
    out["punkt"] = bscore.sent_tokenize(cfg["summary"])  # the order of the sentences
    start = time.perf_counter()
    try:
        scorer("annotations.json").get_annot()
    finally:
        out["seconds"] = time.perf_counter() - start
        out["verdicts"] = verdicts
    annots = json.load(open("annotations.json"))
    read = {b: {s: a for s, a in v.items() if a["questions"] != UNREAD} for b, v in annots.items()}
    out["booookscore"] = math.nan
    if all(read.values()):  # get_score divides by zero on a book without a sentence
        json.dump(read, open("annotations-read.json", "w"))
        out["booookscore"] = 100 * float(scorer("annotations-read.json").get_score())


def guard_compress():
    """compress() ends in min() over the candidates that passed its word-count check; with none
    it raises ValueError (a plain bug, not patched in reference_env.py). Kept instead: the
    summary uncompressed, as its own "COMPRESSION FAILED ... SKIPPING" message intends."""
    compress = bsumm.Summarizer.compress
    def guarded(self, response, summary, *args):
        try:
            return compress(self, response, summary, *args)
        except ValueError as exc:
            out["guards"].append(f"compress: {exc}; summary kept uncompressed")
            return summary, response, 6, 1
    bsumm.Summarizer.compress = guarded


def summarize():
    guard_compress()
    bchunk.args = Namespace(include_empty_lines=False)  # what chunk.py's __main__ sets
    chunks = bchunk.process_books({cfg["book"]: cfg["text"]}, cfg["chunk_size"], "chunks.pkl")
    out["chunks"] = len(chunks[cfg["book"]])
    summarizer = bsumm.Summarizer(cfg["model"], "openai", cfg["key_path"], "summaries.json",
                                  cfg["method"], cfg["chunk_size"], cfg["context_window"],
                                  cfg["max_summary_tokens"])
    start = time.perf_counter()
    try:
        summarizer.get_summaries("chunks.pkl")
    finally:
        out["seconds"] = time.perf_counter() - start
    done = json.load(open("summaries.json"))[cfg["book"]]
    if cfg["method"] == "hier":
        out["summary"] = done["final_summary"]
        out["steps"] = {f"level {k}": len(v) for k, v in done["summaries_dict"].items()}
    else:
        out["summary"] = done[-1]
        out["steps"] = {"chunk summaries": len(done)}


try:
    summarize() if cfg["mode"] == "summarize" else score()
except GiveUp as exc:
    out["error"] = str(exc)
except Exception:  # a crash of the official code: reported with what was measured
    import traceback
    out["error"] = traceback.format_exc()[-800:]
json.dump(out, open(sys.argv[2], "w"))
'''


@dataclass(frozen=True)
class Endpoint:
    """The served model both sides talk to."""

    base_url: str  # ends in /v1
    alias: str

    def inspect_model(self) -> Model:
        # The documented route (docs/running.md), one Model per server: memoize would keep the
        # first server's address.
        os.environ["LONGFORM_BASE_URL"] = self.base_url
        os.environ["LONGFORM_API_KEY"] = "local"
        return get_model(
            f"openai-api/longform/{self.alias}",
            base_url=self.base_url,
            api_key="local",
            memoize=False,
        )


@dataclass(frozen=True)
class Usage:
    """Model calls and the server's token counts."""

    calls: int = 0
    prompt_tokens: int = 0  # sent
    processed_tokens: int = 0  # sent minus read from the server's prompt cache
    output_tokens: int = 0

    @classmethod
    def of_official(cls, calls: Sequence[Mapping[str, Any]]) -> Usage:
        return cls(
            calls=len(calls),
            prompt_tokens=sum(c["prompt_tokens"] for c in calls),
            processed_tokens=sum(c["prompt_tokens"] - c["cached_tokens"] for c in calls),
            output_tokens=sum(c["completion_tokens"] for c in calls),
        )

    @classmethod
    def of_log(cls, log: EvalLog) -> Usage:
        usages = log.stats.model_usage.values()
        calls = sum(isinstance(e, ModelEvent) for s in log.samples or [] for e in s.events or [])
        return cls(
            calls=calls,
            prompt_tokens=sum(u.input_tokens + (u.input_tokens_cache_read or 0) for u in usages),
            processed_tokens=sum(u.input_tokens for u in usages),
            output_tokens=sum(u.output_tokens for u in usages),
        )


def official_run(
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    work: Path,
    settings: Mapping[str, Any],
    prompts: Mapping[str, Path] | None = None,
    timeout: float = 1800,
) -> dict[str, Any]:
    """One run of the driver above in `work` (its cwd, where `prompts/` is laid out as the
    package opens it); returns what it wrote."""
    work.mkdir(parents=True, exist_ok=True)
    for role, path in (prompts or {}).items():
        if "/" in role:  # Summarizer opens prompts/get_summaries_*/... relative to its cwd
            target = work / "prompts" / OFFICIAL_FILES[role][0]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    key = work / "key.txt"  # APIClient wants a key file; the local server asks no key
    key.write_text("local")
    config = {
        "base_url": endpoint.base_url,
        "model": endpoint.alias,
        "key_path": str(key),
        "temperature": 0.0,
        "max_attempts": 3,
        "max_sleeps": 50,
        "batch_size": 10,
        **settings,
    }
    (work / "config.json").write_text(json.dumps(config))
    start = time.perf_counter()
    try:
        env.run(
            _DRIVER,
            args=[str(work / "config.json"), str(work / "out.json")],
            cwd=work,
            timeout=timeout,
        )
    except (subprocess.TimeoutExpired, reference_env.ReferenceEnvError) as exc:
        # A run cut short or crashed still reports the calls it made.
        log = work / "calls.jsonl"
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []
        why = (
            f"stopped after {timeout:.0f} s"
            if isinstance(exc, subprocess.TimeoutExpired)
            else str(exc)[-600:]
        )
        return {
            "calls": calls,
            "requested_temperatures": {},
            "sleeps": [],
            "verdicts": [],
            "seconds": time.perf_counter() - start,
            "error": why,
        }
    result: dict[str, Any] = json.loads((work / "out.json").read_text())
    return result


# --- verdicts, sentences and their alignment --------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One judged sentence, as one side read its judge."""

    sentence: str
    parsed: bool
    flagged: bool
    types: tuple[str, ...] = ()
    answer: str = ""  # the judge's first answer, when known
    problem: str = ""  # why the first unreadable answer was not read

    @property
    def label(self) -> str:
        if not self.parsed:
            return "unreadable"
        return f"flagged ({', '.join(self.types)})" if self.flagged else "clean"


def _flat(text: str) -> str:
    return " ".join(text.split())


def sentence_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    """Where each sentence is in `text` with whitespace runs made one space (the splitters keep
    or trim line breaks differently), each found after the previous one."""
    flat, at, spans = _flat(text), 0, []
    for sentence in sentences:
        piece = _flat(sentence)
        start = flat.find(piece, at)
        if start < 0:
            raise ValueError(f"{piece[:60]!r} is not in the summary after offset {at}")
        spans.append((start, start + len(piece)))
        at = start + len(piece)
    return spans


@dataclass(frozen=True)
class Group:
    """Official and suite sentences that overlap: one of each, the same text, when the two
    splitters agree."""

    official: tuple[int, ...]
    suite: tuple[int, ...]
    same: bool


def align(text: str, official: Sequence[str], suite: Sequence[str]) -> list[Group]:
    """The sentences of both splits grouped by overlap, in order of the summary."""
    items = sorted(
        [(s, e, 0, i) for i, (s, e) in enumerate(sentence_spans(text, official))]
        + [(s, e, 1, j) for j, (s, e) in enumerate(sentence_spans(text, suite))]
    )
    groups: list[tuple[list[int], list[int]]] = []
    end = -1
    for start, stop, side, index in items:
        if not groups or start >= end:
            groups.append(([], []))
        groups[-1][side].append(index)
        end = max(end, stop)
    return [
        Group(
            tuple(o),
            tuple(u),
            len(o) == len(u) == 1 and _flat(official[o[0]]) == _flat(suite[u[0]]),
        )
        for o, u in groups
    ]


@dataclass(frozen=True)
class Disagreement:
    number: int  # 1-based, among the sentences split alike
    sentence: str
    official: str  # label
    suite: str
    cause: str


@dataclass
class Agreement:
    """Per-sentence verdicts of two runs on one summary."""

    pair: str
    same_prompt: bool  # the official prompt on both sides
    sentences: int = 0  # split the same way by both
    split_differs: int = 0  # groups the splitters cut differently
    both_read: int = 0
    agree: int = 0
    same_answers: int = 0  # the judge's first answers byte-identical (when both are known)
    disagreements: list[Disagreement] = field(default_factory=list)
    split_notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Agreeing sentences over all sentences split alike (an unreadable one disagrees)."""
        return self.agree / self.sentences if self.sentences else math.nan

    @property
    def rate_read(self) -> float:
        return self.agree / self.both_read if self.both_read else math.nan

    def by_cause(self) -> list[str]:
        """One line per cause: how many sentences, which, and why."""
        causes: dict[str, list[Disagreement]] = {}
        for d in self.disagreements:
            causes.setdefault(f"official {d.official}, suite {d.suite}: {d.cause}", []).append(d)
        return [
            f"{len(ds)} sentence(s) #{','.join(str(d.number) for d in ds)}: {cause}"
            for cause, ds in causes.items()
        ]


def _cause(a: Verdict, b: Verdict, same_prompt: bool) -> str:
    if not a.parsed and not b.parsed:
        return f"neither side read its answer (official: {a.problem}; suite: {b.problem})"
    if not a.parsed:
        return f"the official code could not read {a.answer[:80]!r} ({a.problem})"
    if not b.parsed:
        return f"the suite could not read {b.answer[:80]!r} ({b.problem})"
    prompts = (
        "the same official prompt (a difference is the judge's, or a retry's: the suite asks "
        "again with its own retry message)"
        if same_prompt
        else "different prompts (the suite's own words and demonstrations)"
    )
    return f"{prompts}; the judge answered official {a.answer[:80]!r}, suite {b.answer[:80]!r}"


def compare(
    pair: str,
    text: str,
    official: Sequence[Verdict],
    suite: Sequence[Verdict],
    same_prompt: bool = False,
) -> Agreement:
    """Verdict agreement over sentences both sides split alike; the others listed apart."""
    result = Agreement(pair, same_prompt)
    for group in align(text, [v.sentence for v in official], [v.sentence for v in suite]):
        if not group.same:
            result.split_differs += 1
            mine = [official[i] for i in group.official]
            theirs = [suite[j] for j in group.suite]
            result.split_notes.append(
                f"{len(mine)} official / {len(theirs)} suite sentence(s) "
                f"{[v.sentence[:50] for v in mine]} vs {[v.sentence[:50] for v in theirs]}: "
                f"official {[v.label for v in mine]}, suite {[v.label for v in theirs]}"
            )
            continue
        a, b = official[group.official[0]], suite[group.suite[0]]
        result.sentences += 1
        if a.answer and b.answer and a.answer.strip() == b.answer.strip():
            result.same_answers += 1
        if a.parsed and b.parsed:
            result.both_read += 1
            if a.flagged == b.flagged:
                result.agree += 1
                continue
        result.disagreements.append(
            Disagreement(result.sentences, a.sentence, a.label, b.label, _cause(a, b, same_prompt))
        )
    return result


def official_verdicts(out: Mapping[str, Any]) -> list[Verdict]:
    """The official run's verdicts in the order of its punkt sentences."""
    made = [
        Verdict(
            v["sentence"],
            v["parsed"],
            v["flagged"],
            tuple(v["types"]),
            (v["answers"] or [""])[0],
            (v["problems"] or [""])[0],
        )
        for v in out["verdicts"]
    ]
    punkt = out.get("punkt")
    if not punkt or [v.sentence for v in made] == punkt:
        return made
    # v2 judges two batches at once (ThreadPool(2)) and keys its answers by sentence text.
    by_text = {v.sentence: v for v in made}
    return [by_text.get(s, Verdict(s, False, False, problem="never asked")) for s in punkt]


# --- the suite's side --------------------------------------------------------------------------


def _prompt_of(event: ModelEvent) -> str:
    users = [m for m in event.input if isinstance(m, ChatMessageUser)]
    return users[0].text if users else ""


def first_answers(sample: EvalSample, sentence_of: Callable[[str], str | None]) -> dict[str, str]:
    """The judge's first answer about each sentence, keyed by the sentence its prompt asks about."""
    found: dict[str, str] = {}
    # Logs keep long prompts as `attachment://` references.
    for event in resolve_sample_attachments(sample).events or []:
        if isinstance(event, ModelEvent):
            sentence = sentence_of(_prompt_of(event))
            if sentence is not None and sentence not in found:
                found[sentence] = event.output.completion
    return found


def quoted_sentence(prompt: str) -> str | None:
    """The sentence a `quoted` sentence-mode prompt asks about."""
    marker = "Sentence to judge:\n<sentence>\n"
    at = prompt.rfind(marker)
    if at < 0:
        return None
    start = at + len(marker)
    return prompt[start : prompt.index("\n</sentence>", start)]


def suite_verdicts(
    sample: EvalSample, score_name: str, sentence_of: Callable[[str], str | None] | None
) -> list[Verdict]:
    score = (sample.scores or {})[score_name]
    answers = first_answers(sample, sentence_of) if sentence_of else {}
    return [
        Verdict(
            v["sentence"],
            bool(v["parsed"]),
            bool(v["confused"]),
            tuple(v["types"]),
            answers.get(v["sentence"], ""),
            (v["problems"] or [""])[0],
        )
        for v in (score.metadata or {})["sentences"]
    ]


def official_prompt_folder(
    template: str, folder: Path, batched: bool = False
) -> tuple[Path, Path, Callable[[str], str | None] | None]:
    """An official prompt as a `prompts_dir` override of the suite's template, an empty
    demonstrations file, and how to find a prompt's sentence (per-sentence prompt only).

    The per-sentence template has two positional `{}` (summary, sentence); the batched one is
    already in `str.format` form with `{summary}` and `{sentences}` (numbered "1. ..." as the
    suite numbers them). The suite's fields are named and must all be there, so
    `{demonstrations}` goes at the end and is rendered empty.
    """
    (folder / "booookscore").mkdir(parents=True, exist_ok=True)
    demonstrations = folder / "no-demonstrations.json"
    demonstrations.write_text(json.dumps({"demonstrations": []}))
    if batched:
        if template.count("{sentences}") != 1 or template.count("{summary}") != 1:
            raise ValueError("the official batched prompt needs one {summary} and one {sentences}")
        text = template.replace("{sentences}", "{numbered_sentences}") + "{demonstrations}"
        (folder / "booookscore" / "judge_batch.txt").write_text(text, encoding="utf-8")
        return folder, demonstrations, None
    pieces = template.split("{}")
    if len(pieces) != 3:
        raise ValueError(f"the official per-sentence prompt has {len(pieces) - 1} '{{}}', not 2")
    escaped = [p.replace("{", "{{").replace("}", "}}") for p in pieces]
    text = escaped[0] + "{summary}" + escaped[1] + "{sentence}" + escaped[2] + "{demonstrations}"
    (folder / "booookscore" / "judge_sentence_quoted.txt").write_text(text, encoding="utf-8")
    before, after = pieces[1], pieces[2]

    def sentence_of(prompt: str) -> str | None:
        at = prompt.rfind(before)
        if at < 0 or not prompt.endswith(after):
            return None
        return prompt[at + len(before) : len(prompt) - len(after)]

    return folder, demonstrations, sentence_of


@scorer(metrics=[mean()])
def official_prompt_judge(
    prompts_dir: str,
    demonstrations: str,
    max_attempts: int = 3,
    mode: str = "sentence",
    batch_size: int = 10,
) -> Scorer:
    """The suite's judge (`judge_summary`, sentence or batched mode) with an official prompt
    and no demonstrations; values as the booookscore scorer's, verdicts in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        check = check_text(state.output.completion, judged=True)
        settings = JudgeSettings(
            mode="batched" if mode == "batched" else "sentence",
            batch_size=batch_size,
            max_attempts=max_attempts,
            cache=False,
            prompts_dir=prompts_dir,
            demonstrations=demonstrations,
        )
        # the summary as written, as the official code formats it into its prompt
        verdicts, calls = await judge_summary(
            get_model(role="grader"), check.sentences, settings, text=state.output.completion
        )
        return Score(
            value=booookscore_values(verdicts, calls),
            metadata={"sentences": [v.as_dict() for v in verdicts]},
        )

    return score


def _eval(task: str | Task, endpoint: Endpoint, work: Path, **kwargs: Any) -> tuple[EvalLog, float]:
    model = endpoint.inspect_model()
    start = time.perf_counter()
    [log] = inspect_eval(
        task,
        model=model,
        model_roles={"grader": model},
        log_dir=str(work / "logs"),
        display="none",
        **kwargs,
    )
    seconds = time.perf_counter() - start
    if log.status != "success":
        raise RuntimeError(f"the suite's run failed: {log.error}")
    return log, seconds


def _summaries_file(summaries: Mapping[str, str], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps({"id": k, "summary": v}) + "\n" for k, v in summaries.items()),
        encoding="utf-8",
    )
    return path


# --- one scoring run, either side ---------------------------------------------------------------


@dataclass
class Run:
    """One measured run over one summary (scoring) or one book (summarizing)."""

    name: str
    seconds: float
    usage: Usage
    booookscore: float = math.nan
    verdicts: list[Verdict] = field(default_factory=list)
    summary: str = ""
    notes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def read(self) -> int:
        return sum(v.parsed for v in self.verdicts)

    @property
    def flagged(self) -> int:
        return sum(v.parsed and v.flagged for v in self.verdicts)


@dataclass(frozen=True)
class Options:
    """The run's settings (from the command line)."""

    model: str = "qwen2.5-coder-0.5b"
    book: str = "the_frost_hold"
    chunk_size: int = 2048
    context_window: int = 8192
    max_summary_tokens: int = 900
    batch_size: int = 10
    max_attempts: int = 3
    parallel: int = 1
    chunk_sizes: tuple[int, ...] = (2048, 4096)


@contextmanager
def served(options: Options) -> Iterator[Endpoint]:
    """A fresh server (cold prompt cache) for one run."""
    from longform_evals.models.serve import ServedModel, ServeSettings

    server = ServedModel(ServeSettings(options.model, port=0, n_parallel=options.parallel))
    try:
        yield Endpoint(server.base_url, server.alias)
    finally:
        server.stop()


def run_official_scorer(
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    options: Options,
    template: Path,
    summary_id: str,
    summary: str,
    v2: bool,
    work: Path,
) -> Run:
    out = official_run(
        env,
        endpoint,
        work,
        {
            "mode": "score",
            "v2": v2,
            "template": str(template),
            "book": summary_id,
            "summary": summary,
            "batch_size": options.batch_size,
            "max_attempts": options.max_attempts,
        },
    )
    return official_scoring_run(out, v2)


def official_scoring_run(out: Mapping[str, Any], v2: bool) -> Run:
    """The Run of what the driver wrote for a scoring run."""
    return Run(
        name="official v2 (batched)" if v2 else "official v1 (per sentence)",
        seconds=out.get("seconds", math.nan),
        usage=Usage.of_official(out["calls"]),
        booookscore=out.get("booookscore", math.nan),
        verdicts=official_verdicts(out),
        notes={
            "requested_temperatures": out["requested_temperatures"],
            "sleeps_skipped_s": sum(out["sleeps"]),
            "guards": dict(Counter(out.get("guards", []))),
        },
        error=out["error"],
    )


def run_suite_scorer(
    endpoint: Endpoint,
    options: Options,
    summary_id: str,
    summary: str,
    mode: str,
    work: Path,
    official_template: str | None = None,
) -> Run:
    data = _summaries_file({summary_id: summary}, work / "summary.jsonl")
    if official_template is not None:
        batched = mode == "batched"
        folder, demos, finder = official_prompt_folder(official_template, work / "prompts", batched)
        judge = official_prompt_judge(
            str(folder), str(demos), options.max_attempts, mode, options.batch_size
        )
        task: str | Task = Task(
            dataset=MemoryDataset(load_summaries(data)), solver=given_summary(), scorer=judge
        )
        log, seconds = _eval(task, endpoint, work, max_connections=options.parallel)
        score_name, name = "official_prompt_judge", f"suite {mode}, official prompt"
    else:
        batched = mode == "batched"
        log, seconds = _eval(
            "longform_evals/booookscore",
            endpoint,
            work,
            max_connections=options.parallel,
            task_args={
                "score_only": True,
                "data": str(data),
                "judge_mode": mode,
                "judge_batch": options.batch_size if batched else 0,
                "judge_cache": False,
                "judge_readings": False,  # the official package judges sentences as written
            },
        )
        score_name, name = "booookscore", f"suite {mode}"
        finder = None if batched else quoted_sentence
    return suite_scoring_run(log, seconds, name, score_name, finder)


def suite_scoring_run(
    log: EvalLog,
    seconds: float,
    name: str,
    score_name: str,
    finder: Callable[[str], str | None] | None,
) -> Run:
    """The Run of a suite scoring log (one summary)."""
    [sample] = log.samples or []
    value = (sample.scores or {})[score_name].value
    assert isinstance(value, dict)
    return Run(
        name=name,
        seconds=seconds,
        usage=Usage.of_log(log),
        booookscore=float(value["booookscore"]),
        verdicts=suite_verdicts(sample, score_name, finder),
    )


@dataclass
class SummaryScoring:
    """Every scoring run on one summary and the agreements of the pairs."""

    summary_id: str
    runs: list[Run]
    agreements: list[Agreement]


# Pairs compared: (official run, suite run, same prompt on both sides).
PAIRS = (
    ("official v1 (per sentence)", "suite sentence", False),
    ("official v1 (per sentence)", "suite sentence, official prompt", True),
    ("official v2 (batched)", "suite batched", False),
    ("official v2 (batched)", "suite batched, official prompt", True),
)


SCORING_STEPS = (
    "official v1",
    "suite sentence",
    "suite official prompt",
    "official v2",
    "suite batched",
    "suite batched official prompt",
)


def scoring_step(
    step: str,
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    options: Options,
    prompts: Mapping[str, Path],
    summary_id: str,
    summary: str,
    work: Path,
) -> Run:
    """One of SCORING_STEPS on one summary."""
    if step.startswith("official"):
        v2 = step == "official v2"
        template = prompts["v2" if v2 else "v1"]
        return run_official_scorer(env, endpoint, options, template, summary_id, summary, v2, work)
    if step in ("suite official prompt", "suite batched official prompt"):
        batched = step.startswith("suite batched")
        official = prompts["v2" if batched else "v1"].read_text(encoding="utf-8")
        mode = "batched" if batched else "sentence"
        return run_suite_scorer(
            endpoint, options, summary_id, summary, mode, work, official_template=official
        )
    return run_suite_scorer(endpoint, options, summary_id, summary, step.split()[-1], work)


def scoring_part(
    env: reference_env.ReferenceEnv,
    options: Options,
    prompts: Mapping[str, Path],
    summaries: Mapping[str, str],
    work: Path,
    log: Callable[[str], None] = print,
) -> list[SummaryScoring]:
    results = []
    for summary_id, summary in summaries.items():
        runs: dict[str, Run] = {}
        for step in SCORING_STEPS:
            log(f"[scoring {summary_id}] {step} ...")
            where = work / "scoring" / summary_id / step.replace(" ", "-")
            with served(options) as endpoint:
                run = scoring_step(
                    step, env, endpoint, options, prompts, summary_id, summary, where
                )
            runs[run.name] = run
            log(f"[scoring {summary_id}] {step}: {run.seconds:.1f} s, {run.usage.calls} calls")
        agreements = [
            compare(f"{a} / {b}", summary, runs[a].verdicts, runs[b].verdicts, same)
            for a, b, same in PAIRS
        ]
        results.append(SummaryScoring(summary_id, list(runs.values()), agreements))
    return results


# --- summarizing -------------------------------------------------------------------------------


def run_official_summarizer(
    env: reference_env.ReferenceEnv,
    endpoint: Endpoint,
    options: Options,
    prompts: Mapping[str, Path],
    text: str,
    strategy: str,
    work: Path,
) -> Run:
    out = official_run(
        env,
        endpoint,
        work,
        {
            "mode": "summarize",
            "method": STRATEGIES[strategy],
            "book": options.book,
            "text": text,
            "chunk_size": options.chunk_size,
            "context_window": options.context_window,
            "max_summary_tokens": options.max_summary_tokens,
        },
        prompts,
    )
    return Run(
        name=f"official {strategy}",
        seconds=out.get("seconds", math.nan),
        usage=Usage.of_official(out["calls"]),
        summary=out.get("summary", ""),
        notes={
            "requested_temperatures": out["requested_temperatures"],
            "sleeps_skipped_s": sum(out["sleeps"]),
            "guards": dict(Counter(out.get("guards", []))),
            "chunks": out.get("chunks"),
            "steps": out.get("steps"),
        },
        error=out["error"],
    )


def run_suite_summarizer(
    endpoint: Endpoint, options: Options, book: Path, strategy: str, work: Path
) -> Run:
    settings = SummarySettings(
        chunk_size=options.chunk_size,
        context_window=options.context_window,
        max_summary_tokens=options.max_summary_tokens,
        temperature=0.0,
        remove_artifacts=False,  # the official summ.py has none (postprocess.py is apart)
        cache=False,
    )
    solver: Solver = (
        hierarchical_merge(settings)
        if strategy == "hierarchical"
        else incremental_update(settings, compression_temperature=0.0)
    )
    task = Task(dataset=MemoryDataset(load_books(book)), solver=solver)
    log, seconds = _eval(task, endpoint, work, max_connections=options.parallel, score=False)
    [sample] = log.samples or []
    metadata = sample.metadata or {}
    stats = metadata.get("summary_stats", {})
    return Run(
        name=f"suite {strategy}",
        seconds=seconds,
        usage=Usage.of_log(log),
        summary=str(metadata.get("summary", "")),
        notes={
            k: stats.get(k)
            for k in (
                "chunks",
                "levels",
                "merges",
                "updates",
                "compressions",
                "retries",
                "forced_accepts",
            )
            if k in stats
        },
    )


def judge_summaries(
    endpoint: Endpoint, options: Options, summaries: Mapping[str, str], work: Path
) -> tuple[dict[str, float], dict[str, float], float]:
    """One judge over every summary: the suite's sentence mode. BooookScore and parse failure
    rate by summary, and the wall time."""
    data = _summaries_file(summaries, work / "produced.jsonl")
    log, seconds = _eval(
        "longform_evals/booookscore",
        endpoint,
        work,
        max_connections=options.parallel,
        task_args={
            "score_only": True,
            "data": str(data),
            "judge_mode": "sentence",
            "judge_cache": False,
            "judge_readings": False,  # the official package judges sentences as written
        },
    )
    scores, failures = {}, {}
    for sample in log.samples or []:
        value = (sample.scores or {})["booookscore"].value
        assert isinstance(value, dict)
        scores[str(sample.id)] = float(value["booookscore"])
        failures[str(sample.id)] = float(value["parse_failure_rate"])
    return scores, failures, seconds


@dataclass
class Summarizing:
    book: str
    runs: list[Run]
    judge_seconds: float = math.nan
    parse_failure_rates: dict[str, float] = field(default_factory=dict)


def book_path(book: str) -> Path:
    path = Path(book)
    return path if path.suffix == ".txt" and path.is_file() else bundled_books_dir() / f"{book}.txt"


def summarizing_part(
    env: reference_env.ReferenceEnv,
    options: Options,
    prompts: Mapping[str, Path],
    work: Path,
    log: Callable[[str], None] = print,
) -> Summarizing:
    path = book_path(options.book)
    [sample] = load_books(path)
    text = str((sample.metadata or {})["document"])  # what the suite's summarizers read
    runs = []
    for strategy in STRATEGIES:
        for side in ("official", "suite"):
            log(f"[summarizing] {side} {strategy} ...")
            where = work / "summarizing" / f"{side}-{strategy}"
            with served(options) as endpoint:
                if side == "official":
                    run = run_official_summarizer(
                        env, endpoint, options, prompts, text, strategy, where
                    )
                else:
                    run = run_suite_summarizer(endpoint, options, path, strategy, where)
            runs.append(run)
            log(f"[summarizing] {run.name}: {run.seconds:.1f} s, {run.usage.calls} calls")
    result = Summarizing(path.stem, runs)
    produced = {r.name.replace(" ", "-"): r.summary for r in runs if r.summary.strip()}
    if produced:
        log("[summarizing] judging the summaries (suite sentence mode) ...")
        with served(options) as endpoint:
            scores, failures, seconds = judge_summaries(endpoint, options, produced, work / "judge")
        for run in runs:
            run.booookscore = scores.get(run.name.replace(" ", "-"), math.nan)
        result.judge_seconds, result.parse_failure_rates = seconds, failures
    return result


# --- chunks ------------------------------------------------------------------------------------

# process_books reads the module-global `args` its __main__ sets (reference_env.NOT_PATCHED).
_CHUNKS = """
import json, sys
from argparse import Namespace
import booookscore.chunk as chunk
chunk.args = Namespace(include_empty_lines=False)
books = json.load(open(sys.argv[1]))
out = {size: chunk.process_books(books, int(size), f"{sys.argv[2]}-{size}.pkl")
       for size in sys.argv[3:]}
json.dump(out, open(sys.argv[2], "w"))
"""


@dataclass(frozen=True)
class ChunkRow:
    book: str
    size: int
    official: int
    suite: int
    difference: str  # empty when the boundaries are equal

    @property
    def equal(self) -> bool:
        return not self.difference


def non_empty_lines(text: str) -> str:
    """A chunk as process_books joins it: its non-empty lines, joined by newlines."""
    return "\n".join(line for line in text.split("\n") if len(line) > 0)


def first_difference(ours: Sequence[str], theirs: Sequence[str]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            at = next(
                (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)),
            )
            near = slice(max(0, at - 40), at + 40)
            return f"chunk {i} differs at character {at}: suite {a[near]!r}, official {b[near]!r}"
    if len(ours) != len(theirs):
        return f"suite has {len(ours)} chunks, official {len(theirs)}"
    return ""


def chunks_part(
    env: reference_env.ReferenceEnv, sizes: Sequence[int], work: Path
) -> list[ChunkRow]:
    books = {str(s.id): str((s.metadata or {})["document"]) for s in load_books()}
    work.mkdir(parents=True, exist_ok=True)
    source, out = work / "books.json", work / "chunks.json"
    source.write_text(json.dumps(books))
    env.run(_CHUNKS, args=[str(source), str(out), *map(str, sizes)])
    official = json.loads(out.read_text())
    rows = []
    for size in sizes:
        for book, text in books.items():
            ours = [non_empty_lines(c.text) for c in chunk_text(text, size)]
            theirs = official[str(size)][book]
            rows.append(
                ChunkRow(book, size, len(theirs), len(ours), first_difference(ours, theirs))
            )
    return rows


# --- the report --------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return "nan" if math.isnan(value) else f"{value:.2f}"
        return str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def ratio(slow: float, fast: float) -> float:
    return slow / fast if fast > 0 else math.nan


@dataclass(frozen=True)
class Goal:
    name: str
    measured: str
    met: bool


def render_chunks(rows: Sequence[ChunkRow]) -> str:
    body = table(
        ["book", "chunk size", "official chunks", "suite chunks", "boundaries"],
        [(r.book, r.size, r.official, r.suite, "equal" if r.equal else r.difference) for r in rows],
    )
    return "== chunks: official process_books vs the suite's chunk_text\n" + body


def render_scoring(result: SummaryScoring) -> str:
    lines = [f"== scoring: {result.summary_id}"]
    lines.append(
        table(
            [
                "run",
                "sentences",
                "read",
                "flagged",
                "BooookScore",
                "judge calls",
                "prompt tokens sent",
                "processed",
                "output tokens",
                "wall s",
            ],
            [
                (
                    r.name + (f" [error: {r.error}]" if r.error else ""),
                    len(r.verdicts),
                    r.read,
                    r.flagged,
                    r.booookscore,
                    r.usage.calls,
                    r.usage.prompt_tokens,
                    r.usage.processed_tokens,
                    r.usage.output_tokens,
                    r.seconds,
                )
                for r in result.runs
            ],
        )
    )
    runs = {r.name: r for r in result.runs}
    lines.append("")
    lines.append(
        table(
            [
                "pair (official / suite)",
                "sentences split alike",
                "split differs",
                "both read",
                "agree",
                "agreement %",
                "agreement % of both read",
                "same first answer",
                "score difference",
                "speed (official / suite wall)",
            ],
            [
                (
                    a.pair,
                    a.sentences,
                    a.split_differs,
                    a.both_read,
                    a.agree,
                    100 * a.rate,
                    100 * a.rate_read,
                    a.same_answers,
                    runs[b].booookscore - runs[o].booookscore,
                    ratio(runs[o].seconds, runs[b].seconds),
                )
                for a, (o, b, _) in zip(result.agreements, PAIRS, strict=True)
            ],
        )
    )
    for agreement in result.agreements:
        if agreement.disagreements or agreement.split_notes:
            lines.append(f"\n{agreement.pair}: {len(agreement.disagreements)} disagreement(s)")
            lines += [f"  - {line}" for line in agreement.by_cause()]
            lines += [f"  - split differs: {n}" for n in agreement.split_notes]
    for run in result.runs:
        if run.notes.get("requested_temperatures"):
            lines.append(
                f"\n{run.name}: temperatures the code asked {run.notes['requested_temperatures']} "
                f"(sent 0); back-off sleeps skipped: {run.notes['sleeps_skipped_s']:.0f} s; "
                f"bounded loops: {run.notes['guards'] or 'none'}"
            )
    return "\n".join(lines)


def render_summarizing(result: Summarizing) -> str:
    rows = []
    for r in result.runs:
        words = len(r.summary.split())
        rows.append(
            (
                r.name + (f" [error: {r.error}]" if r.error else ""),
                r.usage.calls,
                r.usage.prompt_tokens,
                r.usage.processed_tokens,
                r.usage.output_tokens,
                r.seconds,
                words,
                r.booookscore,
                result.parse_failure_rates.get(r.name.replace(" ", "-"), math.nan),
            )
        )
    lines = [
        f"== summarizing: {result.book}",
        table(
            [
                "run",
                "calls",
                "prompt tokens sent",
                "processed",
                "output tokens",
                "wall s",
                "summary words",
                "BooookScore (one judge)",
                "parse failure rate",
            ],
            rows,
        ),
        f"one judge: the suite's sentence mode on the same server, {result.judge_seconds:.0f} s",
    ]
    for r in result.runs:
        lines.append(f"{r.name}: {json.dumps(r.notes, sort_keys=True)}")
    return "\n".join(lines)


def targets(
    chunks: Sequence[ChunkRow] | None,
    scoring: Sequence[SummaryScoring] | None,
    summarizing: Summarizing | None,
) -> list[Goal]:
    found = []
    if chunks:
        equal = sum(r.equal for r in chunks)
        found.append(
            Goal(
                "chunk boundaries equal (2048, 4096)",
                f"{equal} of {len(chunks)} book/size pairs",
                equal == len(chunks),
            )
        )
    for result in scoring or []:
        runs = {r.name: r for r in result.runs}
        for a, (o, b, _) in zip(result.agreements, PAIRS, strict=True):
            found.append(
                Goal(
                    f"{result.summary_id}: verdict agreement >= 95 %, {a.pair}",
                    f"{100 * a.rate:.1f} % ({a.agree}/{a.sentences})",
                    a.rate >= 0.95,
                )
            )
            gap = abs(runs[b].booookscore - runs[o].booookscore)
            found.append(
                Goal(
                    f"{result.summary_id}: BooookScore within 1 point, {a.pair}",
                    f"{runs[o].booookscore:.2f} vs {runs[b].booookscore:.2f}",
                    gap <= 1,
                )
            )
        for o, b in ((PAIRS[0][0], PAIRS[0][1]), (PAIRS[2][0], PAIRS[2][1])):
            speed = ratio(runs[o].seconds, runs[b].seconds)
            found.append(
                Goal(
                    f"{result.summary_id}: suite >= 3x faster, {o} / {b}",
                    f"{speed:.2f}x",
                    speed >= 3,
                )
            )
    if summarizing:
        runs = {r.name: r for r in summarizing.runs}
        for strategy in STRATEGIES:
            speed = ratio(runs[f"official {strategy}"].seconds, runs[f"suite {strategy}"].seconds)
            found.append(
                Goal(
                    f"summarizing: suite >= 1.5x faster, {strategy}", f"{speed:.2f}x", speed >= 1.5
                )
            )
    return found


def _plain(value: Any) -> Any:
    """JSON-safe: NaN as null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


# --- the command line ----------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--official-prompts", type=Path, default=None, help="a checkout's prompts/ folder"
    )
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}"
    )
    parser.add_argument("--model", default=Options.model, help="a packaged model or a .gguf file")
    parser.add_argument("--book", default=Options.book, help="a bundled book id or a .txt file")
    parser.add_argument(
        "--summaries", type=Path, default=BUNDLED_SUMMARIES, help="JSONL id/summary to score"
    )
    parser.add_argument(
        "--score-produced",
        action="store_true",
        help="also score the summaries the summarizing part wrote",
    )
    parser.add_argument("--chunk-size", type=int, default=Options.chunk_size)
    parser.add_argument("--context-window", type=int, default=Options.context_window)
    parser.add_argument("--max-summary-tokens", type=int, default=Options.max_summary_tokens)
    parser.add_argument(
        "--parallel",
        type=int,
        default=Options.parallel,
        help="server slots and Inspect connections",
    )
    parser.add_argument("--json", type=Path, default=None, help="write the raw numbers here")
    parser.add_argument("--work", type=Path, default=None, help="keep the runs' files here")
    args = parser.parse_args(argv)
    args.parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(args.parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    args.parts = [p for p in PARTS if p in args.parts]
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    prompts = find_official_prompts(args.official_prompts, args.parts)  # before any model run
    options = Options(
        model=args.model,
        book=args.book,
        chunk_size=args.chunk_size,
        context_window=args.context_window,
        max_summary_tokens=args.max_summary_tokens,
        parallel=args.parallel,
    )
    env = reference_env.ensure_reference_env()
    print(f"reference env {env.root}; {len(env.patches)} patches of booookscore 0.1.3:")
    for patch in env.patches:
        print(f"- {patch.file}: {patch.old!r} -> {patch.new!r} ({patch.reason})")
    print(f"settings: {json.dumps(asdict(options))}; temperature 0 on both sides\n")
    report: dict[str, Any] = {
        "settings": asdict(options),
        "patches": [asdict(p) for p in env.patches],
    }
    chunks = scoring = summarizing = None
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        if "chunks" in args.parts:
            chunks = chunks_part(env, options.chunk_sizes, work / "chunks")
            print(render_chunks(chunks) + "\n", flush=True)
            report["chunks"] = [asdict(r) for r in chunks]
        if "summarizing" in args.parts:
            summarizing = summarizing_part(env, options, prompts, work)
            print(render_summarizing(summarizing) + "\n", flush=True)
            report["summarizing"] = asdict(summarizing)
        if "scoring" in args.parts:
            summaries = {
                str(s.id): str((s.metadata or {})["summary"])
                for s in load_summaries(args.summaries)
            }
            if args.score_produced and summarizing is not None:
                summaries.update(
                    {
                        r.name.replace(" ", "-"): r.summary
                        for r in summarizing.runs
                        if r.summary.strip()
                    }
                )
            scoring = scoring_part(env, options, prompts, summaries, work)
            for result in scoring:
                print(render_scoring(result) + "\n", flush=True)
            report["scoring"] = [asdict(r) for r in scoring]
    found = targets(chunks, scoring, summarizing)
    print(
        "== targets\n"
        + table(
            ["target", "measured", "met"],
            [(t.name, t.measured, "yes" if t.met else "NO") for t in found],
        )
    )
    report["targets"] = [asdict(t) for t in found]
    if args.json:
        args.json.write_text(json.dumps(_plain(report), indent=1))


if __name__ == "__main__":
    main()
