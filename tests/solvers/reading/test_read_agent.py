"""ReadAgent readers: look-up parsing (pure), and gist memory, ReadAgent-P and ReadAgent-S end
to end against a scripted model on an invented document."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalSample
from inspect_ai.model import get_model
from inspect_ai.solver import Solver

import longform_evals.models.providers  # noqa: F401  (registers the scripted model)
from longform_evals.models.scripted import ScriptedModelAPI
from longform_evals.scorers.reading_stats import reading_stats
from longform_evals.solvers.reading.lookup import (
    MAX_PAGE_DIGITS,
    MAX_RANGE_PAGES,
    UNREADABLE_PAGE,
    UNREADABLE_RANGE,
    PageRequest,
    choose_pages,
    memory_text,
    next_page,
    parse_page_request,
)
from longform_evals.solvers.reading.memory import (
    clear_reading_cache,
    drop_unfinished_sentence,
    gist_token_cap,
)
from longform_evals.solvers.reading.read_agent import (
    gist_memory,
    read_agent_parallel,
    read_agent_sequential,
)
from longform_evals.solvers.reading.retrieval import full_text
from longform_evals.solvers.settings import ReadingSettings

FILLER = (
    "the keeper climbed the stairs of the old tower and wound the lamp while the "
    "storm pressed against the shutters and the boats waited in the harbour"
)

# Rule patterns: each matches exactly one template of prompts/read_agent/.
PAGINATE = r"Break point: <number>"
SHORTEN = r"Shorten it to at most \d+ words\."
LOOKUP_P = r"Which pages would you like to read in full\?"
LOOKUP_S = r"reply STOP instead\."
ANSWER_MC = r"Answer: \(X\)"
ANSWER_FREE = r"Be concise"
MARKER = re.compile(r"P\d{3}")
KINDS = {0: "paginate", 1: "gist", 2: "lookup", 3: "answer"}


def para(i: int, n_words: int) -> str:
    """An invented paragraph of ``n_words`` words, starting with its marker ``P<i>``."""
    filler = FILLER.split()
    return " ".join([f"P{i:03d}"] + [filler[k % len(filler)] for k in range(n_words - 1)])


def make_document(n_paras: int, size: int = 40, sep: str = "\n\n") -> str:
    return sep.join(para(i, size + (i * 13) % 25) for i in range(n_paras)) + "."


def first_tag(text: str, _: int) -> str:
    tags = re.findall(r"\n<(\d+)>", text.split("Passage:", 1)[1])
    return f"Break point: <{tags[0]}>"


def marker_gist(text: str, _: int) -> str:
    """A two-word gist naming the page's first paragraph marker."""
    return "gist " + marker(text.split("Page:\n", 1)[1])


def marker(text: str) -> str:
    """The first paragraph marker in ``text``."""
    found = MARKER.search(text)
    assert found, text[:100]
    return found.group()


def rules(
    lookup: Any = "[]", answer: str = "Answer: (A)", lookup_pattern: str = LOOKUP_P
) -> list[dict[str, Any]]:
    return [
        {"pattern": PAGINATE, "response": first_tag},
        {"pattern": SHORTEN, "response": marker_gist},
        {"pattern": lookup_pattern, "response": lookup, "exhausted": "repeat_last"},
        {"pattern": f"{ANSWER_MC}|{ANSWER_FREE}", "response": answer},
    ]


def sample(
    doc: str, n: int, doc_questions: int = 1, choices: bool = True, doc_id: str = "tower"
) -> Sample:
    question = f"Question number {n}: why did the keeper wind the lamp?"
    metadata = {
        "dataset": "quality",
        "doc_id": doc_id,
        "title": "",
        "document": doc,
        "doc_kind": "article",
        "doc_words": len(doc.split()),
        "doc_questions": doc_questions,
        "question": question,
        "references": ["For the boats."],
    }
    if choices:
        return Sample(
            id=f"{doc_id}:{n}",
            input=question,
            choices=["For the boats.", "For the gulls."],
            target="A",
            metadata=metadata,
        )
    return Sample(id=f"{doc_id}:{n}", input=question, target=["For the boats."], metadata=metadata)


def run(
    tmp_path: Path,
    solver: Solver,
    samples: list[Sample],
    rule_list: list[dict[str, Any]],
    latency: float = 0.0,
) -> tuple[list[EvalSample], ScriptedModelAPI]:
    model = get_model("scripted/reader", rules=rule_list, latency=latency, memoize=False)
    task = Task(dataset=MemoryDataset(samples), solver=solver, scorer=reading_stats())
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    return sorted(log.samples, key=lambda s: str(s.id)), cast(ScriptedModelAPI, model.api)


