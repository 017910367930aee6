"""A rich progress bar for ingest (counts, rate, time left) fed by ingest's callback."""

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
    columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TextColumn("lines"),
               TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task("ingest", total=None)

        def tick(event: str, amount: int) -> None:
            if event == "total":
                bar.update(task, total=amount)
            else:
                bar.advance(task, amount)

        yield tick
