"""The ``rag`` command. RagError becomes a one-line message and a non-zero exit here, and only
here; logging is configured here, never in library code."""

from __future__ import annotations

import json
import logging
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from .errors import InputError, RagError
from .settings import Settings

log = logging.getLogger("rag")


class _Group(click.Group):
    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except RagError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(2 if isinstance(exc, InputError) else 1)
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
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Ask questions about a collection of paper abstracts; every claim is cited."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    ctx.obj = Settings()


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--rebuild", is_flag=True, help="Drop the index and build it again.")
@click.pass_obj
def ingest(settings: Settings, paths: tuple[Path, ...], rebuild: bool) -> None:
    """Index abstracts (default: the bundled corpus). Safe to re-run: only changes are embedded."""
    from .ingest import ingest as run_ingest
    from .library import open_library
    from .progress import ingest_progress

    lib = open_library(settings, rebuild=rebuild)
    try:
        with ingest_progress() as progress, stop_on_first_interrupt() as stop_requested:
            report = run_ingest(lib, list(paths) or [settings.corpus_dir], progress,
                                should_stop=stop_requested)
    finally:
        lib.close()
    for problem in report.problems:
        click.echo(f"skipped {problem}", err=True)
    click.echo(
        f"{report.papers} papers read from {report.files} files ({report.metadata_only} "
        f"without abstract): {report.indexed} indexed, {report.unchanged} unchanged, "
        f"{report.duplicates_merged} duplicates merged, {report.removed} removed, "
        f"{len(report.problems)} rows skipped; {report.chunks_embedded} chunks embedded, "
        f"{report.chunks_reused} reused; {report.seconds:.1f} s"
    )


@cli.command()
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="Print the whole Answer as JSON.")
@click.option("-k", type=click.IntRange(1, 50), default=None, help="Papers to read.")
@click.pass_obj
def ask(settings: Settings, question: str, as_json: bool, k: int | None) -> None:
    """Answer a question from the indexed abstracts, with citations."""
    from .engine import answer, build_engine

    engine = build_engine(settings)
    try:
        result = answer(engine, question, k=k)
    finally:
        engine.close()
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        return
    click.echo(result.text)
    if result.citations:
        click.echo()
        for c in result.citations:
            click.echo(f"[{c.key}] {c.label}")
    else:
        closest = ", ".join(r.label for r in result.retrieved[:3])
        if closest:
            click.echo(f"\nClosest papers (not claimed to answer): {closest}")


@cli.command()
@click.argument("query")
@click.option("-k", type=click.IntRange(1, 100), default=5, help="Papers to show.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def search(settings: Settings, query: str, k: int, as_json: bool) -> None:
    """Show the papers retrieval finds for a query, with scores."""
    from .engine import build_engine
    from .engine import search as run_search

    engine = build_engine(settings)
    try:
        hits = run_search(engine, query, k)
    finally:
        engine.close()
    if as_json:
        rows = [{"paper_id": h.paper.id, "label": h.paper.label, "score": round(h.score, 4),
                 "passage": h.best_chunk.text if h.best_chunk else ""} for h in hits]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for rank, h in enumerate(hits, start=1):
        snippet = (h.best_chunk.text if h.best_chunk else "")[:160]
        click.echo(f"{rank:>2}. {h.score:.3f}  {h.paper.label}\n    {snippet}…")


def main() -> None:
    cli(prog_name="rag")


if __name__ == "__main__":
    sys.exit(main())
