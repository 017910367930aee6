"""The ``rag`` command. RagError becomes a one-line message and a non-zero exit here, and only
here; logging is configured here, never in library code."""

from __future__ import annotations

import json
import logging
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from cli.mcp import mcp
from eval.cli import eval_group
from rag.errors import ConfigError, InputError, RagError
from rag.index.collections import DEMO, in_collection, name_of
from rag.settings import Settings, load_settings
from rag.types import Route

log = logging.getLogger("rag")


class _Group(click.Group):
    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except RagError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(2 if isinstance(exc, InputError | ConfigError) else 1)
        except KeyboardInterrupt:
            click.echo("interrupted: what was finished is saved; run the command again to "
                       "complete it.", err=True)
            ctx.exit(130)


@contextmanager
def stop_on_first_interrupt() -> Iterator[Callable[[], bool]]:
    """First Ctrl-C: finish the batch in hand, save it, stop. Second Ctrl-C: stop at once.
    (Native code in the embedder or the store can otherwise delay or swallow the interrupt.)"""
    requested: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        if requested:
            raise KeyboardInterrupt
        requested.append(True)
        click.echo("\nstopping after the current batch (Ctrl-C again to stop now)…", err=True)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(requested)
    finally:
        signal.signal(signal.SIGINT, previous)


@click.group(cls=_Group)
@click.option("-v", "--verbose", is_flag=True, help="Log what happens.")
@click.option("--collection", default=None, metavar="NAME",
              help="The collection to use: demo (the bundled corpus) or one you made with "
                   "`rag ingest FILES --collection NAME` (same as RAG_COLLECTION=NAME).")
@click.pass_context
def cli(ctx: click.Context, verbose: bool, collection: str | None) -> None:
    """Ask questions about a collection of paper abstracts; every claim is cited."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    # bibtexparser logs each broken entry; ingest reports it already, as file:line and reason
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    ctx.obj = in_collection(load_settings(), collection)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--rebuild", is_flag=True,
              help="Build the whole index again beside the live one, then swap it in.")
@click.option("--show-merges", is_flag=True, help="List every merged duplicate with both ids.")
@click.option("--yes", is_flag=True,
              help="With --rebuild: remove the papers of files not given (otherwise it refuses).")
@click.option("--wait", type=click.FloatRange(0, 86_400), default=0, show_default=True,
              help="Seconds to wait for another ingest of this index to finish, then refuse.")
@click.option("--collection", default=None, metavar="NAME",
              help="Index into this collection (your library apart from the demo), e.g. "
                   "--collection mine; then `rag --collection mine ask ...` or RAG_COLLECTION=mine.")
@click.pass_obj
def ingest(settings: Settings, paths: tuple[Path, ...], rebuild: bool, show_merges: bool, yes: bool,
           wait: float, collection: str | None) -> None:
    """Index abstracts (default: the bundled corpus). Safe to re-run: only changes are embedded."""
    settings = in_collection(settings, collection) if collection else settings
    from rag.ingest.pipeline import ingest_files
    from rag.ingest.progress import ingest_progress
    from rag.ingest.rebuild import rebuild as run_rebuild

    sources = list(paths) or [settings.corpus_dir]
    with ingest_progress() as progress, stop_on_first_interrupt() as stop_requested:
        if rebuild:
            report = run_rebuild(settings, sources, progress, should_stop=stop_requested,
                                 drop_others=yes, wait=wait)
        else:
            report = ingest_files(settings, sources, progress, should_stop=stop_requested, wait=wait)
    print_ingest_report(report, rebuild, show_merges)
    click.echo(collection_hint(settings, bool(paths)), err=True)


def collection_hint(settings: Settings, own_files: bool) -> str:
    """Where the papers went, and how to keep a library of one's own apart from the demo."""
    name = name_of(settings)
    if name != DEMO:
        return (f"collection {name!r} ({settings.data_dir}). Ask it with: rag --collection {name} "
                f"ask \"...\" (or RAG_COLLECTION={name}); the page and API take ?collection={name}.")
    if own_files:
        return ("note: these papers went into the demo collection, beside the bundled ones. To keep "
                "your library apart: rag ingest FILES --collection mine (then rag --collection mine ask).")
    return ("the demo collection is ready. Your own library (BibTeX, RIS, CSL-JSON, CSV, JSONL): "
            "rag ingest my.bib --collection mine, then rag --collection mine ask \"...\".")


