"""`rag eval`: run the harness with a progress bar and print every headline figure with its 95%
interval; `rag eval --split test` also appends the figures to eval/ledger.jsonl. Subcommands:
compare, report, judge-agreement. (`from-log` is added by cli/main.py.)"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import click

from rag.errors import RagError
from rag.settings import PROJECT_ROOT, Settings

JUDGES = ("local", "llm")


def _judge(settings: Settings, which: str | None, endpoint: Any = None) -> Any:
    """The Judge for --judge local (the Qwen of `rag local-llm`) or --judge llm (the configured
    endpoint), checked with one call; None without --judge."""
    if which is None:
        return None
    from eval.judge import LOCAL_JUDGE, Judge
    from rag.errors import LLMError
    from rag.llm.client import build_chat_model
    from rag.llm.prompts import load_prompt

    config = LOCAL_JUDGE if which == "local" else (endpoint or settings.llm)
    model = build_chat_model(config)
    if model is None:
        raise RagError("--judge llm needs an endpoint: set RAG_LLM__BASE_URL (and RAG_LLM__MODEL).")
    judge = Judge(model, load_prompt(settings.prompts_dir, "judge"))
    try:
        model.complete(judge.prompt.messages(passage="The sky is blue.", claim="The sky is blue."))
    except LLMError as exc:
        hint = " Start it with `rag local-llm` (127.0.0.1:8080)." if which == "local" else ""
        raise RagError(f"the judge at {config.base_url} does not answer ({exc}).{hint}") from exc
    return judge


def _print(summary: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    from eval.report import HEADLINE, words_cell

    table = Table(title=f"{summary['questions']} questions, generator {', '.join(summary['generators'])}")
    for name, justify in (("metric", "left"), ("all [95% interval]", "right"),
                          *((kind, "right") for kind in summary["by_type"])):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for label, key in HEADLINE:
        value, ci = summary["overall"].get(key), summary["ci"].get(key)
        if value is None:
            continue
        cells = [f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"]
        cells += ["-" if b.get(key) is None else f"{b[key]:.3f}" for b in summary["by_type"].values()]
        table.add_row(label, *cells)
        if key == "accuracy":
            table.add_row("  answer length, words p50 / p90", words_cell(summary.get("answer_words")),
                          *[words_cell(w) for w in summary.get("answer_words_by_type", {}).values()])
        if key == "yes_no_verdict" and summary.get("yes_no_majority") is not None:
            table.add_row("  majority baseline", f"{summary['yes_no_majority']:.3f}", *[""] * len(summary["by_type"]))
    console.print(table)
    p50 = summary.get("latency_p50_ci") or [0, 0]
    console.print(f"abstention precision {summary['abstention_precision']:.3f}, recall "
                  f"{summary['abstention_recall']:.3f}; latency p50 {summary['latency_p50_ms']:.0f} ms "
                  f"[{p50[0]:.0f}, {p50[1]:.0f}], p95 {summary['latency_p95_ms']:.0f} ms; tokens in/out "
                  f"{summary['tokens_in']}/{summary['tokens_out']}; routes {summary['routes']}")


def _after(summary: dict[str, Any], settings: Settings, out: Path, *, judged: Any, seconds: float,
           export: str | None, test: tuple[list[Path], int, str] | None) -> None:
    """What follows a run: the judge's cost, the RAGAS export, and for test content (the split,
    or any file sharing more than a handful of its questions: ``test`` = the files, how many
    test questions, the note) the ledger line."""
    from eval import ledger

    if judged is not None:
        click.echo(f"judge: {judged.calls} sentence(s) of {summary['judged']} answer(s) labelled; the run took "
                   f"{seconds:.0f} s")
    if export == "ragas":
        from eval.compare import load_run
        from eval.export import write_ragas

        count = write_ragas(out / "ragas.jsonl", load_run(out)[1])
        click.echo(f"wrote {count} RAGAS rows to {out / 'ragas.jsonl'}")
    if test:
        paths, shared, note = test
        ledger.append(ledger.entry(summary, settings, paths, out, test_questions=shared, note=note))
        click.echo(f"{shared} test questions scored: appended line {len(ledger.read())} to {ledger.LEDGER}; "
                   f"`python -m eval.ledger --write` puts it into {ledger.DOC.name}")
    click.echo(f"wrote {out}/results.jsonl, summary.json, report.html")


def run_eval(settings: Settings, datasets: list[Path], out: Path | None, k: int, *,
             split: str | None = None, judge: str | None = None, judge_sample: int | None = None,
             judge_endpoint: Any = None, export: str | None = None, resume: bool = False,
             limit: int | None = None, note: str = "") -> dict[str, Any]:
    """Run the harness on a split or dataset files. Scoring test content (the test split, or
    any file sharing more than a handful of its questions) appends a ledger line, with ``note``.
    ``judge_endpoint``: the LLMSettings of --judge llm (the configured endpoint, even when the
    answers come from the offline answerer)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from eval.dataset import HANDFUL, SPLITS, load, shared_with_test
    from eval.run import run
    from rag.engine import build_engine

    paths = [SPLITS[split]] if split else (datasets or [SPLITS["dev"]])
    questions = [q for path in paths for q in load(path)][:limit]
    shared = shared_with_test(questions)  # test content under any file name is a look at test
    label = split or "+".join(p.stem for p in paths)
    out = out or PROJECT_ROOT / "eval" / "runs" / f"{time.strftime('%Y%m%d-%H%M%S')}-{label}"
    console = Console(stderr=True)
    the_judge = _judge(settings, judge, judge_endpoint)
    judge_ids = None
    if the_judge is not None and judge_sample is not None:
        answerable = sorted(q.id for q in questions if q.type != "unanswerable")
        judge_ids = frozenset(random.Random(17).sample(answerable, min(judge_sample, len(answerable))))
    engine = build_engine(settings)
    started = time.perf_counter()
    try:
        columns = (TextColumn("eval"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=console) as bar:
            task = bar.add_task("eval", total=len(questions))
            summary = run(engine, questions, out, k, tick=lambda: bar.advance(task), judge=the_judge,
                          judge_ids=judge_ids, label=label, resume=resume)
    finally:
        engine.close()
    _print(summary, Console(width=None if Console().is_terminal else 140))
    _after(summary, settings, out, judged=the_judge, seconds=time.perf_counter() - started,
           export=export, test=(paths, shared, note) if shared > HANDFUL else None)
    return summary


def _offline(settings: Settings, generator: str | None) -> Settings:
    if generator == "offline":
        return settings.model_copy(update={"llm": settings.llm.model_copy(update={"base_url": None, "api_key": None})})
    if generator == "llm" and not settings.llm.configured:
        raise RagError("--generator llm needs an endpoint: set RAG_LLM__BASE_URL (and RAG_LLM__MODEL).")
    return settings


@click.group("eval", invoke_without_command=True)
@click.option("--split", type=click.Choice(["dev", "test"]), default=None,
              help="A bundled split (default dev). test is held out: every run appends to eval/ledger.jsonl.")
@click.option("--dataset", "datasets", multiple=True, type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="Your own questions: .jsonl or .csv (columns: question, reference_answer, key_facts, "
                   "gold_papers or gold_phrases; see eval/dataset.py)")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Run folder (default eval/runs/<time>-<split>)")
@click.option("--generator", type=click.Choice(["offline", "llm"]), default=None,
              help="Default: the LLM when one is configured, else offline.")
@click.option("-k", "--k", "k", type=click.IntRange(1, 50), default=10, show_default=True,
              help="Papers retrieved per question (-k, as in `rag ask` and `rag search`).")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="Only the first N questions (a quick look; not with --split test, scored whole).")
