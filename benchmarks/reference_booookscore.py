"""BooookScore's official package and this suite side by side: same served model, same book,
temperature 0, one table per part and the issue's targets marked met or not.

The official code (`booookscore==0.1.3`) runs only in subprocesses of the reference env
(benchmarks/reference_env.py: the overlay, its shims and its plain-bug patches, printed at the
start), pointed at llama.cpp's server (`longform serve`'s `ServedModel`) through
`OPENAI_BASE_URL`; the suite runs in this process through `inspect_ai.eval` with the model
`openai-api/longform/<alias>` on the same server. Every measured run gets a fresh server, so no
run reads another's prompt cache. This script is the command line; the parts are in
benchmarks/reference_booookscore_parts/, the official side's run in its driver.py.

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
  (both sides split with NLTK's punkt; the official side's nltk is the reference env's, so a
  sentence cut differently, should the two ever differ, is counted apart), and every verdict
  that differs is listed with both answers.

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
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from longform_evals.data.books import load_summaries

HERE = Path(__file__).resolve().parent
# The sibling reference_env.py and the parts' package, also when a test loads this file by path
# (benchmarks/ is no package).
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import reference_env  # noqa: E402
from reference_booookscore_parts.common import (  # noqa: E402
    OFFICIAL_FILES,
    PART_FILES,
    PARTS,
    STRATEGIES,
    Endpoint,
    OfficialPromptsError,
    Options,
    Run,
    Usage,
    find_official_prompts,
)
from reference_booookscore_parts.official import (  # noqa: E402
    official_run,
    official_scoring_run,
    run_official_scorer,
    run_official_summarizer,
)
from reference_booookscore_parts.parts import (  # noqa: E402
    PAIRS,
    ChunkRow,
    Summarizing,
    SummaryScoring,
    chunks_part,
    first_difference,
    non_empty_lines,
    scoring_part,
    summarizing_part,
)
from reference_booookscore_parts.report import (  # noqa: E402
    plain,
    render_chunks,
    render_scoring,
    render_summarizing,
    table,
    targets,
)
from reference_booookscore_parts.suite import (  # noqa: E402
    official_prompt_folder,
    official_prompt_judge,
    quoted_sentence,
    run_suite_scorer,
    run_suite_summarizer,
    suite_scoring_run,
)
from reference_booookscore_parts.verdicts import (  # noqa: E402
    Agreement,
    Verdict,
    align,
    compare,
    official_verdicts,
    sentence_spans,
)

# What the tests reach through this script (the parts live in reference_booookscore_parts/).
__all__ = [
    "OFFICIAL_FILES",
    "PAIRS",
    "PARTS",
    "PART_FILES",
    "STRATEGIES",
    "Agreement",
    "ChunkRow",
    "Endpoint",
    "OfficialPromptsError",
    "Options",
    "Run",
    "Summarizing",
    "SummaryScoring",
    "Usage",
    "Verdict",
    "align",
    "chunks_part",
    "compare",
    "find_official_prompts",
    "first_difference",
    "main",
    "non_empty_lines",
    "official_prompt_folder",
    "official_prompt_judge",
    "official_run",
    "official_scoring_run",
    "official_verdicts",
    "parse_args",
    "quoted_sentence",
    "reference_env",
    "render_chunks",
    "render_scoring",
    "render_summarizing",
    "run_official_scorer",
    "run_official_summarizer",
    "run_suite_scorer",
    "run_suite_summarizer",
    "sentence_spans",
    "suite_scoring_run",
]

REPO_ROOT = HERE.parent
BUNDLED_SUMMARIES = (
    REPO_ROOT / "src" / "longform_evals" / "data" / "summaries" / "the_frost_hold.jsonl"
)


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


def options_of(args: argparse.Namespace) -> Options:
    return Options(
        model=args.model,
        book=args.book,
        chunk_size=args.chunk_size,
        context_window=args.context_window,
        max_summary_tokens=args.max_summary_tokens,
        parallel=args.parallel,
    )


def start_report(env: reference_env.ReferenceEnv, options: Options) -> dict[str, Any]:
    """Print the reference env's patches and the settings; the report's first entries."""
    print(f"reference env {env.root}; {len(env.patches)} patches of booookscore 0.1.3:")
    for patch in env.patches:
        print(f"- {patch.file}: {patch.old!r} -> {patch.new!r} ({patch.reason})")
    print(f"settings: {json.dumps(asdict(options))}; temperature 0 on both sides\n")
    return {"settings": asdict(options), "patches": [asdict(p) for p in env.patches]}


def summaries_to_score(args: argparse.Namespace, summarizing: Summarizing | None) -> dict[str, str]:
    """The summaries of --summaries, and with --score-produced those the summarizing part wrote."""
    summaries = {
        str(s.id): str((s.metadata or {})["summary"]) for s in load_summaries(args.summaries)
    }
    if args.score_produced and summarizing is not None:
        summaries.update(
            {r.name.replace(" ", "-"): r.summary for r in summarizing.runs if r.summary.strip()}
        )
    return summaries


def run_parts(
    args: argparse.Namespace,
    env: reference_env.ReferenceEnv,
    options: Options,
    prompts: dict[str, Path],
    work: Path,
    report: dict[str, Any],
) -> tuple[list[ChunkRow] | None, list[SummaryScoring] | None, Summarizing | None]:
    """The chosen parts in order, each printed and added to `report` as it ends."""
    chunks = scoring = summarizing = None
    if "chunks" in args.parts:
        chunks = chunks_part(env, options.chunk_sizes, work / "chunks")
        print(render_chunks(chunks) + "\n", flush=True)
        report["chunks"] = [asdict(r) for r in chunks]
    if "summarizing" in args.parts:
        summarizing = summarizing_part(env, options, prompts, work)
        print(render_summarizing(summarizing) + "\n", flush=True)
        report["summarizing"] = asdict(summarizing)
    if "scoring" in args.parts:
        summaries = summaries_to_score(args, summarizing)
        scoring = scoring_part(env, options, prompts, summaries, work)
        for result in scoring:
            print(render_scoring(result) + "\n", flush=True)
        report["scoring"] = [asdict(r) for r in scoring]
    return chunks, scoring, summarizing


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    prompts = find_official_prompts(args.official_prompts, args.parts)  # before any model run
    options = options_of(args)
    env = reference_env.ensure_reference_env()
    report = start_report(env, options)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        chunks, scoring, summarizing = run_parts(args, env, options, prompts, work, report)
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
        args.json.write_text(json.dumps(plain(report), indent=1))


if __name__ == "__main__":
    main()