def print_ingest_report(report, rebuild: bool, show_merges: bool = False) -> None:  # type: ignore[no-untyped-def]
    if report.recovered:
        click.echo("recovered: the index stamp (index.json) was unreadable; it was restored from the "
                   "newest intact generation on disk before this ingest.", err=True)
    if report.resumed:
        click.echo(f"resumed the stopped rebuild: {report.chunks_reused} chunks it had embedded "
                   "were reused.", err=True)
    for notice in report.notices:
        click.echo(f"note: {notice}", err=True)
    for problem in report.problems:
        said = str(problem).removesuffix("; skipped").removesuffix("; file skipped")
        click.echo(f"{'skipped' if problem.line is not None else 'not read:'} {said}", err=True)
    for merged, kept in report.merges if show_merges else ():
        click.echo(f"merged {merged} into {kept}")
    rows = sum(p.line is not None for p in report.problems)
    unread = len(report.problems) - rows
    removed = f"{report.removed} removed{' (not in the rebuilt sources)' if rebuild else ''}"
    click.echo(
        f"{report.papers} papers read from {report.files} files ({report.metadata_only} "
        f"without abstract): {report.indexed} indexed, {report.unchanged} unchanged, "
        f"{report.duplicates_merged} duplicates merged, {removed}, "
        f"{rows} rows skipped{f', {unread} files not read' if unread else ''}; "
        f"{report.chunks_embedded} chunks embedded, {report.chunks_reused} reused, "
        f"{report.sentences_embedded} sentences embedded for reading; {report.seconds:.1f} s; "
        f"index generation {report.generation}"
    )
    if report.sentences_left:
        click.echo(f"stopped before {report.sentences_left} papers' sentences were embedded for reading: "
                   "their questions are answered, a little slower; the next `rag ingest` finishes them.",
                   err=True)
    if report.repaired:
        click.echo(f"repaired: {report.repaired} papers had lost their vectors and were indexed again.",
                   err=True)
    if report.unrepaired:
        click.echo(f"warning: {report.unrepaired} papers still have no vectors: their files were not "
                   "read in this run. Ingest those files too, or run `rag ingest --rebuild`.", err=True)


def port_is_free(host: str, port: int) -> None:
    """Refuse, with what to do, a port something else listens on."""
    import socket

    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise RagError(f"cannot listen on {host}:{port} ({exc.strerror or exc}). Stop what uses it, "
                       f"or pick another port: rag serve --port {port + 1}") from None


def filter_options(command):  # type: ignore[no-untyped-def]
    """--author, --year, --venue, --source on a command, passed on as one Filters."""
    options = [
        click.option("--author", help="Only papers with this author (substring, any case)."),
        click.option("--year", "years", help="A year or range: 2023, 2023-2025, 2023-, -2021."),
        click.option("--venue", help="Only papers whose venue contains this."),
        click.option("--source", help="Only papers from this input file (name or prefix)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def make_filters(author: str | None, years: str | None, venue: str | None,
                 source: str | None):  # type: ignore[no-untyped-def]
    from rag.index.filters import Filters
    from rag.text.check import bad_text

    given = {"--author": author, "--year": years, "--venue": venue, "--source": source}
    for option, value in given.items():
        if value and (problem := bad_text(value)):
            raise InputError(f"{option} holds {problem}. Send it as UTF-8 text.")
    return Filters.parse(author=author, year=years, venue=venue, source=source)


def print_answer(result, err: bool = False) -> None:  # type: ignore[no-untyped-def]
    if result.standalone_question:
        click.echo(f"(read as: {result.standalone_question})", err=True)
    if result.route is Route.FALLBACK:
        click.echo(f"note: answered offline ({result.fallback_reason})", err=True)
    click.echo(result.text, err=err)
    if result.citations:
        click.echo(err=err)
        for c in result.citations:
            click.echo(f"[{c.key}] {c.label}" + (f"\n    {c.link}" if c.link else ""), err=err)
    else:
        if result.abstain_reason:
            click.echo(f"({result.abstain_reason[0].upper()}{result.abstain_reason[1:]}.)", err=err)
        closest = ", ".join(r.label for r in result.see_also)
        if closest:
            click.echo(f"\nSee also (not claimed to answer): {closest}", err=err)


@cli.command()
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="Print the whole Answer as JSON.")
@click.option("-k", type=click.IntRange(1, 50), default=None, help="Papers to read.")
@click.option("--stream", is_flag=True, help="Print the checked answer sentence by sentence.")
@click.option("--export", "export_as", type=click.Choice(["bib", "ris", "csl"]), default=None,
              help="Print the cited papers as BibTeX, RIS or CSL-JSON on stdout (the answer goes "
                   "to stderr): rag ask \"...\" --export bib > cited.bib")
