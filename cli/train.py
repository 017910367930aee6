"""``rag train-reader --cross-encoder``: the command's edge (opening the collection, the progress bar,
the summary); the work is eval.train_library's."""

from __future__ import annotations

import io
import logging
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout

import click
import numpy as np

from rag.answer.cross_encoder import COLLECTION_FOLDER
from rag.errors import RagError
from rag.index.collections import name_of
from rag.settings import Settings

FEW = 30  # held-out ranking questions below which the comparison is noise


def finetune_collection(settings: Settings, *, steps: int, minutes: float, llm_minutes: float,
                        keep: bool = False, threads: int = 2) -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise RagError("fine-tuning needs the train extra (torch==2.13.0, transformers, the MiniLM weights): "
                       "run `scripts/setup train` (or pip install -e '.[train]'), then this command again. "
                       "Answering with the result does not need it.") from None
    from cli.main import stop_on_first_interrupt
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
    with click.progressbar(length=steps, label="fine-tuning", file=sys.stderr) as bar, quiet_export(), \
            stop_on_first_interrupt() as stopped:
        found = finetune(papers, vectors, settings.data_dir, collection=name_of(settings), steps=steps,
                         minutes=minutes, threads=threads, llm_file=llm_file, keep=keep, log=say,
                         on_step=lambda step: bar.update(step - bar.pos), should_stop=stopped,
                         command=" ".join(["rag", *sys.argv[1:]]))
    shipped, tuned = found["held_out_figures"]["shipped"], found["held_out_figures"]["tuned"]
    click.echo(f"held-out papers ({found['held_out_papers']} of {found['papers']}), never trained on by the new "
               f"model ({found['seconds']} s):")
    click.echo(f"  {'':<34} {'shipped':>8} {'new':>8} {'groups':>7}")
    for key in shipped:
        a, b = shipped[key]["value"], tuned[key]["value"]
        click.echo(f"  {key.replace('_', ' '):<34} {_cell(a):>8} {_cell(b):>8} {shipped[key]['n']:>7}")
    if shipped["answering_sentence_first"]["n"] < FEW:
        click.echo(f"  (only {shipped['answering_sentence_first']['n']} held-out questions with an answering "
                   "sentence: these figures cannot tell the two models apart; a larger collection can)")
    where = f"collection {name_of(settings)!r}"
    if found["installed"]:
        click.echo(f"installed in {settings.data_dir / COLLECTION_FOLDER}: answering in {where} reads with it "
                   "from now on (restart a running service); delete that folder to go back to the shipped model.")
    elif not found["compared"]:
        click.echo(f"not installed: no held-out question has an answering sentence to compare the two models on, "
                   f"so answering in {where} keeps the model it reads with now. The new model is in "
                   f"{found['model']}; rerun with --keep to install it anyway.")
    else:
        click.echo(f"not installed: the shipped model puts the answering sentence first more often on these "
                   f"held-out papers, so answering in {where} keeps the model it reads with now. "
                   f"The new model is in {found['model']}; "
                   "rerun with --keep to install it anyway.")


@contextmanager
def quiet_export() -> Iterator[None]:
    """torch's ONNX tracer and onnxruntime's quantiser warn about things that do not apply here
    (a traced boolean, a pre-processing hint), and the weights print notices; the user sees the
    progress bar, what this command says and the figures."""
    from transformers.utils import logging as transformers_logging

    root = logging.getLogger()
    level = root.level
    transformers_logging.disable_progress_bar()
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()):  # the weights package's notice
        warnings.simplefilter("ignore")
        root.setLevel(logging.ERROR)
        try:
            yield
        finally:
            root.setLevel(level)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
