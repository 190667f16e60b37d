"""One measured run of the official `booookscore` package: a script for the reference env's
interpreter (benchmarks/reference_env.py), never imported.

`official.official_run` runs it by path in a subprocess whose cwd is the run's folder:

    python driver.py CONFIG.json OUT.json

CONFIG (JSON): `mode` ("summarize" or "score") and the settings of `official_run`. The run
writes `calls.jsonl` (one line per model call, as it happens) in its cwd and, at the end, OUT:
the calls with the server's usage, the temperatures the official code asked for, the back-off
sleeps counted instead of slept, the bounded loops (`guards`), the `error` that stopped the run
(or null), and what the mode measured (verdicts and BooookScore, or the summary).
"""

import contextlib
import io
import json
import math
import os
import sys
import threading
import time
from argparse import Namespace
from pathlib import Path
from typing import Any

cfg: dict[str, Any] = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
os.environ["OPENAI_BASE_URL"] = cfg["base_url"]  # read by OpenAI() when the client is built

import booookscore.chunk as bchunk  # noqa: E402
import booookscore.score as bscore  # noqa: E402
import booookscore.summ as bsumm  # noqa: E402
import booookscore.utils as butils  # noqa: E402
from openai.resources.chat.completions import Completions  # noqa: E402

UNREAD = "<no readable answer>"
lock = threading.Lock()
out: dict[str, Any] = {
    "calls": [],
    "requested_temperatures": {},
    "sleeps": [],
    "guards": [],
    "error": None,
}


class GiveUp(BaseException):
    """Ends a loop of the official code that would not end (its `except Exception` lets it by)."""


_create = Completions.create