@click.option("--judge", type=click.Choice(JUDGES), default=None,
              help="Label every answer sentence against its cited passage: local = the Qwen of `rag local-llm`.")
@click.option("--judge-sample", type=click.IntRange(1), default=None,
              help="Judge only this many answerable questions (seeded sample): the local judge is slow.")
@click.option("--export", type=click.Choice(["ragas"]), default=None, help="Also write ragas.jsonl")
@click.option("--resume", type=click.Path(path_type=Path, exists=True, file_okay=False), default=None,
              help="A stopped run's folder: keep the answers it wrote, answer the rest (same questions and settings)")
@click.option("--note", default="", help="Said in the ledger line of a look at test (what changed since the last)")
@click.pass_context
def eval_group(ctx: click.Context, split: str | None, datasets: tuple[Path, ...], out: Path | None,
               generator: str | None, k: int, limit: int | None, judge: str | None,
               judge_sample: int | None, export: str | None, resume: Path | None, note: str) -> None:
    """Score answers on hand-written questions; writes results.jsonl, summary.json, report.html."""
    if ctx.invoked_subcommand is not None:
        return
    if split and datasets:
        raise click.UsageError("give --split or --dataset, not both")
    if limit and split == "test":
        raise click.UsageError("--limit is for a quick look at dev or your own questions; the test "
                               "split is scored whole (every run goes into the ledger)")
    if resume and out and out.resolve() != resume.resolve():
        raise click.UsageError("--resume writes into the run it resumes: leave out --out")
    run_eval(_offline(ctx.obj, generator), list(datasets), resume or out, k, split=split, judge=judge,
             judge_sample=judge_sample, judge_endpoint=ctx.obj.llm, export=export, resume=resume is not None,
             limit=limit, note=note)