@filter_options
@click.pass_obj
def ask(settings: Settings, question: str, as_json: bool, k: int | None, stream: bool,
        export_as: str | None, **filters: str) -> None:
    """Answer a question from the indexed abstracts, with citations."""
    from rag.engine import answer, answer_stream, build_engine
    from rag.types import Replace

    if export_as:
        return export_cited(settings, question, export_as, k, make_filters(**filters))

    chosen = make_filters(**filters)
    engine = build_engine(settings)
    try:
        if stream and not as_json:
            result = None
            for item in answer_stream(engine, question, k=k, filters=chosen):
                if isinstance(item, str):
                    click.echo(item, nl=False)
                elif isinstance(item, Replace):  # what was printed gives way to the final text
                    click.echo(f"\n(revised answer)\n{item.text}", nl=False)
                else:
                    result = item
            click.echo("\n---")
        else:
            result = answer(engine, question, k=k, filters=chosen)
    finally:
        engine.close()
    if as_json and result is not None:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    elif result is not None:
        print_answer(result)


def export_cited(settings: Settings, question: str, fmt: str, k: int | None, filters) -> None:  # type: ignore[no-untyped-def]
    """The answer on stderr, what it cited on stdout in ``fmt``."""
    from rag.answer.export import export
    from rag.engine import answer, build_engine

    engine = build_engine(settings)
    try:
        result = answer(engine, question, k=k, filters=filters)
        papers = [p for c in result.citations if (p := engine.library.catalog.get(c.paper_id))]
    finally:
        engine.close()
    print_answer(result, err=True)
    if not papers:
        raise click.ClickException("the answer cited no paper, so there is nothing to export.")
    click.echo(export(papers, fmt), nl=False)


@cli.command()
@filter_options
@click.pass_obj
def chat(settings: Settings, **filters: str) -> None:
    """Ask several questions in a row; follow-ups ("and what about ...?") use earlier turns."""
    from rag.engine import answer, build_engine
    from rag.retrieve.followups import turn_of
    from rag.retrieve.query import recent
    from rag.types import Turn

    chosen = make_filters(**filters)
    engine = build_engine(settings)
    history: list[Turn] = []
    try:
        while True:
            try:
                question = input("\nquestion> ").strip()
            except EOFError:
                break
            if question in {"", "exit", "quit"}:
                break
            try:
                result = answer(engine, question, filters=chosen,
                                history=recent(history, settings.service.conversation_turns))
            except InputError as exc:
                click.echo(f"error: {exc}", err=True)
                continue
            print_answer(result)
            history.append(turn_of(result))
    finally:
        engine.close()


@cli.command()
@click.argument("query")
@click.option("-k", type=click.IntRange(1, 100), default=5, help="Papers to show.")
@click.option("--mode", type=click.Choice(["hybrid", "dense", "keyword"]), default="hybrid")
@click.option("--explain", is_flag=True, help="Show each retriever's rank and score.")
@click.option("--json", "as_json", is_flag=True)
@filter_options
@click.pass_obj
def search(settings: Settings, query: str, k: int, mode: str, explain: bool, as_json: bool,
           **filters: str) -> None:
    """Show the papers retrieval finds for a query, fused from keyword and vector search."""
    from rag.engine import build_engine
    from rag.engine import search as run_search

    chosen = make_filters(**filters)
    engine = build_engine(settings)
    try:
        hits = run_search(engine, query, k, filters=chosen, mode=mode)
    finally:
        engine.close()
    if as_json:
        rows = [{"paper_id": h.paper.id, "label": h.paper.label, "score": round(h.score, 5),
                 "similarity": round(h.similarity, 4), "has_abstract": h.paper.has_abstract,
                 "ranks": [{"retriever": n, "rank": r, "score": s} for n, r, s in h.ranks],
                 "passage": h.best_chunk.text if h.best_chunk else ""} for h in hits]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for rank, h in enumerate(hits, start=1):
        snippet = (h.best_chunk.text if h.best_chunk else "(listed without an abstract)")[:160]
        click.echo(f"{rank:>2}. {h.score:.4f}  {h.paper.label}\n    {snippet}…")
        if explain:
            parts = [f"{n} #{r} ({s:g})" for n, r, s in h.ranks] or ["-"]
            click.echo(f"    fused from: {', '.join(parts)}; cosine {h.similarity:.3f}")