def create(self: Completions, *args: Any, **kwargs: Any) -> Any:  # the server's usage of a call
    start = time.perf_counter()
    response: Any = _create(self, *args, **kwargs)
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
        # progress, and what a run cut short made
        with open("calls.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps(call) + "\n")
    return response


Completions.create = create  # type: ignore[method-assign]

_obtain = butils.APIClient.obtain_response


def obtain_response(self: Any, prompt: Any, max_tokens: Any, temperature: Any) -> Any:
    """The benchmark's temperature, whatever the code asks; the asked ones counted."""
    with lock:
        asked = out["requested_temperatures"]
        asked[str(temperature)] = asked.get(str(temperature), 0) + 1
    chosen = temperature if cfg["temperature"] is None else cfg["temperature"]
    return _obtain(self, prompt, max_tokens=max_tokens, temperature=chosen)


butils.APIClient.obtain_response = obtain_response

_send = butils.OpenAIClient.send_request


def send_request(self: Any, prompt: Any, max_tokens: Any, temperature: Any) -> Any:
    try:
        return _send(self, prompt, max_tokens, temperature)
    except Exception as exc:
        raise GiveUp(f"the server refused a request ({exc!r}); the client retries forever") from exc


butils.OpenAIClient.send_request = send_request


class Clock:
    """`time` for the official modules: sleeps counted, not slept."""

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    def sleep(self, seconds: float) -> None:
        with lock:
            out["sleeps"].append(seconds)
            if len(out["sleeps"]) > cfg["max_sleeps"]:
                raise GiveUp(f"over {cfg['max_sleeps']} back-off sleeps: the loop does not end")


bscore.time = Clock()
bsumm.time = Clock()


def record_v1(verdicts: list[dict[str, Any]]) -> None:
    """v1: every answer through validate_response, at most max_attempts per sentence."""
    split, validate = bscore.sent_tokenize, bscore.Scorer.validate_response
    sentences: list[str] = []
    state: dict[str, list[str]] = {"answers": [], "problems": []}

    def sent_tokenize(text: str) -> list[str]:
        sentences[:] = split(text)
        return list(sentences)

    def validate_response(self: Any, response: str) -> tuple[bool, Any, Any]:
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
        verdicts.append(
            {
                "sentence": sentences[len(verdicts)],
                "parsed": read,
                "flagged": read and bool(questions or types),
                "types": types if read and isinstance(types, list) else [],
                "answers": state["answers"],
                "problems": state["problems"],
            }
        )
        state.update(answers=[], problems=[])
        return True, questions, types

    bscore.sent_tokenize = sent_tokenize
    bscore.Scorer.validate_response = validate_response


def v2_types(types: Any) -> list[Any]:
    """A v2 item's types as a list: its comma-separated string split, or its list."""
    if isinstance(types, str):
        return [t.strip() for t in types.split(",")]
    return list(types) if isinstance(types, list) else []


def record_v2(verdicts: list[dict[str, Any]]) -> None:
    """v2: each batch's answers; a batch that fails or lacks questions/types is unreadable."""
    calc, parse = bscore.Scorer.calc_instance, bscore.Scorer.parse_response
    local = threading.local()

    def parse_response(self: Any, response: str) -> Any:
        local.raw.append(response)
        return parse(self, response)

    def calc_instance(
        self: Any,
        summary: Any,
        sentences: list[str],
        template: Any,
        num_retries: Any,
        model_name: Any,
    ) -> list[dict[str, Any]]:
        local.raw, problem = [], None
        try:
            answers = calc(self, summary, sentences, template, num_retries, model_name)
        except Exception as exc:  # every try failed (answers unbound), or a count mismatch
            problem = f"{type(exc).__name__}: {exc}"
            out["guards"].append(f"v2: a batch failed ({type(exc).__name__}), left unread")
            answers = [{"sentence": s} for s in sentences]
        fixed = []
        for answer, sentence in zip(answers, sentences, strict=False):
            read = problem is None and "questions" in answer and "types" in answer
            if not read:
                answer = {"sentence": sentence, "questions": UNREAD, "types": None}
            fixed.append(answer)
            with lock:
                verdicts.append(
                    {
                        "sentence": sentence,
                        "parsed": read,
                        "flagged": read and bool(answer["questions"] or answer["types"]),
                        "types": v2_types(answer["types"] if read else None),
                        "answers": list(local.raw),
                        "problems": [] if read else [problem or "an item lacks questions or types"],
                    }
                )
        return fixed

    bscore.Scorer.calc_instance = calc_instance
    bscore.Scorer.parse_response = parse_response


def write_json(value: Any, path: str) -> None:
    with open(path, "w", encoding="utf-8") as file:
        json.dump(value, file)


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def score() -> None:
    verdicts: list[dict[str, Any]] = []
    (record_v2 if cfg["v2"] else record_v1)(verdicts)
    write_json({cfg["book"]: cfg["summary"]}, "summaries.json")

    def scorer(annot_path: str) -> Any:
        return bscore.Scorer(
            model=cfg["model"],
            api="openai",
            api_key=cfg["key_path"],
            summ_path="summaries.json",
            annot_path=annot_path,
            template_path=cfg["template"],
            v2=cfg["v2"],
            batch_size=cfg["batch_size"],
        )

    out["punkt"] = bscore.sent_tokenize(cfg["summary"])  # the order of the sentences
    start = time.perf_counter()
    try:
        scorer("annotations.json").get_annot()
    finally:
        out["seconds"] = time.perf_counter() - start
        out["verdicts"] = verdicts
    annots = read_json("annotations.json")
    read = {b: {s: a for s, a in v.items() if a["questions"] != UNREAD} for b, v in annots.items()}
    out["booookscore"] = math.nan
    if all(read.values()):  # get_score divides by zero on a book without a sentence
        write_json(read, "annotations-read.json")
        out["booookscore"] = 100 * float(scorer("annotations-read.json").get_score())


def guard_compress() -> None:
    """compress() ends in min() over the candidates that passed its word-count check; with none
    it raises ValueError (a plain bug, not patched in reference_env.py). Kept instead: the
    summary uncompressed, as its own "COMPRESSION FAILED ... SKIPPING" message intends."""
    compress = bsumm.Summarizer.compress

    def guarded(self: Any, response: Any, summary: Any, *args: Any) -> Any:
        try:
            return compress(self, response, summary, *args)
        except ValueError as exc:
            out["guards"].append(f"compress: {exc}; summary kept uncompressed")
            return summary, response, 6, 1

    bsumm.Summarizer.compress = guarded


def summarize() -> None:
    guard_compress()
    bchunk.args = Namespace(include_empty_lines=False)  # what chunk.py's __main__ sets
    chunks = bchunk.process_books({cfg["book"]: cfg["text"]}, cfg["chunk_size"], "chunks.pkl")
    out["chunks"] = len(chunks[cfg["book"]])
    summarizer = bsumm.Summarizer(
        cfg["model"],
        "openai",
        cfg["key_path"],
        "summaries.json",
        cfg["method"],
        cfg["chunk_size"],
        cfg["context_window"],
        cfg["max_summary_tokens"],
    )
    start = time.perf_counter()
    try:
        summarizer.get_summaries("chunks.pkl")
    finally:
        out["seconds"] = time.perf_counter() - start
    done = read_json("summaries.json")[cfg["book"]]
    if cfg["method"] == "hier":
        out["summary"] = done["final_summary"]
        out["steps"] = {f"level {k}": len(v) for k, v in done["summaries_dict"].items()}
    else:
        out["summary"] = done[-1]
        out["steps"] = {"chunk summaries": len(done)}


try:
    if cfg["mode"] == "summarize":
        summarize()
    else:
        score()
except GiveUp as exc:
    out["error"] = str(exc)
except Exception:  # a crash of the official code: reported with what was measured
    import traceback

    out["error"] = traceback.format_exc()[-800:]
write_json(out, sys.argv[2])