@eval_group.command("regrade")
@click.argument("run_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--split", type=click.Choice(["dev"]), default=None, help="The questions the run asked (default dev)")
@click.option("--dataset", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="Or the question file the run asked")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="The folder of the regraded run")
@click.pass_obj
def eval_regrade(settings: Settings, run_dir: Path, split: str | None, dataset: Path | None, out: Path) -> None:
    """Grade a run's saved answers again with today's metrics (nothing is asked again): what a
    change of the ruler alone does. Test content is refused: a new ruler on test is a new look,
    made with `rag eval --split test` so that the ledger has it."""
    from eval.compare import load_run
    from eval.dataset import SPLITS, load, refuse_test
    from eval.regrade import regrade, write
    from rag.index.library import open_library

    questions = load(dataset or SPLITS[split or "dev"])
    refuse_test(questions, "regraded: a new ruler on test is a new look, made by `rag eval --split test` "
                           "so that the ledger has it")
    _, rows = load_run(run_dir)
    library = open_library(settings)
    try:
        wanted = {c["paper_id"] for r in rows for c in r["citations"]} | {p for q in questions for p in q.gold_papers}
        summary = write(out, regrade(rows, questions, library.catalog.get_many(wanted)), out.name)
    finally:
        library.close()
    from rich.console import Console

    _print(summary, Console(width=140))
    click.echo(f"wrote {out}/results.jsonl, summary.json, report.html")


@eval_group.command("compare")
@click.argument("run_a", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.argument("run_b", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--html", type=click.Path(path_type=Path), default=None,
              help="Also write a report of both runs with the flips")
def eval_compare(run_a: Path, run_b: Path, html: Path | None) -> None:
    """Per metric: A, B, the change and whether it is beyond noise (paired bootstrap); the
    questions that flipped between right and wrong (McNemar)."""
    from eval.compare import compare_rows, lines, load_run
    from eval.report import write_report

    (sum_a, rows_a), (sum_b, rows_b) = load_run(run_a), load_run(run_b)
    result = compare_rows(rows_a, rows_b)
    click.echo("\n".join(lines(result)))
    if html:
        write_report(html, [(run_a.name, rows_a, sum_a), (run_b.name, rows_b, sum_b)], result.flips)
        click.echo(f"wrote {html}")


@eval_group.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="The HTML file to write")
def eval_report(runs: tuple[Path, ...], out: Path) -> None:
    """One page for one or more runs side by side (e.g. dev and test); the flips too when the
    first and last run share questions."""
    from eval.compare import compare_rows, load_run
    from eval.report import write_report

    loaded = [(run.name, *reversed(load_run(run))) for run in runs]
    shared = len(loaded) > 1 and {r["id"] for r in loaded[0][1]} & {r["id"] for r in loaded[-1][1]}
    flips = compare_rows(loaded[0][1], loaded[-1][1]).flips if shared else None
    write_report(out, loaded, flips)  # type: ignore[arg-type]
    click.echo(f"wrote {out}")


@eval_group.command("judge-agreement")
@click.option("--judge", type=click.Choice(JUDGES), default="local", show_default=True)
@click.option("--split", type=click.Choice(["dev", "test"]), default="test", show_default=True)
@click.option("--limit", type=click.IntRange(1), default=None, help="Only this many pairs (seeded sample)")
@click.pass_obj
def eval_judge_agreement(settings: Settings, judge: str, split: str, limit: int | None) -> None:
    """How often the judge agrees with the labelled support pairs (eval/datasets/support_pairs.jsonl)."""
    from eval.agreement import measure

    click.echo("\n".join(measure(settings, _judge(settings, judge), split, limit)))