def counts(api: ScriptedModelAPI) -> Counter[str]:
    return Counter(KINDS[c.rule] for c in api.calls if c.rule is not None)


def info(s: EvalSample) -> dict[str, Any]:
    return cast(dict[str, Any], s.metadata["reading"])


def answer_prompt(api: ScriptedModelAPI) -> str:
    return [c.last_user for c in api.calls if c.rule == 3][-1]


def blocks(prompt: str) -> list[tuple[int, str]]:
    """The (page number, text) blocks of the memory in an answer prompt."""
    found = re.findall(
        r"<Page (\d+)>\n(.*?)(?=\n\n<Page |\n\nQuestion:|\n\nNow answer)", prompt, re.S
    )
    return [(int(i), text) for i, text in found]


@pytest.fixture(autouse=True)
def _fresh_memo() -> Iterator[None]:
    clear_reading_cache()
    yield
    clear_reading_cache()


# --- look-up parsing (pure) ---


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("[2, 5]", PageRequest((2, 5))),
        ("Page 2 has the trial, so [2, 5]", PageRequest((2, 5))),
        ("Pages 3 and 7", PageRequest((3, 7))),
        ("I would like <Page 4>.", PageRequest((4,))),
        ("page 3, page 5 or page 8", PageRequest((3, 5, 8))),
        ("3, 7", PageRequest((3, 7))),
        ("STOP", PageRequest(stop=True)),
        ("[4] was useful. STOP", PageRequest(stop=True)),
        ("STOP... no wait, [6]", PageRequest((6,))),
        ("[]", PageRequest(stop=True)),
        ("I cannot decide.", PageRequest(understood=False)),
        ("", PageRequest(understood=False)),
    ],
)
def test_parse_page_request(reply: str, expected: PageRequest) -> None:
    assert parse_page_request(reply) == expected


@given(st.lists(st.integers(0, 999), min_size=1, max_size=6), st.text(max_size=30))
def test_bracket_list_after_any_reasoning_is_read(pages: list[int], reasoning: str) -> None:
    reasoning = reasoning.replace("[", "(").replace("]", ")").replace("STOP", "stop")
    reply = f"{reasoning}\n[{', '.join(map(str, pages))}]"
    assert parse_page_request(reply).pages == tuple(pages)


@given(st.text(max_size=60))
def test_parse_page_request_never_fails(reply: str) -> None:
    request = parse_page_request(reply)
    assert request.understood or not (request.pages or request.stop)


def test_choose_pages_dedupes_limits_and_counts() -> None:
    chosen = choose_pages(PageRequest((5, 2, 5, 99, 1, 3)), n_pages=6, max_pages=3)
    assert chosen.pages == [1, 2, 5]
    assert len(chosen.problems) == 2  # 99 does not exist, 3 is beyond the limit
    assert choose_pages(PageRequest(understood=False), 6, 3).problems
    assert choose_pages(PageRequest(stop=True), 6, 3).pages == []


def test_next_page_rules() -> None:
    assert next_page(PageRequest((2,)), 5, set()) == (2, [])
    assert next_page(PageRequest(stop=True), 5, set()) == (None, [])
    assert next_page(PageRequest((2,)), 5, {2})[0] is None
    assert next_page(PageRequest((7,)), 5, set())[1] == ["page 7 does not exist (pages 0-4)"]
    assert next_page(PageRequest((1, 3)), 5, set()) == (1, ["page 3 ignored: one page per step"])
    assert next_page(PageRequest(understood=False), 5, set())[0] is None


@pytest.mark.parametrize(
    ("reply", "pages"),
    [
        ("Page " + "9" * 5000, (UNREADABLE_PAGE,)),
        ("[" + "9" * 5000 + ", 2]", (UNREADABLE_PAGE, 2)),
        ("1" * 5000, (UNREADABLE_PAGE,)),
        ("Pages 3 and " + "7" * (MAX_PAGE_DIGITS + 1), (3, UNREADABLE_PAGE)),
        ("[" + "4" * MAX_PAGE_DIGITS + "]", (int("4" * MAX_PAGE_DIGITS),)),
    ],
)
def test_page_numbers_too_long_to_read_are_no_page(reply: str, pages: tuple[int, ...]) -> None:
    assert parse_page_request(reply) == PageRequest(pages)


