"""benchmarks/reference_booookscore.py without a real model: the chunk part at 2048 and 4096,
sentence alignment and verdict agreement, the official prompt as a suite override, the official
code's bounded loops against a stub OpenAI-compatible server, and the command line refusing to
run without the official prompts.

The official prompts are not in the repository; the test that reads them runs only when
BOOOOKSCORE_PROMPTS names a checkout's prompts/ folder of lilakk/BooookScore.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from inspect_ai.model import get_model

from helpers import load_benchmark_script
from longform_evals.judges.coherence.paper import (
    JudgeSettings,
    judge_summary,
    sentence_prompt,
)
from longform_evals.judges.injection import as_data


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark_script("reference_booookscore")


@pytest.fixture(scope="module")
def reference(bench: ModuleType) -> Any:
    module = bench.reference_env
    try:
        return module.ensure_reference_env()
    except module.PipInstallError as exc:
        pytest.skip(f"the reference env cannot be built here: {exc}")


# --- the command line ------------------------------------------------------------------------


def test_the_command_line_refuses_to_run_without_the_official_prompts(bench: ModuleType) -> None:
    with pytest.raises(SystemExit) as refused:
        bench.main(["--parts", "chunks,scoring"])
    message = str(refused.value)
    assert "--official-prompts" in message and "get_annotations.txt" in message
    assert "lilakk/BooookScore" in message


def test_a_prompts_folder_lacking_files_is_refused_naming_them(
    bench: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "get_annotations.txt").write_text("{} {}")
    with pytest.raises(SystemExit) as refused:
        bench.main(["--official-prompts", str(tmp_path)])
    message = str(refused.value)
    assert "get_gpt4_annotations_v2.txt" in message and "get_summaries_inc/compress.txt" in message
    assert f"{tmp_path}/get_annotations.txt" not in message  # it is there


def test_the_chunk_part_alone_needs_no_prompts_and_parts_are_checked(bench: ModuleType) -> None:
    assert bench.find_official_prompts(None, ["chunks"]) == {}
    with pytest.raises(SystemExit):
        bench.parse_args(["--parts", "chunks,judging"])


# --- alignment and agreement -------------------------------------------------------------------


def _verdicts(bench: ModuleType, labels: dict[str, str]) -> list[Any]:
    made = []
    for sentence, label in labels.items():
        if label == "unreadable":
            made.append(bench.Verdict(sentence, False, False, (), "no confusion", "2 lines"))
        else:
            made.append(bench.Verdict(sentence, True, label != "clean", (), label, ""))
    return made


def test_sentences_cut_differently_are_counted_apart_and_disagreements_explained(
    bench: ModuleType,
) -> None:
    summary = "Ames met J.B. Zorb at noon.\n\nHe ran. Zorb came. Mara left."
    official = _verdicts(
        bench,
        {
            "Ames met J.B.": "clean",
            "Zorb at noon.": "flagged",
            "He ran.": "clean",
            "Zorb came.": "unreadable",
            "Mara left.": "clean",
        },
    )
    suite = _verdicts(
        bench,
        {
            "Ames met J.B. Zorb at noon.": "flagged",
            "He ran.": "clean",
            "Zorb came.": "flagged",
            "Mara left.": "flagged",
        },
    )
    groups = bench.align(summary, [v.sentence for v in official], [v.sentence for v in suite])
    assert [(g.official, g.suite, g.same) for g in groups] == [
        ((0, 1), (0,), False),
        ((2,), (1,), True),
        ((3,), (2,), True),
        ((4,), (3,), True),
    ]
    result = bench.compare("o / s", summary, official, suite)
    assert (result.sentences, result.split_differs, result.both_read, result.agree) == (3, 1, 2, 1)
    assert result.rate == pytest.approx(1 / 3) and result.rate_read == pytest.approx(1 / 2)
    assert result.same_answers == 1  # "He ran.": both judges said the same
    unread, differ = result.disagreements
    assert (unread.number, unread.sentence, unread.official) == (2, "Zorb came.", "unreadable")
    assert "the official code could not read 'no confusion' (2 lines)" in unread.cause
    assert differ.sentence == "Mara left." and "different prompts" in differ.cause
    assert [line.split(":")[0] for line in result.by_cause()] == [
        "1 sentence(s) #2",
        "1 sentence(s) #3",
    ]
    assert "2 official / 1 suite" in result.split_notes[0]


def test_line_breaks_kept_by_one_splitter_still_align(bench: ModuleType) -> None:
    summary = "First line.\n\nSecond\nline."
    groups = bench.align(summary, ["First line.", "Second\nline."], ["First line.", "Second line."])
    assert all(g.same for g in groups) and len(groups) == 2
    with pytest.raises(ValueError, match="not in the summary"):
        bench.sentence_spans(summary, ["Third."])


# --- the official prompt as the suite's override ------------------------------------------------


def _override_matches(bench: ModuleType, template: str, folder: Path) -> None:
    prompts_dir, demos, sentence_of = bench.official_prompt_folder(template, folder)
    settings = JudgeSettings(prompts_dir=str(prompts_dir), demonstrations=str(demos))
    sentences = ["Mara keeps the light {on}.", "Zorb fixes it."]
    summary = " ".join(sentences)
    prompt = sentence_prompt(summary, 1, sentences[1], settings)
    assert prompt == template.format(as_data(summary), sentences[1])
    assert sentence_of(prompt) == sentences[1]
    assert sentence_of("some other prompt") is None


def test_the_official_prompt_reaches_the_suites_judge_unchanged(
    bench: ModuleType, tmp_path: Path
) -> None:
    template = (
        "Rules: answer 'no confusion'.\n\n[Your summary]\n\n{}\n\n\n[Your sentence]\n\n{}\n\nGo."
    )
    _override_matches(bench, template, tmp_path)
    with pytest.raises(ValueError, match="not 2"):
        bench.official_prompt_folder("only {} one", tmp_path / "other")


def test_the_official_batched_prompt_reaches_the_suites_judge_unchanged(
    bench: ModuleType, tmp_path: Path
) -> None:
    # The official batched prompt, with its JSON example's braces doubled as str.format wants.
    template = (
        'Answer as [{{"sentence_num": 1, "questions": null, "types": null}}].\n\n'
        "[Your summary]\n{summary}\n\n\n[Your sentences]\n{sentences}\n\nGo."
    )
    prompts_dir, demos, finder = bench.official_prompt_folder(template, tmp_path, batched=True)
    assert finder is None
    sentences = ["Mara keeps the light {on}.", "Zorb fixes it."]
    summary = " ".join(sentences)
    numbered = "\n".join(f"{n}. {s}" for n, s in enumerate(sentences, 1))
    expected = template.format(summary=as_data(summary), sentences=numbered)
    answer = json.dumps(
        [
            {"sentence_num": 1, "sentence": sentences[0], "questions": None, "types": None},
            {
                "sentence_num": 2,
                "sentence": sentences[1],
                "questions": "Who?",
                "types": "entity omission",
            },
        ]
    )
    # the scripted judge answers only the exact prompt the official code would send
    rule = {"pattern": "^" + re.escape(expected) + "$", "response": answer}
    model = get_model("scripted/official", rules=[rule], memoize=False)
    settings = JudgeSettings(
        mode="batched", prompts_dir=str(prompts_dir), demonstrations=str(demos), cache=False
    )
    verdicts, calls = asyncio.run(judge_summary(model, sentences, settings))
    assert calls == 1
    assert [(v.parsed, v.confused, v.types) for v in verdicts] == [
        (True, False, []),
        (True, True, ["entity_omission"]),
    ]
    with pytest.raises(ValueError, match=re.escape("one {summary} and one {sentences}")):
        bench.official_prompt_folder("no fields", tmp_path / "other", batched=True)


OFFICIAL_PROMPTS = os.environ.get("BOOOOKSCORE_PROMPTS")


@pytest.mark.skipif(not OFFICIAL_PROMPTS, reason="BOOOOKSCORE_PROMPTS (official prompts) not set")
def test_the_real_official_prompt_as_override(bench: ModuleType, tmp_path: Path) -> None:
    folder = Path(str(OFFICIAL_PROMPTS))
    found = bench.find_official_prompts(folder, ["scoring", "summarizing"])
    _override_matches(bench, found["v1"].read_text(encoding="utf-8"), tmp_path)


# --- the chunk part -------------------------------------------------------------------------------


def test_the_chunk_part_finds_equal_boundaries_at_2048_and_4096(
    bench: ModuleType, reference: Any, tmp_path: Path
) -> None:
    rows = bench.chunks_part(reference, (2048, 4096), tmp_path)
    assert len(rows) == 4  # two books, two sizes
    assert all(r.equal and r.official == r.suite for r in rows), [r.difference for r in rows]
    assert "== chunks" in bench.render_chunks(rows)


def test_a_chunk_difference_is_described(bench: ModuleType) -> None:
    assert bench.first_difference(["ab", "cd"], ["ab", "cx"]).startswith("chunk 1 differs at")
    assert bench.first_difference(["ab"], ["ab", "c"]) == "suite has 1 chunks, official 2"
    assert bench.non_empty_lines("a\n\nb\n") == "a\nb"


# --- the official code against a stub server ---------------------------------------------------


@pytest.fixture
def stub() -> Iterator[tuple[str, list[dict[str, Any]], list[Callable[[str], str]]]]:
    """An OpenAI-compatible chat endpoint answering with `answer[0](prompt)`; requests kept."""
    requests: list[dict[str, Any]] = []
    answer: list[Callable[[str], str]] = [lambda prompt: "no confusion"]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            prompt = body["messages"][-1]["content"]
            reply = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": answer[0](prompt)},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": 100,
                        "completion_tokens": 5,
                        "total_tokens": 105,
                        "prompt_tokens_details": {"cached_tokens": 60},
                    },
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", requests, answer
    finally:
        server.shutdown()


def _v1_answer(prompt: str) -> str:
    sentence = prompt.split("\nSENTENCE: ")[-1]
    if "Zorb" in sentence:
        return "no confusion"  # one line: validate_response rejects it, at temperature 0 forever
    if "Mara" in sentence:
        return "Questions: Who is Mara?\nTypes: entity omission"
    return "Questions: no confusion\nTypes: no confusion"


def test_the_v1_scorers_endless_retry_is_bounded_and_unreadable_sentences_left_out(
    bench: ModuleType, reference: Any, stub: Any, tmp_path: Path
) -> None:
    url, requests, answer = stub
    answer[0] = _v1_answer
    template = tmp_path / "v1.txt"
    template.write_text("SUMMARY: {}\nSENTENCE: {}")
    run = bench.run_official_scorer(
        reference,
        bench.Endpoint(url, "stub"),
        bench.Options(),
        template,
        "book",
        "Tom sails north. Zorb fixes the lamp. Mara thanks him.",
        False,
        tmp_path / "work",
    )
    assert run.error is None
    assert [(v.sentence, v.label) for v in run.verdicts] == [
        ("Tom sails north.", "clean"),
        ("Zorb fixes the lamp.", "unreadable"),
        ("Mara thanks him.", "flagged (entity omission)"),
    ]
    assert run.verdicts[1].answer == "no confusion"
    assert "less than 2" in run.verdicts[1].problem  # validate_response's own words
    assert run.booookscore == pytest.approx(50.0)  # get_score over the two read sentences
    assert run.usage == bench.Usage(
        calls=5, prompt_tokens=500, processed_tokens=200, output_tokens=25
    )
    assert {r["temperature"] for r in requests} == {0.0}
    assert run.notes["requested_temperatures"] == {"0": 5}


def test_a_v2_batch_that_never_parses_is_unreadable_and_its_sleeps_are_not_slept(
    bench: ModuleType, reference: Any, stub: Any, tmp_path: Path
) -> None:
    url, requests, answer = stub
    answer[0] = lambda prompt: "I cannot answer in JSON."
    template = tmp_path / "v2.txt"
    template.write_text("{summary}\n{sentences}")
    run = bench.run_official_scorer(
        reference,
        bench.Endpoint(url, "stub"),
        bench.Options(),
        template,
        "book",
        "Tom sails north. Zorb fixes the lamp.",
        True,
        tmp_path / "work",
    )
    assert run.error is None and len(requests) == 3  # num_retries tries of the one batch
    assert [v.label for v in run.verdicts] == ["unreadable", "unreadable"]
    assert "UnboundLocalError" in run.verdicts[0].problem
    assert math.isnan(run.booookscore)
    assert run.notes["sleeps_skipped_s"] == 30  # three time.sleep(10), counted, not slept
    assert run.seconds < 10
    assert run.notes["requested_temperatures"] == {"0.1": 3}  # the patched v2 call asks 0.1


def test_a_v2_answer_is_read_as_get_score_reads_it(
    bench: ModuleType, reference: Any, stub: Any, tmp_path: Path
) -> None:
    url, _, answer = stub
    answer[0] = lambda prompt: json.dumps(
        [
            {"sentence_num": 1, "questions": None, "types": None},
            {"sentence_num": 2, "questions": "Who is Zorb?", "types": "entity omission, salience"},
        ]
    )
    template = tmp_path / "v2.txt"
    template.write_text("{summary}\n{sentences}")
    run = bench.run_official_scorer(
        reference,
        bench.Endpoint(url, "stub"),
        bench.Options(),
        template,
        "book",
        "Tom sails north. Zorb fixes the lamp.",
        True,
        tmp_path / "work",
    )
    assert [v.label for v in run.verdicts] == ["clean", "flagged (entity omission, salience)"]
    assert run.booookscore == pytest.approx(50.0)


def test_the_official_summarizer_runs_at_temperature_0(
    bench: ModuleType, reference: Any, stub: Any, tmp_path: Path
) -> None:
    url, requests, answer = stub
    answer[0] = lambda prompt: "Tom sails north and comes home."
    prompts = {}
    for role, names in bench.OFFICIAL_FILES.items():
        if "/" in role:
            prompts[role] = tmp_path / "prompts" / names[0]
            prompts[role].parent.mkdir(parents=True, exist_ok=True)
            prompts[role].write_text("Text:\n{}\nWords: {}")
    run = bench.run_official_summarizer(
        reference,
        bench.Endpoint(url, "stub"),
        bench.Options(),
        prompts,
        "Tom sails north.\n\nHe comes home.",
        "hierarchical",
        tmp_path / "work",
    )
    assert run.error is None and run.summary == "Tom sails north and comes home."
    assert run.notes["chunks"] == 1 and run.usage.calls == 1
    assert run.notes["requested_temperatures"] == {"0.5": 1}
    assert [r["temperature"] for r in requests] == [0.0]


def _inc_answer(prompt: str) -> str:
    if prompt.startswith("UPDATE"):
        return "Tom comes home and"  # unfinished: the official code compresses the summary
    if prompt.startswith("COMPRESS"):
        return "Short."  # far under the word count compress asks for: every try rejected
    return "Tom sails north."


def test_a_compression_with_no_candidate_keeps_the_summary_instead_of_crashing(
    bench: ModuleType, reference: Any, stub: Any, tmp_path: Path
) -> None:
    url, _, answer = stub
    answer[0] = _inc_answer
    texts = {"init": "INIT {}", "intermediate": "UPDATE {} {}", "compress": "COMPRESS {} {} {} {}"}
    prompts = {}
    for role, names in bench.OFFICIAL_FILES.items():
        if "/" in role:
            prompts[role] = tmp_path / "prompts" / names[0]
            prompts[role].parent.mkdir(parents=True, exist_ok=True)
            prompts[role].write_text(texts.get(role.split("/")[1], "{} {}"))
    book = (
        "Tom sails north with his crew of five.\n" * 8 + "\nHe comes home in the spring rain.\n" * 8
    )
    run = bench.run_official_summarizer(
        reference,
        bench.Endpoint(url, "stub"),
        bench.Options(chunk_size=80),
        prompts,
        book,
        "incremental",
        tmp_path / "work",
    )
    assert run.error is None and run.notes["chunks"] == 2
    assert run.notes["guards"] == {
        "compress: min() arg is an empty sequence; summary kept uncompressed": 1
    }
    assert run.usage.calls == 8  # init, update, six compressions
    assert run.notes["requested_temperatures"] == {"0.5": 2, "1": 6}
    assert run.summary == "Tom comes home and"
