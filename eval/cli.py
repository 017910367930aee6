"""`rag eval`: run the harness with a progress bar and print the summary table."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from rag.engine import build_engine
from rag.settings import PROJECT_ROOT, LLMSettings, Settings

ROWS = ("recall@5", "mrr@10", "ndcg@10", "key_facts", "token_f1", "citation_precision",
        "citation_recall", "citation_validity", "support_rate", "accuracy")


def run_eval(settings: Settings, datasets: list[Path], out: Path | None, k: int,
             judge_llm: LLMSettings | None = None) -> dict:
    """Run the harness; with ``judge_llm`` (the configured endpoint) add LLM-judge scores."""
    from eval.dataset import DEFAULT_DATASET, load
    from eval.run import run

    questions = [q for path in (datasets or [DEFAULT_DATASET]) for q in load(path)]
    out = out or PROJECT_ROOT / "eval" / "runs" / time.strftime("%Y%m%d-%H%M%S")
    console = Console(stderr=True)
    engine = build_engine(settings)
    judge_with = None
    if judge_llm is not None:
        from rag.errors import RagError
        from rag.llm.client import build_chat_model
        from rag.llm.prompts import load_prompt

        model = build_chat_model(judge_llm)
        if model is None:
            raise RagError("--judge needs an LLM endpoint: set RAG_LLM__BASE_URL (and RAG_LLM__MODEL).")
        judge_with = (model, load_prompt(settings.prompts_dir, "judge"))
    try:
        columns = (TextColumn("eval"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=console) as bar:
            task = bar.add_task("eval", total=len(questions))
            summary = run(engine, questions, out, k, tick=lambda: bar.advance(task), judge_with=judge_with)
    finally:
        engine.close()
    table = Table(title=f"{len(questions)} questions, generator {', '.join(summary['generators'])}")
    table.add_column("metric")
    table.add_column("all", justify="right")
    for kind in summary["by_type"]:
        table.add_column(kind, justify="right")
    judged = [m for m in summary["overall"] if m.startswith("judge_")]
    for metric in (*ROWS, *judged):
        cells = [summary["overall"].get(metric)] + [b.get(metric) for b in summary["by_type"].values()]
        table.add_row(metric, *("-" if c is None else f"{c:.3f}" for c in cells))
    Console().print(table)
    Console().print(f"abstention precision {summary['abstention_precision']:.3f}, recall "
                    f"{summary['abstention_recall']:.3f}; accuracy {summary['accuracy']:.3f}, precision "
                    f"over answered {summary['precision_answered']:.3f}; latency p50 "
                    f"{summary['latency_p50_ms']:.0f} ms, p95 {summary['latency_p95_ms']:.0f} ms; tokens "
                    f"in/out {summary['tokens_in']}/{summary['tokens_out']}\n"
                    f"wrote {out}/results.jsonl, summary.json, report.html")
    return summary
