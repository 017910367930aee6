"""Fit how the offline answer is laid out (how many sentences, which verdict) on the DEV split,
and only on it (the reader's weights are fitted by `rag train-reader`): this script never
opens the test split (a test holds it to that), and it refuses dev.jsonl if its questions are
test content (eval/datasets/test_fingerprints.txt), whatever the file is called. Prints dev at
the current defaults and at the fitted values, with the answers' length beside accuracy. Test
is scored by `rag eval --split test` alone, which leaves a line in eval/ledger.jsonl each time.

    .venv/bin/python benchmarks/tune.py                # offline answerer, coordinate search on dev
    .venv/bin/python benchmarks/tune.py --no-search    # just dev at the current defaults
    .venv/bin/python benchmarks/tune.py --data-dir .rag-data   # reuse an existing index
    .venv/bin/python benchmarks/tune.py --limit 40     # the first 40 dev questions (a smoke run)

The objective is the mean of five rates on dev: key facts stated, answerable questions answered,
unanswerable questions declined, a gold paper cited with a fact, and yes/no verdicts with their
reason."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import indexed_settings  # noqa: E402
from eval.dataset import DEFAULT_DATASET, Question, load, refuse_test  # noqa: E402
from eval.run import answer_length, score_question, summarise  # noqa: E402
from rag.engine import Engine, build_engine, with_reader  # noqa: E402

# What the search may change, and the values it tries (the first pass starts at the defaults).
GRID: dict[str, tuple[float, ...]] = {  # how the answer is laid out; the reader itself is fitted
    "yes_no_coverage": (0.15, 0.25, 0.34, 0.5),          # by `rag train-reader` (its own thresholds)
    "yes_no_candidates": (1, 3, 5, 8),
    "yes_no_contrast_candidates": (1, 2, 3, 5),
    "figure_candidates": (1, 2, 3, 5),
    "max_sentences": (3, 4, 5),
    "answer_sentences": (1, 2, 3, 4),
    "second_ratio": (0.5, 0.6, 0.7, 0.8, 0.9),
}
REPORTED = (("key facts stated", "key_facts"), ("false abstentions (rate)", "false_abstention_rate"),
            ("unanswerable declined", "unanswerable_abstained"), ("gold cited, with a fact", "gold_cited"),
            ("citation precision (gold)", "citation_precision"),
            ("citation recall (gold)", "citation_recall"), ("yes/no verdict", "yes_no_verdict"),
            ("yes/no verdict and reason", "yes_no"), ("list answer precision", "answer_precision"),
            ("accuracy", "accuracy"), ("answer words p50", "words_p50"), ("answer words p90", "words_p90"),
            ("p50 ms", "latency_p50_ms"), ("p95 ms", "latency_p95_ms"))


def memoise_retrieval() -> None:
    """Retrieval does not depend on the answer settings searched here, so each question is
    retrieved once per run (the search evaluates dev a few hundred times)."""
    import rag.stages.retrieve

    plain, memo = rag.stages.retrieve.retrieve, {}

    def retrieve(lib, question, k, **kw):  # type: ignore[no-untyped-def]
        key = (question, k, kw.get("filters"), kw.get("mode"))
        if key not in memo:
            memo[key] = plain(lib, question, k, **kw)
        return memo[key]

    rag.stages.retrieve.retrieve = retrieve  # type: ignore[assignment]


def with_values(engine: Engine, values: dict[str, float]) -> Engine:
    return with_reader(engine, engine.reader.model, engine.settings.answer.model_copy(update=values))


def dev_questions(path: Path = DEFAULT_DATASET, limit: int | None = None) -> list[Question]:
    """The questions tuned on; refused when they are test content, whatever the file is called."""
    questions = load(path)
    refuse_test(questions, "tuned on")
    return questions[:limit]


def evaluate(engine: Engine, questions: list[Question]) -> dict[str, Any]:
    rows = [score_question(engine, q, 10) for q in questions]
    summary = summarise(rows)
    words = answer_length(rows)
    flat = {name: summary["overall"].get(name) for name in (
        "key_facts", "gold_cited", "yes_no", "yes_no_verdict", "answer_precision", "citation_precision",
        "citation_recall")}
    return flat | {k: summary[k] for k in ("false_abstention_rate", "unanswerable_abstained",
                                            "accuracy", "latency_p50_ms", "latency_p95_ms")} | {
        "words_p50": words["p50"], "words_p90": words["p90"]}


def objective(scores: dict[str, Any]) -> float:
    return ((scores["key_facts"] or 0) + (1 - (scores["false_abstention_rate"] or 0))
            + (scores["unanswerable_abstained"] or 0) + (scores["gold_cited"] or 0)
            + (scores["yes_no"] or 0)) / 5


def search(engine: Engine, dev: list[Question], passes: int) -> dict[str, float]:
    """Coordinate search: one setting at a time, keep a change only if dev improves."""
    values = {name: getattr(engine.settings.answer, name) for name in GRID}
    best = objective(evaluate(with_values(engine, values), dev))
    for round_ in range(passes):
        changed = False
        for name, options in GRID.items():
            for option in options:
                if option == values[name]:
                    continue
                trial = values | {name: option}
                score = objective(evaluate(with_values(engine, trial), dev))
                if score > best + 1e-9:
                    best, values, changed = score, trial, True
                    print(f"  pass {round_ + 1}: {name}={option} -> dev objective {best:.4f}", flush=True)
        if not changed:
            break
    return values


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if isinstance(value, float) and value > 2 else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=None, help="an existing index (default: build one)")
    parser.add_argument("--no-search", action="store_true", help="only score the current defaults")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="only the first N dev questions")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    dev = dev_questions(limit=args.limit)
    with indexed_settings(args.data_dir) as settings:
        settings = settings.model_copy(update={"llm": settings.llm.model_copy(
            update={"base_url": None, "api_key": None})})
        engine = build_engine(settings)
        memoise_retrieval()
        started = time.perf_counter()
        defaults = {name: getattr(settings.answer, name) for name in GRID}
        columns = {"dev (defaults)": evaluate(engine, dev)}
        fitted = defaults if args.no_search else search(engine, dev, args.passes)
        if fitted != defaults:
            columns["dev (fitted)"] = evaluate(with_values(engine, fitted), dev)
        engine.close()
    print(f"\n{len(dev)} dev questions, offline answerer, {time.perf_counter() - started:.0f} s")
    print(f"{'metric':<28}" + "".join(f"{c:>17}" for c in columns))
    for label, key in REPORTED:
        print(f"{label:<28}" + "".join(f"{fmt(col[key]):>17}" for col in columns.values()))
    changes = {k: v for k, v in fitted.items() if v != defaults[k]}
    print("fitted on dev:", ", ".join(f"{k}={v}" for k, v in changes.items()) or "the defaults")


if __name__ == "__main__":
    main()
