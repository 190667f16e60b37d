"""The same QuALITY questions through Inspect and through lm-eval, with one model and strategy.

Runs the Inspect task `quality` with a reading strategy, then lm-eval's `longform_quality`
with the matching wrapper LM around the same model (ReadAgent-P: `longform-readagent`), on the
first N questions. Inspect's answer cache is off in both runs, so each makes every call
itself. Prints each question's correctness from both, the two accuracies, the questions on
which they differ, and the wall time of each run with the lm-eval/Inspect ratio. The runs share
one process, so with a local `gguf/` model the second (lm-eval) finds the engine's prompt cache
warm: the ratio is not the wrapper's overhead.

    python benchmarks/lmeval_quality.py --model gguf/qwen2.5-coder-1.5b \
        --data ../shared/data/quality/quality_5_articles.jsonl --limit 5 [-M key=value]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from lm_eval import simple_evaluate
from lm_eval.tasks import TaskManager

from longform_evals.lmeval import TASK_FOLDER
from longform_evals.lmeval.wrappers import WRAPPERS
from longform_evals.tasks.reading import quality


def _model_args(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        out[key] = yaml.safe_load(value)
    return out


Outcome = tuple[float, str]
"""A question's `correct` and the model's final answer text."""


def inspect_run(
    model: str, margs: dict[str, Any], data: str, limit: int, logs: str
) -> dict[str, Outcome]:
    """Each question's `correct` and answer from `inspect eval` of `quality` with ReadAgent-P."""
    task = quality(data=data, strategy="read_agent_p", cache=False)
    [log] = inspect_eval(
        task, model=get_model(model, memoize=False, **margs), limit=limit, log_dir=logs
    )
    if log.status != "success" or log.samples is None:
        raise SystemExit(f"the Inspect run failed: {log.error}")
    out = {}
    for sample in log.samples:
        value = (sample.scores or {})["choice_accuracy"].value
        assert isinstance(value, dict), value
        out[str(sample.id)] = (float(value["correct"] or 0.0), sample.output.completion)
    return out


def lm_eval_run(model: str, margs: dict[str, Any], data: str, limit: int) -> dict[str, Outcome]:
    """Each question's `correct` and answer from lm-eval's `longform_quality` under
    `longform-readagent`."""
    lm = WRAPPERS["longform-readagent"](inner=model, cache=False, memoize=False, **margs)
    manager = TaskManager(
        include_path=str(TASK_FOLDER), include_defaults=False, metadata={"quality": {"data": data}}
    )
    results = simple_evaluate(
        model=lm, tasks=["longform_quality"], task_manager=manager, limit=limit, log_samples=True
    )
    if results is None:
        raise SystemExit("lm-eval returned no results")
    return {
        r["doc"]["id"]: (float(r["correct"]), str(r["resps"][0][0]))
        for r in results["samples"]["longform_quality"]
    }


def report(
    inspect_values: dict[str, Outcome], lm_values: dict[str, Outcome], times: tuple[float, float]
) -> list[str]:
    """The printed lines: per question, correctness from both, the accuracies, the questions
    whose correctness or answer text differ, the times."""
    lines = [f"{'question':<28} inspect  lm-eval  same answer"]
    missing: Outcome = (float("nan"), "")
    for qid, (value, answer) in inspect_values.items():
        other, other_answer = lm_values.get(qid, missing)
        lines.append(f"{qid:<28} {value:>7.0f}  {other:>7.0f}  {answer == other_answer}")
    n = len(inspect_values)
    acc_i = sum(v for v, _ in inspect_values.values()) / n
    acc_l = sum(v for v, _ in lm_values.values()) / max(1, len(lm_values))
    differ = [q for q in inspect_values if lm_values.get(q, missing)[0] != inspect_values[q][0]]
    answers = [q for q in inspect_values if lm_values.get(q, missing)[1] != inspect_values[q][1]]
    lines.append(f"accuracy: inspect {acc_i:.2f}, lm-eval {acc_l:.2f} over {n} questions")
    lines.append(f"questions that differ: {differ or 'none'}")
    lines.append(f"answers that differ (text): {answers or 'none'}")
    t_i, t_l = times
    lines.append(f"wall time: inspect {t_i:.0f} s, lm-eval {t_l:.0f} s, ratio {t_l / t_i:.2f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="gguf/qwen2.5-coder-1.5b")
    parser.add_argument("--data", required=True)
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("-M", dest="model_args", action="append", default=[])
    parser.add_argument("--log-dir", default=None)
    args = parser.parse_args()
    margs = _model_args(args.model_args)
    logs = args.log_dir or tempfile.mkdtemp(prefix="lmeval-quality-")
    started = time.monotonic()
    inspect_values = inspect_run(args.model, margs, args.data, args.limit, logs)
    t_inspect = time.monotonic() - started
    started = time.monotonic()
    lm_values = lm_eval_run(args.model, margs, args.data, args.limit)
    t_lm = time.monotonic() - started
    print("\n".join(report(inspect_values, lm_values, (t_inspect, t_lm))))
    print(f"Inspect logs: {Path(logs).resolve()}")


if __name__ == "__main__":
    main()