@cli.command()
@click.option("--host", default=None, help="Default 127.0.0.1 (RAG_SERVICE__HOST).")
@click.option("--port", type=int, default=None, help="Default 8000 (RAG_SERVICE__PORT).")
@click.option("--workers", type=click.IntRange(1, 32), default=1, show_default=True)
@click.pass_obj
def serve(settings: Settings, host: str | None, port: int | None, workers: int) -> None:
    """Serve the HTTP API, the OpenAI-compatible endpoint and the chat page."""
    import ipaddress

    import uvicorn

    host = host or settings.service.host
    port = port or settings.service.port
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not settings.service.api_keys:
        raise RagError(f"refusing to serve on {host} without API keys: set RAG_SERVICE__API_KEYS="
                       "'[\"a-long-secret\"]' or serve on 127.0.0.1.")
    from rag.index.library import open_library
    from service.app import uvicorn_options
    from service.slack_settings import load_slack_settings
    from service.slow_clients import server_options

    load_slack_settings()  # a bad RAG_SLACK__ variable stops here, in one line, not in the worker
    open_library(settings).close()  # fail here, with a message, if the index cannot be opened
    os.environ["RAG_COLLECTION"] = settings.collection  # the app factory serves the same collection
    port_is_free(host, port)  # before the URL is printed: a busy port is said, not announced
    click.echo(f"abstract-rag: http://{host}:{port}/  (API docs: /docs)", err=True)
    uvicorn.run("service.app:app_factory", factory=True, host=host, port=port, workers=workers,
                log_level="warning", **uvicorn_options(settings), **server_options())  # type: ignore[arg-type]


cli.add_command(eval_group)  # rag eval [compare|report|judge-agreement]: eval/cli.py
cli.add_command(mcp)  # rag mcp: cli/mcp.py


@eval_group.command("from-log")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="JSONL to write")
@click.option("--channel", default=None, help="Only questions from this channel (api, openai, slack)")
@click.pass_obj
def eval_from_log(settings: Settings, out: Path, channel: str | None) -> None:
    """Write the service's logged questions as draft eval cases (complete the gold by hand)."""
    from service.conversations import export_drafts

    log_path = settings.data_dir / "service.sqlite"
    if not log_path.exists():
        raise RagError(f"no question log at {log_path}; it fills when `rag serve` answers questions.")
    drafts = export_drafts(log_path, channel)
    out.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in drafts), encoding="utf-8")
    click.echo(f"wrote {len(drafts)} draft case(s) to {out}; add gold papers and key facts, then "
               f"run `rag eval --dataset {out}`")


@cli.command("slack")
@click.pass_obj
def slack(settings: Settings) -> None:
    """Run the Slack bot over Socket Mode (no public URL): needs RAG_SLACK__BOT_TOKEN and RAG_SLACK__APP_TOKEN."""
    from service.slack import run_socket_mode
    from service.slack_settings import load_slack_settings

    slack_settings = load_slack_settings()
    click.echo("abstract-rag: connecting to Slack over Socket Mode (Ctrl-C to stop)…", err=True)
    try:
        run_socket_mode(settings, slack=slack_settings)
    except KeyboardInterrupt:
        click.echo("stopped.", err=True)


@cli.group("feedback")
def feedback() -> None:
    """Votes on the Slack bot's answers."""


@feedback.command("export")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="JSONL to write")
@click.pass_obj
def feedback_export(settings: Settings, out: Path) -> None:
    """Write 👎'd Slack answers as draft eval cases (add gold papers and key facts by hand)."""
    from service.slack_blocks import export_feedback

    log_path = settings.data_dir / "service.sqlite"
    if not log_path.exists():
        raise RagError(f"no feedback at {log_path}; it fills when people vote on the Slack bot's answers.")
    count = export_feedback(log_path, out)
    click.echo(f"wrote {count} draft case(s) to {out}; add gold papers, a reference answer and key facts, "
               f"then run `rag eval --dataset {out}`")


@cli.command("train-reader")
@click.option("--dataset", "datasets", multiple=True, type=click.Path(path_type=Path, exists=True),
              help="Labelled questions (default: eval/datasets/dev.jsonl and train_generated.jsonl). "
                   "Never the test split.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the weights (default: rag/assets/reader.json).")
@click.option("--max-false-abstentions", type=click.FloatRange(0, 0.5), default=0.03, show_default=True,
              help="Answerable dev questions the answerability threshold may decline (out of fold).")
@click.option("--choose-on", type=click.Choice(["dev", "pooled"]), default="dev", show_default=True,
              help="Whose out-of-fold predictions choose the thresholds: the hand-written (dev) questions, "
                   "or dev and the generated ones pooled.")