def test_unreadable_page_numbers_count_like_pages_that_do_not_exist() -> None:
    request = parse_page_request("[" + "9" * 5000 + ", 2]")
    chosen = choose_pages(request, n_pages=5, max_pages=3)
    assert chosen.pages == [2]
    assert chosen.problems == [
        f"a page number of over {MAX_PAGE_DIGITS} digits does not exist (pages 0-4)"
    ]
    page, problems = next_page(request, 5, set())
    assert page is None and len(problems) == 2 and "does not exist" in problems[0]
    page, problems = next_page(parse_page_request("Pages 3 and " + "7" * 5000), 5, set())
    assert page == 3 and problems == [
        f"a page number of over {MAX_PAGE_DIGITS} digits ignored: one page per step"
    ]


@given(st.text(alphabet="0123456789[], Page", max_size=40), st.integers(13, 6000))
def test_long_digit_runs_never_break_the_parser(text: str, digits: int) -> None:
    request = parse_page_request(text + "9" * digits)
    assert all(p == UNREADABLE_PAGE or 0 <= p < 10**MAX_PAGE_DIGITS for p in request.pages)
    choose_pages(request, 10, 3)
    next_page(request, 10, set())


@pytest.mark.parametrize(
    ("reply", "pages"),
    [
        ("Pages 0 through 5", (0, 1, 2, 3, 4, 5)),
        ("pages 2-4 and 7", (2, 3, 4, 7)),
        ("Page 1 \u2013 3", (1, 2, 3)),
        ("page 6 to 4", (6, 5, 4)),
        ("Pages 2 thru 3 or page 9", (2, 3, 9)),
        ("Go to page 3 to check", (3,)),
        (f"Pages 0 through {MAX_RANGE_PAGES - 1}", tuple(range(MAX_RANGE_PAGES))),
        (f"Pages 0 through {MAX_RANGE_PAGES}", (UNREADABLE_RANGE,)),
        ("Pages 1 to " + "9" * 5000, (UNREADABLE_RANGE,)),
    ],
)
def test_page_ranges_are_read_as_every_page(reply: str, pages: tuple[int, ...]) -> None:
    assert parse_page_request(reply) == PageRequest(pages)


def test_a_range_past_the_budget_counts_its_extra_pages_like_a_list() -> None:
    chosen = choose_pages(parse_page_request("Pages 0 through 5"), n_pages=10, max_pages=3)
    listed = choose_pages(parse_page_request("[0, 1, 2, 3, 4, 5]"), n_pages=10, max_pages=3)
    assert chosen == listed and chosen.pages == [0, 1, 2] and len(chosen.problems) == 3
    page, problems = next_page(parse_page_request("Pages 0 through 5"), 10, set())
    assert page == 0 and len(problems) == 5
    huge = choose_pages(parse_page_request("Pages 0 through 99999"), n_pages=10, max_pages=3)
    assert huge.pages == [] and huge.problems == [
        f"a page range of over {MAX_RANGE_PAGES} pages is not read (pages 0-9)"
    ]


def test_memory_text_expands_in_place() -> None:
    text = memory_text(["g0", "g1", "g2"], ["page zero", "page one", "page two"], {1})
    assert text == "<Page 0>\ng0\n\n<Page 1>\npage one\n\n<Page 2>\ng2"


# --- end to end ---


def test_gists_are_computed_once_and_shared_by_the_questions_of_a_document(
    tmp_path: Path,
) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(
        ReadingSettings(cache=False), max_pages=2, min_words=100, max_words=250
    )
    [one], api1 = run(tmp_path / "a", solver, [sample(doc, 0)], rules("[1]"))
    clear_reading_cache()
    # the two questions run concurrently (each call takes a moment): one computes, one waits
    both = [sample(doc, 0, 2), sample(doc, 1, 2)]
    two, api2 = run(tmp_path / "b", solver, both, rules("[1]"), latency=0.01)
    first, second = counts(api1), counts(api2)
    assert first["paginate"] > 0 and first["gist"] == info(one)["pages"] > 3
    # the second question adds only its look-up and its answer
    assert second == first + Counter(lookup=1, answer=1)
    assert info(two[0])["pages"] == info(two[1])["pages"] == info(one)["pages"]


