"""Rich progress bars for ingest (counts, rate, time left) fed by ingest's callback: the lines
read, then the papers whose sentences are embedded for the reader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)


@contextmanager
def ingest_progress() -> Iterator:  # type: ignore[type-arg]
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[unit]}"),
               TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task("ingest", total=None, unit="lines")
        sentences = None  # a second bar: the abstracts' sentences embedded for the reader

        def tick(event: str, amount: int) -> None:
            nonlocal sentences
            if event == "total":
                bar.update(task, total=amount)
            elif event == "sentences total":
                sentences = bar.add_task("sentences", total=amount, unit="papers")
            elif event == "sentences" and sentences is not None:
                bar.advance(sentences, amount)
            elif event == "advance":
                bar.advance(task, amount)

        yield tick