@click.option("--cross-encoder", "cross_encoder", is_flag=True,
              help="Instead: fine-tune the cross-encoder on this collection's own abstracts (questions made "
                   "from them), into <data dir>/cross-encoder, which answering here then reads with. "
                   "Needs the train extra (scripts/setup train); a rerun resumes.")
@click.option("--steps", type=click.IntRange(1), default=1300, show_default=True,
              help="--cross-encoder: training steps.")
@click.option("--minutes", type=click.FloatRange(0.1), default=25.0, show_default=True,
              help="--cross-encoder: stop training after this long (a rerun goes on).")
@click.option("--llm-minutes", type=click.FloatRange(0), default=0.0, show_default=True,
              help="--cross-encoder: first let the local model write paraphrase questions for this long.")
@click.option("--keep", is_flag=True, help="--cross-encoder: install the new model even where the shipped one "
                                           "does better on the held-out papers.")
@click.pass_obj
def train_reader(settings: Settings, datasets: tuple[Path, ...], out: Path | None,
                 max_false_abstentions: float, choose_on: str, cross_encoder: bool, steps: int,
                 minutes: float, llm_minutes: float, keep: bool) -> None:
    """Fit the reader (which sentences answer; whether the abstracts answer) on labelled questions;
    prints the out-of-fold figures for dev alone, generated alone and pooled. With --cross-encoder,
    fine-tune the cross-encoder on the collection's own abstracts instead."""
    if cross_encoder:
        if datasets or out:
            raise InputError("--dataset and --out are for the fitted reader; --cross-encoder trains on the "
                             "collection's own abstracts and writes into its data directory. Use one or the other.")
        from cli.train import finetune_collection

        finetune_collection(settings, steps=steps, minutes=minutes, llm_minutes=llm_minutes, keep=keep)
        return
    from eval.dataset import load, refuse_test
    from eval.train_reader import DEFAULT_DATA, train
    from rag.answer.features import FEATURES
    from rag.answer.model import MODEL_FILE, ReaderModel
    from rag.answer.reader import EVIDENCE
    from rag.engine import build_engine

    paths = list(datasets) or [p for p in DEFAULT_DATA if p.exists()]
    refuse_test([q for p in paths for q in load(p)], "trained on")  # by content, under any file name
    engine = build_engine(settings, reader_model=ReaderModel.blank(FEATURES, EVIDENCE))
    try:
        with click.progressbar(length=sum(1 for p in paths for _ in p.open()), label="reading",
                               file=None) as bar:
            trained = train(engine, paths, max_false=max_false_abstentions, tick=lambda: bar.update(1),
                            out=out or MODEL_FILE, choose_on=choose_on)
    finally:
        engine.close()
    click.echo(json.dumps(trained, indent=1))
    click.echo(f"out of fold (thresholds chosen on {trained['thresholds_chosen_on']}):")
    for source, f in trained["cross_validated_by_source"].items():
        click.echo(f"  {source:<9} {f['questions']:>4} questions: top sentence states a fact "
                   f"{f['top1_states_a_fact']}, unanswerable declined {f['unanswerable_declined']}, "
                   f"false abstentions {f['false_abstentions']}")


@cli.command("local-llm")
@click.option("--model", "name", type=click.Choice(["qwen", "smollm2"]), default="qwen",
              show_default=True, help="qwen: Qwen2.5-Coder-1.5B-Instruct; smollm2: a 135M protocol test.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="0.0.0.0 in a container, for the service in another one to reach it.")
@click.option("--port", default=8080, show_default=True)
@click.option("--threads", type=int, default=None, help="CPU threads (default: all cores).")
@click.pass_obj
def local_llm(settings: Settings, name: str, host: str, port: int, threads: int | None) -> None:
    """Serve a local model (shipped by PyPI packages, never downloaded) on 127.0.0.1 with an
    OpenAI-compatible API, for `rag ask` and the service to use."""
    import os

    from rag.llm.local import local_model, server_command

    click.echo("checking the model file (the first run assembles it, about a minute)…", err=True)
    model = local_model(name, settings.data_dir / "models")
    command = server_command(model, host=host, port=port, threads=threads)
    click.echo(f"in another shell: export RAG_LLM__BASE_URL=http://{host}:{port}/v1 "
               f"RAG_LLM__MODEL={model.alias}", err=True)
    os.execv(command[0], command)


def main() -> None:
    cli(prog_name="rag")


if __name__ == "__main__":
    main()