def test_inspect_cache_makes_a_rerun_free(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(max_pages=2, min_words=100, max_words=250)
    _, api1 = run(tmp_path / "a", solver, [sample(doc, 0)], rules("[1]"))
    clear_reading_cache()
    _, api2 = run(tmp_path / "b", solver, [sample(doc, 0)], rules("[1]"))
    assert counts(api1)["gist"] > 0 and counts(api1)["answer"] == 1
    # every step is cached, the look-up and the answer too: the rerun makes no call
    assert sum(counts(api2).values()) == 0


def test_cache_false_makes_every_call_again(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(
        ReadingSettings(cache=False), max_pages=2, min_words=100, max_words=250
    )
    _, api1 = run(tmp_path / "a", solver, [sample(doc, 0)], rules("[1]"))
    clear_reading_cache()
    _, api2 = run(tmp_path / "b", solver, [sample(doc, 0)], rules("[1]"))
    assert counts(api2) == counts(api1) and counts(api2)["answer"] == 1


def test_read_agent_p_expands_the_requested_pages_in_place(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(max_pages=3, min_words=100, max_words=250, layout="in_place")
    [s], api = run(
        tmp_path, solver, [sample(doc, 0)], rules("Pages 1 and 3 look useful. [3, 1, 3]")
    )
    meta = info(s)
    assert meta["pages_looked_up"] == [1, 3] and meta["lookup_fallbacks"] == 0
    shown = blocks(answer_prompt(api))
    assert [i for i, _ in shown] == list(range(meta["pages"]))
    markers = []
    for i, text in shown:
        if i in (1, 3):
            assert not text.startswith("gist") and len(text.split()) == meta["page_words"][i]
        else:
            assert re.fullmatch(r"gist P\d{3}", text)
        markers.append(marker(text))
    assert markers == sorted(markers)  # pages stay in document order
    # compression rate: the answer prompt holds the most document words
    context = meta["gist_words"] - 4 + meta["page_words"][1] + meta["page_words"][3]
    assert meta["context_words_max"] == context
    assert meta["compression_rate"] == pytest.approx(100 * (1 - context / len(doc.split())))
    assert s.output.completion == "Answer: (A)"
    assert s.scores is not None
    value = s.scores["reading_stats"].value
    assert isinstance(value, dict) and value["pages_looked_up"] == 2


def test_read_agent_p_follow_up_answers_in_the_look_up_conversation(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(max_pages=3, min_words=100, max_words=250)
    reply = "Pages 1 and 3 look useful. [3, 1, 3]"
    [s], api = run(tmp_path, solver, [sample(doc, 0)], rules(reply))
    meta = info(s)
    assert meta["pages_looked_up"] == [1, 3]
    [call] = [c for c in api.calls if c.rule == 3]
    lookup_prompt = [c.last_user for c in api.calls if c.rule == 2][-1]
    # the answer call repeats the look-up prompt and reply verbatim, then the new turn
    assert call.prompt.startswith(f"{lookup_prompt}\n\n{reply}\n\n")
    turn = call.last_user
    assert [i for i, _ in blocks(turn)] == [1, 3]  # only the pages asked for, in page order
    assert all(len(t.split()) == meta["page_words"][i] for i, t in blocks(turn))
    assert "gist P" not in turn and "(A) For the boats." in turn
    # the model sees every gist and the two pages; CR counts both
    seen = meta["gist_words"] + meta["page_words"][1] + meta["page_words"][3]
    assert meta["context_words_max"] == seen
    # consumed charges the answer its new turn only; sent charges the whole conversation
    lookup, answer = meta["calls"]
    assert answer["prompt_words"] == len(turn.split())
    assert answer["words_sent"] == lookup["prompt_words"] + len(reply.split()) + len(turn.split())
    shared = meta["pagination_prompt_words"] + meta["gist_prompt_words"]
    assert meta["words_consumed"] == pytest.approx(
        shared + lookup["prompt_words"] + len(turn.split())
    )
    assert meta["words_sent"] == pytest.approx(shared + lookup["words_sent"] + answer["words_sent"])
    assert s.output.completion == "Answer: (A)"


def test_read_agent_p_follow_up_with_no_page_asked_for(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(min_words=100, max_words=250)
    [s], api = run(tmp_path, solver, [sample(doc, 0, choices=False)], rules("[]"))
    turn = answer_prompt(api)
    assert blocks(turn) == [] and "(no page: you asked for none)" in turn and "Be concise" in turn
    assert info(s)["context_words_max"] == info(s)["gist_words"]


def test_read_agent_s_refuses_the_follow_up_layout() -> None:
    with pytest.raises(ValueError, match="layout='follow_up' is not supported"):
        read_agent_sequential(layout="follow_up")
    with pytest.raises(ValueError, match="layout='sideways' is unknown"):
        read_agent_parallel(layout=cast(Any, "sideways"))


def test_read_agent_p_drops_and_counts_bad_requests(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_parallel(max_pages=2, min_words=100, max_words=250)
    [s], _ = run(tmp_path / "a", solver, [sample(doc, 0)], rules("[1, 99, 2, 4]"))
    assert info(s)["pages_looked_up"] == [1, 2] and info(s)["lookup_fallbacks"] == 2
    [j], _ = run(tmp_path / "b", solver, [sample(doc, 0)], rules("No idea at all."))
    assert info(j)["pages_looked_up"] == [] and info(j)["lookup_fallbacks"] == 1


def test_read_agent_s_stops_on_stop(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = read_agent_sequential(max_pages=4, min_words=100, max_words=250)
    replies = ["Page 2 mentions the lamp. [2]", "STOP"]
    [s], api = run(tmp_path, solver, [sample(doc, 0)], rules(replies, lookup_pattern=LOOKUP_S))
    meta = info(s)
    assert meta["pages_looked_up"] == [2] and meta["lookup_fallbacks"] == 0
    lookups = [c.last_user for c in api.calls if c.rule == 2]
    assert len(lookups) == 2
    assert "Pages already read in full: none." in lookups[0]
    assert "Pages already read in full: 2." in lookups[1] and "3 more page(s)" in lookups[1]
    assert [i for i, t in blocks(answer_prompt(api)) if not t.startswith("gist")] == [2]


@pytest.mark.parametrize(
    ("replies", "looked_up", "fallbacks", "lookup_calls"),
    [
        (["[1]", "[1]"], [1], 1, 2),  # a page already read ends the look-up
        (["[42]"], [], 1, 1),  # a page that does not exist
        (["I am unsure."], [], 1, 1),  # no page and no STOP
        (["[0]", "[1]", "[2]"], [0, 1], 0, 2),  # the limit of 2 pages
    ],
)
def test_read_agent_s_ends_on_bad_requests_and_the_limit(
    tmp_path: Path, replies: list[str], looked_up: list[int], fallbacks: int, lookup_calls: int
) -> None:
    doc = make_document(30)
    solver = read_agent_sequential(max_pages=2, min_words=100, max_words=250)
    [s], api = run(tmp_path, solver, [sample(doc, 0)], rules(replies, lookup_pattern=LOOKUP_S))
    assert info(s)["pages_looked_up"] == looked_up
    assert info(s)["lookup_fallbacks"] == fallbacks
    assert counts(api)["lookup"] == lookup_calls and counts(api)["answer"] == 1


def test_gist_memory_answers_from_gists_and_compression_rate(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = gist_memory(min_words=100, max_words=250)
    [s], api = run(
        tmp_path, solver, [sample(doc, 0, choices=False)], rules(answer="For the boats.")
    )
    meta = info(s)
    assert counts(api)["lookup"] == 0
    assert meta["gist_words"] == 2 * meta["pages"] == meta["context_words_max"]
    assert meta["compression_rate"] == pytest.approx(
        100 * (1 - meta["gist_words"] / len(doc.split()))
    )
    prompt = answer_prompt(api)
    assert "Be concise" in prompt and "Options:" not in prompt
    assert all(t.startswith("gist") for _, t in blocks(prompt))
    # words consumed: this question's prompts plus the document's whole cost (one question)
    own = sum(c["prompt_words"] for c in meta["calls"])
    shared = meta["pagination_prompt_words"] + meta["gist_prompt_words"]
    assert meta["words_consumed"] == pytest.approx(own + shared)


def test_multiple_choice_prompt_lists_lettered_options(tmp_path: Path) -> None:
    doc = make_document(8)
    [s], api = run(tmp_path, full_text(), [sample(doc, 0)], rules())
    prompt = answer_prompt(api)
    assert "(A) For the boats.\n(B) For the gulls." in prompt
    assert info(s)["compression_rate"] == 0.0 and info(s)["pages"] == 0


def test_read_agent_consumes_fewer_words_than_full_text_over_shared_gists(
    tmp_path: Path,
) -> None:
    doc = make_document(150, size=35)  # about 7,000 words: QuALITY-sized pages of 280-600
    samples = [sample(doc, n, doc_questions=6) for n in range(6)]
    agent, _ = run(tmp_path / "a", read_agent_parallel(max_pages=1), samples, rules("[2]"))
    full, _ = run(tmp_path / "b", full_text(), samples, rules())
    agent_words = [info(s)["words_consumed"] for s in agent]
    full_words = [info(s)["words_consumed"] for s in full]
    assert max(agent_words) < min(full_words)
    meta = info(agent[0])
    shared = (meta["pagination_prompt_words"] + meta["gist_prompt_words"]) / 6
    own = sum(c["prompt_words"] for c in meta["calls"])
    assert meta["words_consumed"] == pytest.approx(own + shared)
    assert meta["compression_rate"] > 80


def test_conditional_gists_are_per_question(tmp_path: Path) -> None:
    doc = make_document(30)
    solver = gist_memory(min_words=100, max_words=250, conditional=True)
    out, api = run(tmp_path, solver, [sample(doc, 0, 2), sample(doc, 1, 2)], rules())
    pages = info(out[0])["pages"]
    assert counts(api)["gist"] == 2 * pages
    gist_prompts = [c.last_user for c in api.calls if c.rule == 1]
    assert sum("Question number 1:" in p for p in gist_prompts) == pages
    meta = info(out[0])
    own = sum(c["prompt_words"] for c in meta["calls"])
    expected = own + meta["pagination_prompt_words"] / 2 + meta["gist_prompt_words"]
    assert meta["words_consumed"] == pytest.approx(expected)


def test_document_without_paragraph_breaks(tmp_path: Path) -> None:
    doc = make_document(40, sep=". ")  # one line of sentences
    solver = gist_memory(min_words=100, max_words=250)
    [s], _ = run(tmp_path, solver, [sample(doc, 0)], rules())
    assert info(s)["pages"] > 3
    assert sum(info(s)["page_words"]) == len(doc.split())


def test_pagination_fallbacks_are_counted(tmp_path: Path) -> None:
    doc = make_document(30)
    rule_list = rules()
    rule_list[0] = {"pattern": PAGINATE, "response": "the middle seems fine"}
    [s], api = run(tmp_path, gist_memory(min_words=100, max_words=250), [sample(doc, 0)], rule_list)
    assert info(s)["pagination_fallbacks"] == counts(api)["paginate"] > 0
    assert all(n <= 250 for n in info(s)["page_words"])


def test_gists_are_asked_for_a_length_and_runaway_gists_are_cut_and_counted(
    tmp_path: Path,
) -> None:
    doc = make_document(12)
    rule_list = rules()
    rule_list[1] = {"pattern": SHORTEN, "response": "copied " * 2000}  # a page copied on and on
    samples, api = run(tmp_path, gist_memory(), [sample(doc, 0)], rule_list)
    reading = info(samples[0])
    assert reading["gists_cut"] == reading["pages"] > 0
    gist_prompts = [c.last_user for c in api.calls if c.rule == 1]
    limits = [int(m) for p in gist_prompts for m in re.findall(r"at most (\d+) words", p)]
    assert limits and all(limit >= 20 for limit in limits)
    # Capped at about 1.5 tokens (here: scripted words) per word asked for.
    assert reading["gist_words"] <= sum(round(1.5 * limit) + 9 for limit in limits)
    assert reading["gist_words"] < 2 * sum(limits)


def test_a_cut_gist_loses_its_broken_off_sentence(tmp_path: Path) -> None:
    doc = make_document(12)
    rule_list = rules()
    runaway = "The keeper wound the lamp. The storm pressed on. And then " + "on and " * 500
    rule_list[1] = {"pattern": SHORTEN, "response": runaway}
    samples, _ = run(tmp_path, gist_memory(), [sample(doc, 0)], rule_list)
    reading = info(samples[0])
    assert reading["gists_cut"] == reading["pages"] > 0
    assert reading["gist_words"] == reading["pages"] * 9  # the two whole sentences


PIECES = ["Ann left.", "Bo ran!", "and so", "it was", "?", "x"]


@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_dropping_an_unfinished_sentence_keeps_a_prefix(parts: list[str]) -> None:
    text = " ".join(parts)
    kept = drop_unfinished_sentence(text)
    assert text.startswith(kept)
    if text.rstrip().endswith((".", "!", "?")):
        assert kept == text
    else:
        assert kept == text or kept.endswith((".", "!", "?"))


def test_gist_token_cap() -> None:
    page = "word " * 300  # asked for 45 words
    assert gist_token_cap(page, 1024) == 76
    assert gist_token_cap(page, 50) == 50
    assert gist_token_cap("short page", 1024) == 38  # at least 20 words asked for
